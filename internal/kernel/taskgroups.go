package kernel

import (
	"errors"
	"fmt"
)

// A TaskGroup is one task group found in the kernel's memory by walking
// root_task_group's children: where its load_avg lies, how deep it is,
// and which cgroup it belongs to.
type TaskGroup struct {
	Addr     uint64 // the struct task_group
	LoadAvg  uint64 // &tg->load_avg: the word a write watchpoint counts
	Depth    int    // 1: a child of root_task_group
	CgroupID uint64 // tg->css.cgroup->kn->id: its cgroup directory's inode number; 0 for an autogroup
}

// maxTaskGroups bounds the walk: a list that does not come back to its
// head within it is memory read wrong, not a machine's cgroups.
const maxTaskGroups = 1 << 14

// TaskGroups walks the task-group tree below root_task_group (children
// and siblings are list_heads: a child's siblings node is on its parent's
// children list), down to depth levels, reading each group's cgroup id
// through css.cgroup->kn->id. It needs the optional BTF members and
// kallsyms' root_task_group; a kernel without them is an error naming
// what is missing.
func TaskGroups(in Input, levels int) ([]TaskGroup, error) {
	l := in.Layout
	if l.TGCss < 0 || l.CssCgroup < 0 || l.CgroupKn < 0 || l.KernfsID < 0 {
		return nil, errors.New("BTF lacks task_group.css, cgroup_subsys_state.cgroup, cgroup.kn or kernfs_node.id: cannot tell a task group's cgroup")
	}
	root, ok := in.Syms.Lookup("root_task_group")
	if !ok {
		return nil, errors.New("kallsyms has no root_task_group (no CONFIG_KALLSYMS_ALL?)")
	}
	word := func(addr uint64) (uint64, error) { return ReadWord(in.Mem, addr) }
	var out []TaskGroup
	var walk func(parent uint64, depth int) error
	walk = func(parent uint64, depth int) error {
		head := parent + uint64(l.TGChildren)
		next, err := word(head)
		for n := 0; err == nil && next != head; n++ {
			if n >= maxTaskGroups || len(out) >= maxTaskGroups {
				return fmt.Errorf("task group %#x: its children list does not close after %d entries", parent, n)
			}
			tg := next - uint64(l.TGSiblings)
			if p, perr := word(tg + uint64(l.TGParent)); perr != nil || p != parent {
				return fmt.Errorf("task group %#x: parent %#x, want %#x (a list read wrong)", tg, p, parent)
			}
			cg, cerr := word(tg + uint64(l.TGCss) + uint64(l.CssCgroup))
			var kn, id uint64
			// An autogroup (CONFIG_SCHED_AUTOGROUP: a session's group,
			// made by setsid) is a child of root_task_group with no
			// cgroup: css.cgroup is NULL. It has id 0 and no children.
			if cerr == nil && cg != 0 {
				kn, cerr = word(cg + uint64(l.CgroupKn))
				if cerr == nil {
					id, cerr = word(kn + uint64(l.KernfsID))
				}
			}
			if cerr != nil {
				return fmt.Errorf("task group %#x: its cgroup: %w", tg, cerr)
			}
			out = append(out, TaskGroup{Addr: tg, LoadAvg: tg + uint64(l.TGLoadAvg), Depth: depth, CgroupID: id})
			if depth < levels && cg != 0 {
				if err := walk(tg, depth+1); err != nil {
					return err
				}
			}
			next, err = word(next)
		}
		return err
	}
	if err := walk(root.Addr, 1); err != nil {
		return nil, fmt.Errorf("walking root_task_group's children: %w", err)
	}
	return out, nil
}
