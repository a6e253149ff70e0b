package kernel

import (
	"errors"
	"fmt"
	"io"

	"github.com/cilium/ebpf/btf"
)

// Layout is what the finder needs to know of the kernel's structs, read
// from its BTF: byte offsets of the members whose addresses the sites'
// instructions compute. An offset of -1 means the kernel's struct has no
// such member, which for LastUpdateTGLoadAvg says the kernel predates the
// 1 ms rate limit (v6.7).
type Layout struct {
	TGLoadAvg     int64 // struct task_group, load_avg: the contended word
	TGRunnableAvg int64 // struct task_group, runnable_avg: beside load_avg in 7.3, -1 before
	TGCfsRq       int64 // struct task_group, cfs_rq (per-cpu array of pointers)
	// TGCfsRqForm is what task_group.cfs_rq holds, from its BTF type:
	// "array" (struct cfs_rq **, an array of nr_cpu_ids pointers) or
	// "percpu" (struct cfs_rq __percpu *, 7.x's, per_cpu_ptr() of it);
	// "" where BTF does not say (a fixture's opaque members).
	TGCfsRqForm        string
	TGChildren         int64 // struct task_group, children (list_head)
	TGSiblings         int64 // struct task_group, siblings (list_head)
	TGParent           int64 // struct task_group, parent
	CfsRqTG            int64 // struct cfs_rq, tg
	CfsRqTGLoadContrib int64 // struct cfs_rq, tg_load_avg_contrib
	CfsRqLastUpdateTG  int64 // struct cfs_rq, last_update_tg_load_avg; -1 before v6.7
	CfsRqAvg           int64 // struct cfs_rq, avg (struct sched_avg): the tick trace's leaf age
	SALastUpdateTime   int64 // struct sched_avg, last_update_time
	SAPeriodContrib    int64 // struct sched_avg, period_contrib
	SDShared           int64 // struct sched_domain, shared
	SDSNrBusyCPUs      int64 // struct sched_domain_shared, nr_busy_cpus
	SDSUtilAvg         int64 // struct sched_domain_shared, util_avg: cache-aware scheduling's (7.2), -1 before
	// SDSNrIdleScan is struct sched_domain_shared's nr_idle_scan,
	// SIS_UTIL's scan budget (v6.0, 70fb5ccf2ebb), -1 before.
	SDSNrIdleScan int64
	// TaskPID and TaskRecentUsedCPU are struct task_struct's pid and
	// recent_used_cpu: the wake record's wakee and the cpu
	// select_idle_sibling() tries after prev.
	TaskPID, TaskRecentUsedCPU int64
	// TaskCPU, TaskOnRQ and TaskSE are struct task_struct's cpu (the
	// cpu its rq is: task_cpu(); in its thread_info since bcf9033e5449,
	// v5.16, "sched: move CPU field back into thread_info if
	// THREAD_INFO_IN_TASK=y", folded in here), on_rq and se (its struct
	// sched_entity), SEExecStart the entity's exec_start: what the move
	// record reads of a task set_task_cpu() moves (movetrace.go).
	TaskCPU, TaskOnRQ, TaskSE, SEExecStart int64
	// SECfsRq is struct sched_entity's cfs_rq: the cfs_rq a task's
	// entity is queued on, the group tick record's leaf (GroupTickArgs).
	SECfsRq                       int64
	taskThreadInfo, threadInfoCPU int64
	NohzIdleCPUsMask              int64 // fair.c's anonymous nohz struct, idle_cpus_mask
	NohzNrCPUs                    int64 // fair.c's anonymous nohz struct, nr_cpus; -1 once removed (2026)
	CpupriVecCount                int64 // struct cpupri_vec, count; -1 where absent
	CpupriVecMask                 int64 // struct cpupri_vec, mask; -1 where absent
	CpumaskOffstack               bool  // cpumask_var_t is a pointer (CONFIG_CPUMASK_OFFSTACK)
	// RDOverloaded is struct root_domain's overloaded (v6.9's name,
	// "sched/fair: Rename root_domain::overload to ::overloaded", a
	// bool by 7.3), else its overload before that (an int), set while a
	// cpu of the domain has a second task, which
	// sched_balance_newidle() tests first; RDOverloadedSize its size in
	// bytes, from its BTF type.
	RDOverloaded     int64
	RDOverloadedSize int64
	rdOverload       int64 // the older name's offset, folded into RDOverloaded
	// SDMaxNewidleCost is struct sched_domain's max_newidle_lb_cost,
	// the cost sched_balance_newidle() holds rq->avg_idle against.
	SDMaxNewidleCost    int64
	TaskGroupStructSize int64 // sizeof(struct task_group)
	// The way from a task group to its cgroup's id (TaskGroups): -1
	// where BTF lacks one, which only the watchpoints need.
	TGCss     int64 // struct task_group, css (struct cgroup_subsys_state)
	CssCgroup int64 // struct cgroup_subsys_state, cgroup
	CgroupKn  int64 // struct cgroup, kn
	KernfsID  int64 // struct kernfs_node, id (u64 since v5.5)
	// RQ holds struct rq's hot fields' offsets (rqMembers), those BTF
	// has: the lines 89951fc1f820 rearranged.
	RQ map[string]int64 `json:"-"`
	// Absent says, per "struct.member" left at -1 ("" the nohz struct;
	// "cpumask_var_t" the typedef), why: the struct or the member is not
	// in this kernel's BTF.
	Absent map[string]string `json:"-"`
}

