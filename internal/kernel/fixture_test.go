package kernel

import (
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"testing"
)

// TestMakeFixture cuts a fixture (fixture.go) from a Debian image:
//
//	apt-get download linux-image-6.1.0-57-amd64 linux-image-6.1.0-57-amd64-dbg
//	dpkg-deb -x linux-image-6.1.0-57-amd64_*.deb root
//	# vmlinux: the ELF inside root/boot/vmlinuz-* (xz; zstd on 6.12), as
//	# scripts/extract-vmlinux finds it, or the -dbg package's
//	# usr/lib/debug/boot/vmlinux-*; System.map: the -dbg package's
//	# usr/lib/debug/boot/System.map-* (the image's own is a placeholder)
//	go test ./internal/kernel -run TestMakeFixture -mkfixture testdata/debian-6.1 \
//		-vmlinux vmlinux -sysmap System.map
//
// Without -sysmap it rewrites only the fixture's BTF (WriteFixtureBTF).
//
// The text is the image's, before boot-time patching (alternatives, static
// keys, the ftrace nops): the live kernel's differs only there, and the
// finder matches none of those. A running kernel's fixture (contend kernel
// sites -save DIR) holds its patched text.
var (
	mkFixture = flag.String("mkfixture", "", "TestMakeFixture: write a fixture to this `dir`")
	vmlinux   = flag.String("vmlinux", "", "TestMakeFixture: the uncompressed vmlinux ELF")
	sysmap    = flag.String("sysmap", "", "TestMakeFixture: the kernel's System.map")
)

func TestMakeFixture(t *testing.T) {
	if *mkFixture == "" {
		t.Skip("no -mkfixture: this test writes fixtures from a kernel image")
	}
	f, err := elf.Open(*vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := f.Section(".BTF").Data()
	if err != nil {
		t.Fatal(err)
	}
	if *sysmap == "" { // -vmlinux alone: the BTF only
		if err := WriteFixtureBTF(*mkFixture, raw); err != nil {
			t.Fatal(err)
		}
		return
	}
	smf, err := os.Open(*sysmap)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := ReadKallsyms(smf)
	if err != nil {
		t.Fatal(err)
	}
	smf.Close()
	if err := WriteFixture(*mkFixture, syms, vmlinuxMem{f}, raw); err != nil {
		t.Fatal(err)
	}
}

// vmlinuxMem reads an image's bytes at virtual addresses.
type vmlinuxMem struct{ f *elf.File }

func (m vmlinuxMem) ReadAt(p []byte, addr uint64) error {
	for _, s := range m.f.Sections {
		if s.Type == elf.SHT_PROGBITS && addr >= s.Addr && addr+uint64(len(p)) <= s.Addr+s.Size {
			_, err := s.ReadAt(p, int64(addr-s.Addr))
			return err
		}
	}
	return fmt.Errorf("vmlinux has no section holding %#x", addr)
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := writeFile(path, b); err != nil {
		t.Fatal(err)
	}
}
