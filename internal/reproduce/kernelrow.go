package reproduce

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/contend/contend/internal/reproduce/rule"
	"github.com/contend/contend/internal/results"
)

// Finding 1 on real kernels: contend kernel count's results (KernelCount
// lines, each file's "kernel:" configuration naming the kernel it
// counted) from a kernel without the 1 ms limit on update_tg_load_avg()
// (6.1) and one with it (6.12, "kernel-rate-limit: yes"), the same
// workload on both. The counts are the kernels' own writes, exact, so the
// row needs no statistics; what it needs is a margin, because a guest's
// workload is not the seed's: KernelCutYes.

// KernelCutYes is the least cut in tg->load_avg writes per enqueue the
// real-kernel row calls "yes": a third fewer writes (1.5×). Less is
// "partly"; none is "no". One count a kernel: writes per enqueue also
// follow the mix of wakeups and migrations each run got, which two runs
// do not share exactly, so the row asks for the margin the oracle's model
// table allows (oracle.ModelTolerance), not for any cut at all. Not the seed's 400×: a 4-vcpu guest's cfs_rqs see a call every
// few milliseconds, where the limit rarely binds (the premise).
const KernelCutYes = 1.5

// A KernelRow is finding 1's row for one workload counted on both kernels:
// writes per workload wakeup where both files have it, else per
// enqueue_task_fair.
type KernelRow struct {
	Workload                  string
	Per                       string  // the writes' denominator: workload wakeup or enqueue_task_fair
	Before, After             string  // the kernels
	BeforeWrites, AfterWrites float64 // tg->load_avg writes per Per
	Verdict, Why              string
}

// KernelRows pairs the KernelCount results of set by workload, the kernel
// without the rate limit as before and the one with it as after; counted
// says whether set held any KernelCount result. A workload counted on
// only one side gives no row.
func KernelRows(set *results.Set) (rows []KernelRow, counted bool) {
	type side struct {
		kernel, unit string
		v            float64
		ok           bool
	}
	by := map[string]*[2]side{}
	var order []string
	for _, r := range set.Results {
		name := string(r.Name)
		wl, ok := strings.CutPrefix(name, "KernelCount/")
		if !ok {
			continue
		}
		counted = true
		// Per workload wakeup where the file has it: enqueue_task_fair
		// also counts the machine's other tasks, which write nothing.
		var v float64
		found, unit := false, ""
		for _, x := range r.Values {
			if x.Unit == "tg-writes/wakeup" || (x.Unit == "tg-writes/enqueue" && unit != "tg-writes/wakeup") {
				v, found, unit = x.Value, true, x.Unit
			}
		}
		if !found {
			continue
		}
		i := 0
		if r.GetConfig("kernel-rate-limit") == "yes" {
			i = 1
		}
		if by[wl] == nil {
			by[wl] = &[2]side{}
			order = append(order, wl)
		}
		// Of several kernels on one side (scripts/vmlab.sh history's
		// counts), the bracket's own: the newest without the limit, the
		// oldest with it.
		k := r.GetConfig("kernel")
		if cur := by[wl][i]; cur.ok && (i == 0 && olderRelease(k, cur.kernel) || i == 1 && olderRelease(cur.kernel, k)) {
			continue
		}
		by[wl][i] = side{k, unit, v, true}
	}
	for _, wl := range order {
		s := by[wl]
		if !s[0].ok || !s[1].ok || s[0].unit != s[1].unit {
			continue
		}
		per := "workload wakeup"
		if s[0].unit == "tg-writes/enqueue" {
			per = "enqueue_task_fair"
		}
		r := KernelRow{Workload: wl, Per: per, Before: s[0].kernel, After: s[1].kernel, BeforeWrites: s[0].v, AfterWrites: s[1].v}
		cut := s[0].v / max(s[1].v, 1e-9)
		switch {
		case s[1].v <= 0 && s[0].v <= 0:
			r.Verdict, r.Why = "no", "neither kernel wrote tg->load_avg under this workload"
		case cut >= KernelCutYes*(1-1e-9): // 0.6/0.4 is 1.5 less a rounding
			r.Verdict, r.Why = "yes", fmt.Sprintf("writes per event %s with the limit, at least the %s cut asked", rule.Change(s[0].v, s[1].v), rule.Trim(KernelCutYes)+"×")
		case cut > 1:
			r.Verdict, r.Why = "partly", fmt.Sprintf("writes per event %s with the limit, short of the %s cut asked", rule.Change(s[0].v, s[1].v), rule.Trim(KernelCutYes)+"×")
		default:
			r.Verdict, r.Why = "no", fmt.Sprintf("writes per event %s with the limit", rule.Change(s[0].v, s[1].v))
		}
		rows = append(rows, r)
	}
	return rows, counted
}

// WriteKernelRows writes finding 1's real-kernel rows as reproduce's text
// table writes a finding (-v), wrapped to Width, or nothing when there are
// none.
func WriteKernelRows(w io.Writer, rows []KernelRow) {
	field := func(label, text string) { writeField(w, label, text) }
	for _, r := range rows {
		field("1. ", "(real kernels, contend kernel count) Rate-limiting update_tg_load_avg() to once per ms: "+r.Workload)
		field("   before:    ", fmt.Sprintf("%s (no rate limit): %.3f tg->load_avg writes per %s", r.Before, r.BeforeWrites, r.Per))
		field("   after:     ", fmt.Sprintf("%s (1 ms rate limit): %.3f", r.After, r.AfterWrites))
		field("   ratio:     ", rule.Change(r.BeforeWrites, r.AfterWrites))
		field("   holds:     ", r.Verdict+" — "+r.Why)
		fmt.Fprintln(w)
	}
}

// judgeKernelCounts is JudgeFile's part for contend kernel count's
// results files: the real-kernel rows of findings 1, 5 and 8 (FlagRows)
// and 14 (NohzRows). done says the file held
// kernel counts and nothing reproduce runs, so there is nothing else to
// judge; a file of kernel counts with no workload counted on both sides
// of the rate limit is an error saying so.
func judgeKernelCounts(stdout io.Writer, set *results.Set) (done bool, err error) {
	rows, counted := KernelRows(set)
	if !counted {
		return false, nil
	}
	_, envErr := EnvFromResults(set)
	flags := FlagRows(set)
	WriteFlagRows(stdout, flags)
	nohz := NohzRows(set)
	WriteNohzRows(stdout, nohz)
	if len(rows) == 0 && len(flags)+len(nohz) > 0 {
		return envErr != nil, nil
	}
	if len(rows) == 0 {
		if envErr != nil {
			return true, errors.New("reproduce: -from: the kernel counts are of one side only: finding 1's real-kernel row needs the same workload counted on a kernel without the 1 ms rate limit (6.1) and one with it (6.12)")
		}
		return false, nil
	}
	WriteKernelRows(stdout, rows)
	return envErr != nil, nil
}