// btfMember names one member the layout needs: the struct's name ("" for
// the anonymous nohz struct, found by its members). Every one may be
// absent: a kernel without it leaves -1, and the sites that need it are
// reported as not in this kernel (Find), so a newer kernel that dropped
// or renamed one member still shows every other site.
type btfMember struct {
	strct, member string
	dst           func(*Layout) *int64
}

var layoutMembers = []btfMember{
	{"task_group", "load_avg", func(l *Layout) *int64 { return &l.TGLoadAvg }},
	{"task_group", "runnable_avg", func(l *Layout) *int64 { return &l.TGRunnableAvg }},
	{"task_group", "cfs_rq", func(l *Layout) *int64 { return &l.TGCfsRq }},
	{"task_group", "children", func(l *Layout) *int64 { return &l.TGChildren }},
	{"task_group", "siblings", func(l *Layout) *int64 { return &l.TGSiblings }},
	{"task_group", "parent", func(l *Layout) *int64 { return &l.TGParent }},
	{"cfs_rq", "tg", func(l *Layout) *int64 { return &l.CfsRqTG }},
	{"cfs_rq", "tg_load_avg_contrib", func(l *Layout) *int64 { return &l.CfsRqTGLoadContrib }},
	{"cfs_rq", "last_update_tg_load_avg", func(l *Layout) *int64 { return &l.CfsRqLastUpdateTG }},
	{"cfs_rq", "avg", func(l *Layout) *int64 { return &l.CfsRqAvg }},
	{"sched_avg", "last_update_time", func(l *Layout) *int64 { return &l.SALastUpdateTime }},
	{"sched_avg", "period_contrib", func(l *Layout) *int64 { return &l.SAPeriodContrib }},
	{"sched_domain", "shared", func(l *Layout) *int64 { return &l.SDShared }},
	{"sched_domain_shared", "nr_busy_cpus", func(l *Layout) *int64 { return &l.SDSNrBusyCPUs }},
	{"sched_domain_shared", "util_avg", func(l *Layout) *int64 { return &l.SDSUtilAvg }},
	{"sched_domain_shared", "nr_idle_scan", func(l *Layout) *int64 { return &l.SDSNrIdleScan }},
	{"task_struct", "pid", func(l *Layout) *int64 { return &l.TaskPID }},
	{"task_struct", "recent_used_cpu", func(l *Layout) *int64 { return &l.TaskRecentUsedCPU }},
	{"task_struct", "cpu", func(l *Layout) *int64 { return &l.TaskCPU }},
	{"task_struct", "thread_info", func(l *Layout) *int64 { return &l.taskThreadInfo }},
	{"thread_info", "cpu", func(l *Layout) *int64 { return &l.threadInfoCPU }},
	{"task_struct", "on_rq", func(l *Layout) *int64 { return &l.TaskOnRQ }},
	{"task_struct", "se", func(l *Layout) *int64 { return &l.TaskSE }},
	{"sched_entity", "exec_start", func(l *Layout) *int64 { return &l.SEExecStart }},
	{"sched_entity", "cfs_rq", func(l *Layout) *int64 { return &l.SECfsRq }},
	{"", "idle_cpus_mask", func(l *Layout) *int64 { return &l.NohzIdleCPUsMask }},
	{"", "nr_cpus", func(l *Layout) *int64 { return &l.NohzNrCPUs }},
	{"cpupri_vec", "count", func(l *Layout) *int64 { return &l.CpupriVecCount }},
	{"cpupri_vec", "mask", func(l *Layout) *int64 { return &l.CpupriVecMask }},
	{"task_group", "css", func(l *Layout) *int64 { return &l.TGCss }},
	{"cgroup_subsys_state", "cgroup", func(l *Layout) *int64 { return &l.CssCgroup }},
	{"cgroup", "kn", func(l *Layout) *int64 { return &l.CgroupKn }},
	{"kernfs_node", "id", func(l *Layout) *int64 { return &l.KernfsID }},
	{"root_domain", "overloaded", func(l *Layout) *int64 { return &l.RDOverloaded }},
	{"root_domain", "overload", func(l *Layout) *int64 { return &l.rdOverload }},
	{"sched_domain", "max_newidle_lb_cost", func(l *Layout) *int64 { return &l.SDMaxNewidleCost }},
}

