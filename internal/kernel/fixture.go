package kernel

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// A fixture is a kernel cut down to what the finder reads, laid out as a
// root that Open reads as it reads /: proc/kallsyms (the symbols the
// finder looks up, plus each host's successor, which bounds its size as
// in /proc/kallsyms), proc/kcore (an ELF core, as /proc/kcore is, holding
// only the hosts' bytes) and sys/kernel/btf/vmlinux (raw BTF holding only
// the members Layout reads, at their real offsets). The tests' fixtures
// are cut from Debian's images (fixture_test.go's TestMakeFixture) or
// from a running kernel (contend kernel sites -save DIR).

// fixtureSymbols are the data and call-target symbols the finder looks up
// besides its hosts, and the denominators' functions.
var fixtureSymbols = slices.Concat([]string{
	"sched_balance_running", "balancing", "nohz", "root_task_group",
	"_raw_spin_trylock", "_raw_spin_unlock", "enqueue_task_fair", "select_task_rq_fair",
	"__per_cpu_start", // at 0 in kallsyms: an immediate 0 must not print as it
}, IdleSymbols, slices.Sorted(maps.Keys(ulaMarkers)))

// allHosts are the functions the finder disassembles.
func allHosts() []string {
	return slices.Concat(loadAvgHosts, balanceHosts, nohzHosts, cpupriHosts, idleHosts)
}

// SaveFixture writes the kernel under root (as Open reads it) to dir as
// a fixture: what the finder reads of it, and nothing else.
func SaveFixture(root, dir string) error {
	src, err := Open(root)
	if err != nil {
		return err
	}
	defer src.Close()
	raw, err := os.ReadFile(filepath.Join(root, btfPath))
	if err != nil {
		return err
	}
	return WriteFixture(dir, src.Syms, src.Mem, raw)
}

// WriteFixture writes a fixture of the kernel whose symbols, memory
// and raw BTF these are to dir.
func WriteFixture(dir string, syms *Symbols, mem Memory, rawBTF []byte) error {
	var lines []Symbol
	type seg struct {
		addr uint64
		data []byte
	}
	var segs []seg
	for _, h := range allHosts() {
		sym, size, ok := syms.Func(h)
		if !ok {
			continue
		}
		code := make([]byte, size)
		if err := mem.ReadAt(code, sym.Addr); err != nil {
			return fmt.Errorf("reading %s: %w", sym.Name, err)
		}
		segs = append(segs, seg{sym.Addr, code})
		lines = append(lines, sym)
		if next, ok := syms.At(sym.Addr + size); ok && next.Addr == sym.Addr+size {
			lines = append(lines, next)
		}
	}
	for _, n := range fixtureSymbols {
		if sym, ok := syms.Lookup(n); ok {
			lines = append(lines, sym)
		}
	}
	var ks strings.Builder
	seen := map[string]bool{}
	for _, s := range lines {
		if !seen[s.Name] {
			seen[s.Name] = true
			fmt.Fprintf(&ks, "%016x %c %s\n", s.Addr, s.Type, s.Name)
		}
	}
	if err := writeFile(filepath.Join(dir, kallsymsPath), []byte(ks.String())); err != nil {
		return err
	}

	var core bytes.Buffer
	const ehsize, phsize = 64, 56
	off := uint64(ehsize + phsize*len(segs))
	hdr := elf.Header64{
		Type: uint16(elf.ET_CORE), Machine: uint16(elf.EM_X86_64), Version: uint32(elf.EV_CURRENT),
		Phoff: ehsize, Ehsize: ehsize, Phentsize: phsize, Phnum: uint16(len(segs)),
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS], hdr.Ident[elf.EI_DATA], hdr.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	binary.Write(&core, binary.LittleEndian, hdr)
	for _, s := range segs {
		n := uint64(len(s.data))
		binary.Write(&core, binary.LittleEndian, elf.Prog64{
			Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X), Off: off,
			Vaddr: s.addr, Filesz: n, Memsz: n, Align: 1,
		})
		off += n
	}
	for _, s := range segs {
		core.Write(s.data)
	}
	if err := writeFile(filepath.Join(dir, kcorePath), core.Bytes()); err != nil {
		return err
	}

	return WriteFixtureBTF(dir, rawBTF)
}

// WriteFixtureBTF rewrites only a fixture's BTF from a kernel's raw BTF:
// for a member the layout newly reads, where the text and symbols stay.
func WriteFixtureBTF(dir string, rawBTF []byte) error {
	small, err := minimalBTF(rawBTF)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, btfPath), small)
}

// writeFile writes a fixture's file, making its directory.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// minimalBTF keeps, of a kernel's BTF, the structs Layout reads with only
// the members it reads, each at its real offset and typed as an opaque
// u64 (the finder reads offsets, never member types), and cpumask_var_t,
// whose shape says whether cpumasks are off-stack.
func minimalBTF(raw []byte) ([]byte, error) {
	spec, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	u64 := &btf.Int{Name: "u64", Size: 8}
	members := map[string][]string{"": slices.Clone(nohzMembers), "rq": append(slices.Clone(rqMembers), tickRQMembers...)}
	for _, m := range layoutMembers {
		if !slices.Contains(members[m.strct], m.member) {
			members[m.strct] = append(members[m.strct], m.member)
		}
	}
	var types []btf.Type
	names := slices.Sorted(maps.Keys(members)) // the same bytes every run
	for _, name := range names {
		ms := members[name]
		var s *btf.Struct
		if name == "" {
			s, err = findNohz(spec)
		} else {
			err = spec.TypeByName(name, &s)
		}
		if err != nil {
			continue // an optional struct this kernel lacks
		}
		small := &btf.Struct{Name: name, Size: s.Size}
		for _, m := range ms {
			if off, ok := memberOffset(s, m); ok {
				small.Members = append(small.Members, btf.Member{Name: m, Type: u64, Offset: btf.Bits(off * 8)})
			}
		}
		types = append(types, small)
	}
	var cv *btf.Typedef
	if err := spec.TypeByName("cpumask_var_t", &cv); err != nil {
		return nil, err
	}
	var shape btf.Type = &btf.Pointer{Target: &btf.Void{}}
	if a, ok := btf.UnderlyingType(cv).(*btf.Array); ok {
		shape = &btf.Array{Index: u64, Type: u64, Nelems: a.Nelems}
	}
	types = append(types, &btf.Typedef{Name: "cpumask_var_t", Type: shape})
	b, err := btf.NewBuilder(types, nil)
	if err != nil {
		return nil, err
	}
	return b.Marshal(nil, nil)
}
