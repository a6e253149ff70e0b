package bench_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// spinWorker is a scenario whose operation is a little local work: it
// touches no shared memory, so whatever a worker loses is the machine's
// doing.
type spinScenario struct{}

type spinWorker struct{ x uint64 }

func (spinScenario) Variant() string                               { return "spin=yes" }
func (spinScenario) Start(*bench.Env) error                        { return nil }
func (spinScenario) Finish(*bench.Result) error                    { return nil }
func (spinScenario) Worker(bench.WorkerInfo) (bench.Worker, error) { return &spinWorker{}, nil }
func (w *spinWorker) Run(n int)                                    { w.x = bench.LocalWork(w.x, 10*n) }

// A worker sharing its CPU with a busy thread gets about half of it: the
// run must say so, naming the worker, its CPU and the cause.
func TestRunWarnsWhenDisturbed(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 1)
	// The hog holds a P of its own besides the worker and the
	// coordinator, so that Go's scheduler is not what we measure.
	defer affinity.EnsureProcs(3)()
	stop := benchtest.Hog(t, cpus[0])
	res, err := bench.Run(spinScenario{}, bench.Config{Topology: topo, CPUs: cpus, Duration: 300 * time.Millisecond})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	w := res.Workers[0]
	if !w.Accounted {
		t.Skip("no per-thread accounting on this kernel")
	}
	lost := benchtest.Metric(t, res, bench.Lost)
	t.Logf("lost %.1f%%, wait %.1f%%, %d preemptions; warnings %q", lost, w.WaitPct(), w.Preempted, res.Warnings())
	// CFS gives two always-runnable threads half a CPU each; anything
	// above a tenth lost is far beyond the threshold.
	if lost < 10 {
		t.Errorf("lost-%% = %.1f sharing cpu %d with a busy thread, want ≥ 10", lost, cpus[0])
	}
	if w.Preempted == 0 {
		t.Errorf("no involuntary context switches while sharing a cpu with a busy thread")
	}
	if w.Scheduled && w.WaitPct() < 10 {
		t.Errorf("wait %.1f%% sharing a cpu with a busy thread, want ≥ 10", w.WaitPct())
	}
	ws := res.Warnings()
	if len(ws) != 1 || !res.Disturbed() {
		t.Fatalf("warnings %q, want exactly one", ws)
	}
	for _, want := range []string{"worker 0", fmt.Sprintf("cpu %d", cpus[0]), "another task ran on cpu", "preemptions"} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("warning %q does not say %q", ws[0], want)
		}
	}
	if strings.Contains(ws[0], "\n") {
		t.Errorf("warning is not one line: %q", ws[0])
	}
}

// An undisturbed run says nothing. A shared machine cannot be made quiet on
// demand, so the test tries a few short runs, alternating CPUs, and passes
// at the first clean one. If every run was disturbed while other tasks were
// runnable (the kernel's run-queue wait, steal, or /proc/stat's
// procs_running say so), the machine is too busy to prove a negative and
// the test skips, saying so; if every run was disturbed with nothing else
// runnable, the runner disturbs itself and the test fails. Whatever the
// machine, the warning must agree with the metric.
func TestRunUndisturbed(t *testing.T) {
	topo, _ := benchtest.HostCPUs(t, 1)
	allowed := topo.AllowedCPUs.Bits()
	var seen []string
	busy := false
	for attempt := range 5 {
		cpu := allowed[attempt%len(allowed)]
		others := othersRunnable(t)
		res, err := bench.Run(spinScenario{}, bench.Config{Topology: topo, CPUs: []int{cpu}, Duration: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		others = max(others, othersRunnable(t))
		w := res.Workers[0]
		if !w.Accounted {
			t.Skip("no per-thread accounting on this kernel")
		}
		ws := res.Warnings()
		if res.Disturbed() != (w.LostPct() > bench.DisturbedPct) || res.Disturbed() != (len(ws) > 0) {
			t.Fatalf("lost %.2f%% (threshold %v%%), Disturbed() = %v, warnings %q: they disagree", w.LostPct(), bench.DisturbedPct, res.Disturbed(), ws)
		}
		// The worker's interval lies inside the run (it reads its
		// accounting a little after the release, and on a loaded host or
		// under qemu-user it may start tens of milliseconds late: 46ms of
		// a 100ms run there), and its cpu time inside the interval.
		if w.Run > w.Wall+10*time.Microsecond || w.Wall <= 0 || w.Wall > res.Elapsed+time.Second {
			t.Fatalf("worker ran %v in an interval of %v of a %v run", w.Run, w.Wall, res.Elapsed)
		}
		if !res.Disturbed() {
			t.Logf("attempt %d on cpu %d: lost %.2f%%, wait %.2f%%, %d preemptions, %d sleeps: undisturbed, no warning",
				attempt+1, cpu, w.LostPct(), w.WaitPct(), w.Preempted, w.Slept)
			return
		}
		explained := w.Wait + max(w.Steal-10*time.Millisecond, 0)
		busy = busy || others > 0 || 100*float64(explained)/float64(w.Wall) > bench.DisturbedPct
		seen = append(seen, fmt.Sprintf("%s [%d other tasks runnable]", ws[0], others))
		time.Sleep(100 * time.Millisecond) // let whatever ran move on
	}
	if !busy {
		t.Fatalf("all 5 runs were disturbed with no other task runnable and no steal: the runner disturbs itself: %q", seen)
	}
	t.Skipf("machine too busy to prove a negative: all 5 runs were disturbed by other tasks or the hypervisor: %q", seen)
}

// othersRunnable returns how many tasks besides the caller are runnable
// now, from /proc/stat's procs_running.
func othersRunnable(t *testing.T) int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Skipf("no /proc/stat: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "procs_running "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("/proc/stat: %q", line)
			}
			return max(n-1, 0)
		}
	}
	t.Skip("/proc/stat has no procs_running")
	return 0
}
