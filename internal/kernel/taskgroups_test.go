package kernel

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// wordMem is kernel memory as 8-byte words at their addresses.
type wordMem map[uint64]uint64

func (m wordMem) ReadAt(p []byte, vaddr uint64) error {
	for i := 0; i < len(p); i += 8 {
		v, ok := m[vaddr+uint64(i)]
		if !ok {
			return fmt.Errorf("nothing at %#x", vaddr+uint64(i))
		}
		binary.LittleEndian.PutUint64(p[i:], v)
	}
	return nil
}

// tgTree lays out root_task_group with the given children (parent index
// per group, -1 the root) the way the kernel links them.
func tgTree(l *Layout, parents []int) (wordMem, uint64, []uint64) {
	const root = 0xffffffff80001000
	m := wordMem{}
	addrs := make([]uint64, len(parents))
	for i := range parents {
		addrs[i] = 0xffff888000100000 + uint64(i)*0x1000
	}
	all := append([]uint64{root}, addrs...)
	kids := map[uint64][]uint64{}
	for i, p := range parents {
		pa := uint64(root)
		if p >= 0 {
			pa = addrs[p]
		}
		kids[pa] = append(kids[pa], addrs[i])
		m[addrs[i]+uint64(l.TGParent)] = pa
	}
	for n, tg := range all {
		head := tg + uint64(l.TGChildren)
		prev := head
		for _, k := range kids[tg] {
			m[prev] = k + uint64(l.TGSiblings)
			prev = k + uint64(l.TGSiblings)
		}
		m[prev] = head
		// css.cgroup -> cgroup; cgroup.kn -> kn; kn.id = 100+n.
		cg, kn := tg+0x800, tg+0x900
		m[tg+uint64(l.TGCss+l.CssCgroup)] = cg
		m[cg+uint64(l.CgroupKn)] = kn
		m[kn+uint64(l.KernfsID)] = uint64(100 + n)
	}
	return m, root, addrs
}

func TestTaskGroups(t *testing.T) {
	l := &Layout{TGLoadAvg: 0x100, TGChildren: 0x1c0, TGSiblings: 0x1b0, TGParent: 0x1a0, TGCss: 0, CssCgroup: 0x8, CgroupKn: 0x100, KernfsID: 0x60}
	syms, err := ReadKallsyms(strings.NewReader("ffffffff80001000 D root_task_group\n"))
	if err != nil {
		t.Fatal(err)
	}
	// system.slice (0) with a scope (1) and a second slice (2) with its own (3).
	mem, _, addrs := tgTree(l, []int{-1, 0, -1, 2})
	for _, c := range []struct {
		levels int
		want   string
	}{
		{1, "1:101 1:103"},
		{2, "1:101 2:102 1:103 2:104"},
		{3, "1:101 2:102 1:103 2:104"},
	} {
		tgs, err := TaskGroups(Input{Layout: l, Syms: syms, Mem: mem}, c.levels)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, g := range tgs {
			got = append(got, fmt.Sprintf("%d:%d", g.Depth, g.CgroupID))
			if g.LoadAvg != g.Addr+0x100 {
				t.Errorf("%#x: load_avg at %#x", g.Addr, g.LoadAvg)
			}
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("levels=%d: %s, want %s", c.levels, s, c.want)
		}
	}
	// A child whose parent pointer disagrees with the list it is on, a
	// cgroup that cannot be read, and a layout without the cgroup's way.
	bad := func(f func(wordMem)) error {
		m, _, _ := tgTree(l, []int{-1, 0, -1, 2})
		f(m)
		_, err := TaskGroups(Input{Layout: l, Syms: syms, Mem: m}, 2)
		return err
	}
	if err := bad(func(m wordMem) { m[addrs[1]+uint64(l.TGParent)] = addrs[2] }); err == nil || !strings.Contains(err.Error(), "read wrong") {
		t.Errorf("wrong parent: %v", err)
	}
	if err := bad(func(m wordMem) { delete(m, addrs[3]+0x900+uint64(l.KernfsID)) }); err == nil || !strings.Contains(err.Error(), "its cgroup") {
		t.Errorf("unreadable cgroup: %v", err)
	}
	// An autogroup: css.cgroup NULL, id 0, not descended into.
	auto, _, _ := tgTree(l, []int{-1, 0, -1, 2})
	auto[addrs[2]+uint64(l.TGCss+l.CssCgroup)] = 0
	tgs, err := TaskGroups(Input{Layout: l, Syms: syms, Mem: auto}, 2)
	if err != nil || len(tgs) != 3 || tgs[2].CgroupID != 0 || tgs[2].Addr != addrs[2] {
		t.Errorf("an autogroup among the cgroups' groups: %+v, %v", tgs, err)
	}
	noCss := *l
	noCss.KernfsID = -1
	if _, err := TaskGroups(Input{Layout: &noCss, Syms: syms, Mem: mem}, 2); err == nil || !strings.Contains(err.Error(), "kernfs_node.id") {
		t.Errorf("no kernfs_node.id: %v", err)
	}
}