// nohzMembers identify fair.c's "static struct { ... } nohz": no other
// anonymous struct in the kernel has all three. Not has_blocked: v7.x
// renamed it has_blocked_load (Debian 7.3.4's BTF), and nr_cpus went in
// 5d86d542f68f. BTF keeps the anonymous type though vmlinux BTF carries
// no variable for it (pahole encodes only per-cpu variables), so the
// struct is found by its members and the address of nohz comes from
// kallsyms.
var nohzMembers = []string{"idle_cpus_mask", "next_balance", "next_blocked"}

// ErrNoBTF says the kernel exposes no BTF.
var ErrNoBTF = errors.New("no BTF")

// ReadLayout reads the layout from raw BTF, as /sys/kernel/btf/vmlinux
// holds it (a vmlinux's .BTF section is the same bytes).
func ReadLayout(r io.ReaderAt) (*Layout, error) {
	spec, err := btf.LoadSpecFromReader(r)
	if err != nil {
		return nil, fmt.Errorf("reading BTF: %w", err)
	}
	return LayoutOf(spec)
}

// LayoutOf resolves the layout in spec. A struct or member the kernel
// lacks is left at -1 and named in Layout.Absent, never guessed: the
// finder would otherwise match instructions against offsets it made up.
// Only BTF that cannot be read at all is an error.
func LayoutOf(spec *btf.Spec) (*Layout, error) {
	l := &Layout{Absent: map[string]string{}}
	structs := map[string]*btf.Struct{}
	errs := map[string]error{}
	find := func(name string) (*btf.Struct, error) {
		if s, ok := structs[name]; ok || errs[name] != nil {
			return s, errs[name]
		}
		var s *btf.Struct
		var err error
		if name == "" {
			s, err = findNohz(spec)
		} else {
			err = spec.TypeByName(name, &s)
		}
		structs[name], errs[name] = s, err
		return s, err
	}
	for _, m := range layoutMembers {
		dst := m.dst(l)
		*dst = -1
		s, err := find(m.strct)
		if err != nil {
			l.Absent[m.strct+"."+m.member] = fmt.Sprintf("BTF has no %s (%v)", structName(m.strct), err)
			continue
		}
		off, ok := memberOffset(s, m.member)
		if !ok {
			l.Absent[m.strct+"."+m.member] = fmt.Sprintf("BTF: %s has no member %s", structName(m.strct), m.member)
			continue
		}
		*dst = off
	}
	if tg, _ := find("task_group"); tg != nil {
		l.TaskGroupStructSize = int64(tg.Size)
		l.TGCfsRqForm = cfsRqForm(tg)
	}
	if l.TaskCPU < 0 && l.taskThreadInfo >= 0 && l.threadInfoCPU >= 0 {
		l.TaskCPU = l.taskThreadInfo + l.threadInfoCPU
		delete(l.Absent, "task_struct.cpu")
	}
	delete(l.Absent, "task_struct.thread_info")
	delete(l.Absent, "thread_info.cpu")
	member := "overloaded"
	if l.RDOverloaded < 0 && l.rdOverload >= 0 {
		l.RDOverloaded, member = l.rdOverload, "overload"
		delete(l.Absent, "root_domain.overloaded")
	}
	delete(l.Absent, "root_domain.overload")
	if rd, _ := find("root_domain"); rd != nil && l.RDOverloaded >= 0 {
		for _, m := range rd.Members {
			if m.Name == member {
				if n, err := btf.Sizeof(m.Type); err == nil {
					l.RDOverloadedSize = int64(n)
				}
			}
		}
	}
	l.RQ = rqOffsets(spec)
	var cv *btf.Typedef
	if err := spec.TypeByName("cpumask_var_t", &cv); err != nil {
		l.Absent["cpumask_var_t"] = fmt.Sprintf("BTF has no typedef cpumask_var_t (%v)", err)
	} else {
		_, l.CpumaskOffstack = btf.UnderlyingType(cv).(*btf.Pointer)
	}
	return l, nil
}

