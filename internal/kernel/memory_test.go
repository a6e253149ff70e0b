package kernel

import (
	"encoding/binary"
	"errors"
	"testing"
)

// pageMemory is kernel memory of one page at base, for the word readers.
type pageMemory struct {
	base uint64
	data [4096]byte
}

func (m *pageMemory) ReadAt(p []byte, vaddr uint64) error {
	if vaddr < m.base || vaddr+uint64(len(p)) > m.base+uint64(len(m.data)) {
		return errors.New("unmapped")
	}
	copy(p, m.data[vaddr-m.base:])
	return nil
}

// TestWords: a word is little-endian; a run of reads keeps its first
// error, and every read after it gives 0, though the address is mapped.
func TestWords(t *testing.T) {
	m := &pageMemory{base: 0xffff0000}
	binary.LittleEndian.PutUint64(m.data[8:], 0x1122334455667788)
	if v, err := ReadWord(m, 0xffff0008); err != nil || v != 0x1122334455667788 {
		t.Errorf("ReadWord = %#x, %v", v, err)
	}
	if _, err := ReadWord(m, 0x1000); err == nil {
		t.Error("ReadWord of an unmapped address: no error")
	}
	w := &words{m: m}
	if v := w.at(0xffff0008); v != 0x1122334455667788 || w.err != nil {
		t.Errorf("at = %#x, err %v", v, w.err)
	}
	if v := w.at(0x1000); v != 0 || w.err == nil {
		t.Errorf("at an unmapped address = %#x, err %v; want 0 and an error", v, w.err)
	}
	if v := w.at(0xffff0008); v != 0 {
		t.Errorf("at after an error = %#x, want 0", v)
	}
}
