package reproduce

import (
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/internal/reproduce/rule"
	"github.com/contend/contend/internal/results"
)

// Finding 14 on real kernels: the locked writes to nohz's line per cpu
// entering nohz.idle_cpus_mask (contend kernel count's
// nohz-locked/mask-entry: the idle mask's bts and btr, and nohz.nr_cpus's
// inc and dec where the kernel has them, over the bts: the tick stops
// that put a cpu in the mask) on a kernel that keeps the counter and one that takes
// the mask's weight instead, Shrikanth Hegde's 5d86d542f68f ("sched/fair:
// Remove nohz.nr_cpus and use weight of cpumask instead"). The side is
// the kernel's own text, never its release: kernel count's
// "kernel-nohz-counter" says whether kernel sites found nohz.nr_cpus's
// lock inc/dec.

// NohzCutYes is the least cut in locked writes per tick stop the row
// calls "yes": the commit drops one of the two locked writes at each
// entry into the mask and each exit, halving them (4 to 2); the
// row asks for the margin the oracle's tables allow (1.5×).
const NohzCutYes = 1.5

// A NohzRow is finding 14's row for one workload counted on a kernel of
// each side.
type NohzRow struct {
	Workload                  string
	Before, After             string  // the kernels
	BeforeWrites, AfterWrites float64 // locked writes to nohz's line per mask entry
	Verdict, Why              string
}

// NohzRows pairs set's KernelCount results that have
// nohz-locked/mask-entry by workload: the newest kernel with the counter
// as before, the oldest with the mask's weight as after.
func NohzRows(set *results.Set) []NohzRow {
	var rows []NohzRow
	for _, p := range bracketPairs(set, "nohz-locked/mask-entry", nohzSide) {
		r := NohzRow{Workload: p.workload, Before: p.before.kernel, After: p.after.kernel, BeforeWrites: p.before.v, AfterWrites: p.after.v}
		r.Verdict, r.Why = cutVerdict(r.BeforeWrites, r.AfterWrites, NohzCutYes, "locked writes per mask entry", "with the mask's weight")
		rows = append(rows, r)
	}
	return rows
}

// nohzSide is a count's side of 5d86d542f68f by the sites its kernel
// sites found.
func nohzSide(r *benchfmt.Result) int {
	switch r.GetConfig("kernel-nohz-counter") {
	case "yes":
		return -1
	case "no":
		return 1
	}
	return 0
}

// WriteNohzRows writes finding 14's real-kernel rows as reproduce's -v
// text writes a finding, wrapped to Width.
func WriteNohzRows(w io.Writer, rows []NohzRow) {
	for _, r := range rows {
		writeField(w, "14. ", "(real kernels, contend kernel count) nohz.nr_cpus dropped for the idle mask's weight (5d86d542f68f): "+r.Workload)
		writeField(w, "   before:    ", fmt.Sprintf("%s (nohz.nr_cpus beside the mask): %.3f locked writes to nohz's line per cpu entering the idle mask (a tick stop that puts it there)", r.Before, r.BeforeWrites))
		writeField(w, "   after:     ", fmt.Sprintf("%s (the mask's weight): %.3f", r.After, r.AfterWrites))
		writeField(w, "   ratio:     ", rule.Change(r.BeforeWrites, r.AfterWrites))
		writeField(w, "   holds:     ", r.Verdict+" — "+r.Why)
		fmt.Fprintln(w)
	}
}
