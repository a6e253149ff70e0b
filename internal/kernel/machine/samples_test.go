package machine

import (
	"encoding/binary"
	"slices"
	"testing"
)

// record builds one perf record of typ whose body is the words.
func record(typ uint32, words ...uint64) []byte {
	b := make([]byte, 8+8*len(words))
	binary.NativeEndian.PutUint32(b, typ)
	binary.NativeEndian.PutUint16(b[6:], uint16(len(b)))
	for i, w := range words {
		binary.NativeEndian.PutUint64(b[8+8*i:], w)
	}
	return b
}

const kernelContext = ^uint64(128 - 1) // PERF_CONTEXT_KERNEL, (u64)-128

// ring places the records in a ring of size bytes from position tail,
// wrapping at its end; it returns the ring and the head.
func ring(size int, tail uint64, recs ...[]byte) ([]byte, uint64) {
	data := make([]byte, size)
	at := tail
	for _, r := range recs {
		for _, c := range r {
			data[at%uint64(size)] = c
			at++
		}
	}
	return data, at
}

func TestParseSamples(t *testing.T) {
	sample := record(recordSample, 0xffffffff81000010, 3, kernelContext, 0xffffffff81000010, 0xffffffff81200020)
	lost := record(recordLost, 7, 42)
	mmap := record(1, 1, 2, 3) // PERF_RECORD_MMAP: skipped
	want := []uint64{0xffffffff81000010, 0xffffffff81200020}
	for _, tc := range []struct {
		name      string
		size      int
		tail      uint64
		recs      [][]byte
		chains    int
		lost      uint64
		wantError bool
	}{
		{name: "empty", size: 64},
		{name: "one", size: 64, recs: [][]byte{sample}, chains: 1},
		{name: "wrapped", size: 128, tail: 100, recs: [][]byte{sample, sample}, chains: 2},
		{name: "laps on", size: 256, tail: 256*5 + 40, recs: [][]byte{sample, lost, mmap, sample}, chains: 2, lost: 42},
		{name: "short header", size: 64, recs: [][]byte{sample[:4]}, wantError: true},
		{name: "record past head", size: 128, recs: [][]byte{sample[:40]}, wantError: true},
		{name: "chain past record", size: 128, recs: [][]byte{record(recordSample, 1, 5, 2)}, wantError: true},
		{name: "short lost", size: 64, recs: [][]byte{record(recordLost, 1)}, wantError: true},
		{name: "zero size", size: 64, recs: [][]byte{make([]byte, 8)}, wantError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, head := ring(tc.size, tc.tail, tc.recs...)
			chains, l, err := ParseSamples(data, tc.tail, head)
			if tc.wantError {
				if err == nil {
					t.Fatalf("no error; %d chains", len(chains))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(chains) != tc.chains || l != tc.lost {
				t.Fatalf("%d chains, %d lost; want %d, %d", len(chains), l, tc.chains, tc.lost)
			}
			for _, c := range chains {
				if !slices.Equal(c, want) {
					t.Errorf("chain %#x, want %#x (the context marker dropped)", c, want)
				}
			}
		})
	}
	if _, _, err := ParseSamples(make([]byte, 64), 10, 5); err == nil {
		t.Error("head before tail: no error")
	}
	if _, _, err := ParseSamples(make([]byte, 64), 0, 65); err == nil {
		t.Error("more than the ring: no error")
	}
}

// FuzzParseSamples: any ring, any positions, an error or records that
// fit, never a panic. The seed corpus (testdata/fuzz) holds a wrapped
// ring of samples and a lost record.
func FuzzParseSamples(f *testing.F) {
	sample := record(recordSample, 0xffffffff81000010, 2, kernelContext, 0xffffffff81000010)
	data, head := ring(64, 40, sample, record(recordLost, 1, 3))
	f.Add(data, uint64(40), head)
	f.Fuzz(func(t *testing.T, data []byte, tail, head uint64) {
		if len(data) == 0 {
			return
		}
		chains, _, err := ParseSamples(data, tail, head)
		if err != nil {
			return
		}
		n := 0
		for _, c := range chains {
			n += 24 + 8*len(c)
		}
		if uint64(n) > head-tail {
			t.Fatalf("%d chains need %d bytes, the ring held %d", len(chains), n, head-tail)
		}
	})
}