// Has reports whether every named member ("struct.member", "" for nohz)
// was found, and if not, why the first absent one is.
func (l *Layout) Has(members ...string) (bool, string) {
	for _, m := range members {
		if why, ok := l.Absent[m]; ok {
			return false, why
		}
	}
	return true, ""
}

func structName(s string) string {
	if s == "" {
		return "anonymous struct nohz (members " + fmt.Sprint(nohzMembers) + ")"
	}
	return "struct " + s
}

// findNohz returns the one anonymous struct holding all nohzMembers.
func findNohz(spec *btf.Spec) (*btf.Struct, error) {
	var found *btf.Struct
	for typ, err := range spec.All() {
		if err != nil {
			return nil, err
		}
		s, ok := typ.(*btf.Struct)
		if !ok || s.Name != "" {
			continue
		}
		all := true
		for _, m := range nohzMembers {
			if _, ok := memberOffset(s, m); !ok {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		if found != nil {
			return nil, errors.New("two anonymous structs look like nohz")
		}
		found = s
	}
	if found == nil {
		return nil, btf.ErrNotFound
	}
	return found, nil
}

// memberOffset finds a member by name, descending into anonymous struct
// and union members as C does, and returns its byte offset.
// cfsRqForm says what task_group's cfs_rq member points to: another
// pointer (the array) or the struct itself (a per-cpu pointer; 7.x's
// "struct cfs_rq __percpu *cfs_rq", whose __percpu BTF keeps at most as
// a type tag, which UnderlyingType skips).
func cfsRqForm(tg *btf.Struct) string {
	for _, m := range tg.Members {
		if m.Name != "cfs_rq" {
			continue
		}
		p, ok := btf.UnderlyingType(m.Type).(*btf.Pointer)
		if !ok {
			return ""
		}
		switch btf.UnderlyingType(p.Target).(type) {
		case *btf.Pointer:
			return "array"
		case *btf.Struct:
			return "percpu"
		}
	}
	return ""
}

func memberOffset(s btf.Type, name string) (int64, bool) {
	var members []btf.Member
	switch t := s.(type) {
	case *btf.Struct:
		members = t.Members
	case *btf.Union:
		members = t.Members
	default:
		return 0, false
	}
	for _, m := range members {
		if m.Name == name {
			return int64(m.Offset / 8), true
		}
		if m.Name == "" {
			if off, ok := memberOffset(btf.UnderlyingType(m.Type), name); ok {
				return int64(m.Offset/8) + off, true
			}
		}
	}
	return 0, false
}
