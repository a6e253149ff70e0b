package kernel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// rqMembers are the struct rq fields whose cache lines 89951fc1f820
// ("sched: Reorder some fields in struct rq", v7.0) rearranged, from the
// commit's three groups: the lock; the fields update_sg_lb_stats() and
// pick_next_task_fair() read without it; the clocks.
var rqMembers = []string{
	"__lock", "nr_switches",
	"nr_running", "nr_numa_running", "nr_preferred_running", "ttwu_pending", "cpu_capacity", "curr", "idle",
	"clock_task", "clock_pelt", "clock", "lost_idle_time", "clock_update_flags", "clock_pelt_idle", "clock_idle",
}

// An RQGroup is one of struct rq's groups of hot fields and the lines
// they lie on in this kernel, from BTF.
type RQGroup struct {
	Name   string    `json:"name"`
	What   string    `json:"what"`
	Form   string    `json:"form"`
	Fields []RQField `json:"fields"`
	Lock   *RQField  `json:"lock,omitempty"` // __lock, where BTF has it
}

// RQField is one member's offset in struct rq and its 64-byte line.
type RQField struct {
	Name string `json:"name"`
	Off  int64  `json:"off"`
	Line int64  `json:"line"`
}

// tickRQMembers are the struct rq fields the tick trace reads
// (ticktrace.go) beyond rqMembers.
var tickRQMembers = []string{"next_balance", "idle_balance", "clock_pelt", "lost_idle_time", "rd", "avg_idle", "sd", "nohz_flags"}

// rqOffsets reads rqMembers' and tickRQMembers' offsets from BTF's struct rq; a member the
// kernel lacks (nr_numa_running without NUMA balancing) is left out.
func rqOffsets(spec *btf.Spec) map[string]int64 {
	var rq *btf.Struct
	if err := spec.TypeByName("rq", &rq); err != nil {
		return nil
	}
	offs := map[string]int64{}
	for _, m := range append(slices.Clone(rqMembers), tickRQMembers...) {
		if off, ok := memberOffset(rq, m); ok {
			offs[m] = off
		}
	}
	return offs
}

// rqGroups lays out the groups of struct rq's hot fields: how many lines
// each spans, and which of them share the lock's line, which its atomics
// take away from every cpu reading the rest (89951fc1f820's reason).
func rqGroups(offs map[string]int64) []RQGroup {
	lock, haveLock := offs["__lock"]
	groups := []RQGroup{
		{Name: "rq-pick", What: "struct rq's fields update_sg_lb_stats() and pick_next_task_fair() read without the lock (one line since 89951fc1f820)"},
		{Name: "rq-clock", What: "struct rq's clocks, updated together (clock and clock_update_flags joined clock_task's line in 89951fc1f820)"},
	}
	members := map[string][]string{
		"rq-pick":  {"nr_running", "nr_numa_running", "nr_preferred_running", "ttwu_pending", "cpu_capacity", "curr", "idle"},
		"rq-clock": {"clock_task", "clock_pelt", "clock", "lost_idle_time", "clock_update_flags", "clock_pelt_idle", "clock_idle"},
	}
	var out []RQGroup
	for _, g := range groups {
		lines := map[int64]bool{}
		var onLock []string
		for _, m := range members[g.Name] {
			off, ok := offs[m]
			if !ok {
				continue
			}
			g.Fields = append(g.Fields, RQField{Name: m, Off: off, Line: off / 64})
			lines[off/64] = true
			if haveLock && off/64 == lock/64 {
				onLock = append(onLock, m)
			}
		}
		if len(g.Fields) == 0 {
			continue
		}
		if haveLock {
			g.Lock = &RQField{Name: "__lock", Off: lock, Line: lock / 64}
		}
		// Qualitative, so that kernels compare by what 89951fc1f820
		// changed and not by how far unrelated members moved them (the
		// lines: line has the numbers).
		g.Form = "on one line"
		if len(lines) > 1 {
			g.Form = "spread over several lines"
		}
		switch {
		case !haveLock:
		case len(onLock) == 0:
			g.Form += ", apart from __lock"
		default:
			g.Form += fmt.Sprintf(", %d of them on __lock's line (%s)", len(onLock), strings.Join(onLock, ", "))
		}
		out = append(out, g)
	}
	return out
}

// lines names a group's fields as offsets and lines, the lock's last.
func (g RQGroup) lines() string {
	var parts []string
	for _, f := range append(slices.Clone(g.Fields), ptrs(g.Lock)...) {
		parts = append(parts, fmt.Sprintf("%s +%d (line %d)", f.Name, f.Off, f.Line))
	}
	return strings.Join(parts, ", ")
}

func ptrs(f *RQField) []RQField {
	if f == nil {
		return nil
	}
	return []RQField{*f}
}
