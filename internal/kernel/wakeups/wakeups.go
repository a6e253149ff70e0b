// Package wakeups runs the wakeup model's client/server workload
// (bench/wakeup's shape) on the running kernel and reads what the kernel
// did with it: the workload threads' schedstats and the machine's
// /proc/schedstat over a counted window (Measure), each thread a process
// of its own (Worker). The parsing is internal/kernel/schedstat's; the
// changes to the machine (kernel.sched_schedstats, lo up, debugfs) are
// pushed on an internal/kernel/machine Undo and undone before Measure returns.
// internal/oracle holds the model against a Run.
package wakeups

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/contend/contend/internal/kernel"
	"github.com/contend/contend/internal/kernel/schedstat"
)

// Run is what a run measured, over the counted window only: the
// schedstats of the workload's threads (clients and servers apart) and
// the machine's /proc/schedstat, both read before and after the window.
type Run struct {
	Kernel   string `json:"kernel"`
	CPUs     int    `json:"cpus"`
	LLCSize  int    `json:"llc_size"` // cpu0's L3 (else its last cache level) shared_cpu_list, in cpus
	Clients  int    `json:"clients"`
	Servers  int    `json:"servers"`
	ThinkNs  int64  `json:"think_ns"`   // asked for: the spin before each send
	ServeNs  int64  `json:"service_ns"` // asked for: the spin before each reply
	WarmupNs int64  `json:"warmup_ns"`
	// Seconds is the counted window's length; Statements the round trips
	// completed in it.
	Seconds    float64 `json:"seconds"`
	Statements uint64  `json:"statements"`
	// ClientSendNs and ServerSendNs are the mean wall time of a send
	// syscall, the one whose delivery wakes the partner.
	ClientSendNs float64 `json:"client_send_ns"`
	ServerSendNs float64 `json:"server_send_ns"`
	// NewidleLBCostNs is the mean of the domains' max_newidle_lb_cost at
	// the window's end (debugfs; 0 where it could not be read).
	NewidleLBCostNs float64 `json:"newidle_lb_cost_ns"`
	// Client and Server sum schedstat.TaskCounters over each kind's threads
	// (sum_exec_runtime and wait_sum in ms).
	Client schedstat.Task   `json:"client"`
	Server schedstat.Task   `json:"server"`
	Sched  *schedstat.Stats `json:"schedstat"`
	// Others sums the workload processes' other threads (the Go
	// runtime's: sysmon's timed sleeps, mostly), OtherThreads those of
	// them that woke in the window: threads the model's workload lacks
	// unless told (simulate wakeup -others).
	Others       schedstat.Task `json:"others"`
	OtherThreads int            `json:"other_threads"`
	// Wakes sums the window's wake trace of the workload's threads
	// (where each wakeup went, and what select_task_rq_fair() read:
	// kernel.WakeTrace); nil without one, Notes saying why.
	Wakes *kernel.WakeTrace `json:"wakes,omitempty"`
	Notes []string          `json:"notes,omitempty"`
}

// WriteText prints the run as contend kernel wakeups does: the rate of
// statements, the per-second migrations, wakeups and affine wakeups of
// clients and servers together, and each side's cpu per statement.
func (w *Run) WriteText(out io.Writer) error {
	per := func(k string) float64 { return (w.Client[k] + w.Server[k]) / w.Seconds }
	fmt.Fprintf(out, "kernel %s, %d cpus, llc %d cpus: %d clients, %d servers, %.0f statements/s over %.2f s\n",
		w.Kernel, w.CPUs, w.LLCSize, w.Clients, w.Servers, float64(w.Statements)/w.Seconds, w.Seconds)
	fmt.Fprintf(out, "per second: migrations %.1f (at wakeup %.1f), wakeups %.1f, affine %.1f of %.1f attempts\n",
		per("nr_migrations"), per("nr_wakeups_migrate"), per("nr_wakeups"), per("nr_wakeups_affine"), per("nr_wakeups_affine_attempts"))
	n := float64(w.Statements)
	if _, err := fmt.Fprintf(out, "cpu per statement: client %.1f µs, server %.1f µs\n", w.Client["sum_exec_runtime"]*1e3/n, w.Server["sum_exec_runtime"]*1e3/n); err != nil {
		return err
	}
	if t := w.Wakes; t != nil && t.Wakes > 0 {
		fmt.Fprintf(out, "wake trace: %d wakeups, %.1f %% onto the waking cpu; %.1f %% of them stacked (prev_cpu the waking cpu), %.1f %% of those parted; %.1f %% of the split joined\n",
			t.Wakes, pct(t.Local, t.Wakes), pct(t.Stacked, t.Wakes), pct(t.StackedParted, t.Stacked), pct(t.Joined, t.Wakes-t.Stacked))
	}
	for _, note := range w.Notes {
		if _, err := fmt.Fprintln(out, "note: "+note); err != nil {
			return err
		}
	}
	return nil
}

// pct is 100·a/b, 0 where b is.
func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// Save writes the run as indented JSON to path (what contend kernel
// wakeups-model reads) through a temporary file renamed into place, so a
// failed write leaves no half-written file.
func (w *Run) Save(path string) error {
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
