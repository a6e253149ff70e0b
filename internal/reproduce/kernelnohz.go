package reproduce

import (
	"io"

	"golang.org/x/perf/benchfmt"

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

// NohzRows pairs set's KernelCount results that have
// nohz-locked/mask-entry by workload: the newest kernel with the counter
// as before, the oldest with the mask's weight as after.
func NohzRows(set *results.Set) []BracketRow {
	return cutRows(set, "nohz-locked/mask-entry", nohzSide, NohzCutYes, "locked writes per mask entry", "with the mask's weight")
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
func WriteNohzRows(w io.Writer, rows []BracketRow) {
	writeBracketRows(w, rows, bracketText{
		head:   "14. ",
		title:  "nohz.nr_cpus dropped for the idle mask's weight (5d86d542f68f)",
		before: "nohz.nr_cpus beside the mask", after: "the mask's weight",
		measure: "locked writes to nohz's line per cpu entering the idle mask (a tick stop that puts it there)"})
}
