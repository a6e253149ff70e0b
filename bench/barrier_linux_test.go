package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contend/contend/affinity"
)

// watchdog makes a hang fail the test binary within d rather than at go
// test's -timeout: a stop-the-world that cannot stop a spinning worker stops
// every other goroutine too, timers included, so the watch is kept by another
// process, which sends SIGQUIT (the runtime dumps every goroutine, the
// collector's among them, and exits). It returns the function that calls it
// off.
func watchdog(t *testing.T, d time.Duration) (cancel func()) {
	t.Helper()
	cmd := exec.Command("sh", "-c", fmt.Sprintf("sleep %d; kill -QUIT %d", int(d.Seconds()), os.Getpid()))
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the watchdog: %v", err)
	}
	return func() {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// TestGCMidBarrier forces a collection while every worker is pinned and
// spinning on the release barrier, and then one while they run batches: both
// must complete. A stop-the-world waits until every running goroutine reaches
// a point the runtime may stop it at; a spin loop with no call offers only
// asynchronous ones (a signal landing on an async-safe instruction), and an
// emulator that takes signals only at a translated block's first instruction
// (QEMU's TCG, system or user mode) can land every one on an unsafe
// instruction — on arm64, the loop head's nil check, a load into REGTMP. So
// does GODEBUG=asyncpreemptoff=1 on any machine. The runner must not depend
// on them: run this test under either.
func TestGCMidBarrier(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	cpus, err := affinity.Placement{Policy: affinity.Compact}.Assign(topo, min(2, runtime.NumCPU()), false)
	if err != nil {
		t.Skipf("no cpus to pin to: %v", err)
	}
	cfg := Config{Topology: topo, CPUs: cpus, Duration: 200 * time.Millisecond}
	env, err := newEnv(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer watchdog(t, 30*time.Second)()
	defer affinity.EnsureProcs(len(cpus) + 1)()
	defer quiesce()()
	s := &gcScenario{}
	r := &run{s: s, env: env, probe: affinity.Probe(), share: share(0, len(cpus))}
	if err := r.launch(); err != nil {
		t.Fatal(err)
	}
	// Every worker has called ready.Done and spins on the barrier, or is
	// about to: the collection below must stop them where they wait.
	time.Sleep(20 * time.Millisecond)
	cycles := gcCycles()
	runtime.GC()
	if gcCycles() == cycles {
		t.Fatal("runtime.GC completed no cycle")
	}
	again := make(chan struct{})
	go func() {
		// And again while they run batches.
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
		close(again)
	}()
	start := r.measure(cfg)
	<-again
	res, err := r.result(start)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops == 0 {
		t.Error("no operations after the collections")
	}
	if gcCycles() < cycles+2 {
		t.Errorf("%d collections during the run, want 2", gcCycles()-cycles)
	}
}

// TestGCMidBarrierNoAsyncPreempt runs TestGCMidBarrier again in a child
// process with asynchronous preemption off, as QEMU's TCG in effect has it.
// Where signals do preempt a spinning loop (x86, arm64 hardware) they would
// stop a worker without its safePoint, and TestGCMidBarrier alone could not
// fail for want of one.
func TestGCMidBarrierNoAsyncPreempt(t *testing.T) {
	godebug := os.Getenv("GODEBUG")
	if strings.Contains(godebug, "asyncpreemptoff=1") {
		t.Skip("asynchronous preemption is off already: TestGCMidBarrier is this test")
	}
	if godebug != "" {
		godebug += ","
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGCMidBarrier$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG="+godebug+"asyncpreemptoff=1")
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) {
		// This binary runs under qemu-user without binfmt_misc (CI's
		// arm64 step), which cannot start it again; there signals reach
		// guest code only at block boundaries, so TestGCMidBarrier on its
		// own already tests the safe point.
		t.Skipf("cannot re-execute this binary (%v): run under qemu-user, where TestGCMidBarrier alone is this test", err)
	}
	if err != nil {
		// A hang ends in the watchdog's goroutine dump: its head says enough.
		lines := strings.SplitN(string(out), "\n", 30)
		t.Fatalf("TestGCMidBarrier with GODEBUG=asyncpreemptoff=1: %v\n%s", err, strings.Join(lines[:min(len(lines), 29)], "\n"))
	}
}

func gcCycles() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}

// gcScenario's workers spin through a loop of their own: its operation is a
// counter's increment through a pointer, the loop shape whose only
// block-entry instruction is unsafe on arm64.
type gcScenario struct{}

type gcWorker struct{ n *int64 }

func (gcScenario) Variant() string                   { return "gc=mid-barrier" }
func (gcScenario) Start(*Env) error                  { return nil }
func (gcScenario) Finish(*Result) error              { return nil }
func (gcScenario) Worker(WorkerInfo) (Worker, error) { return &gcWorker{n: new(int64)}, nil }

//go:noinline
func (w *gcWorker) Run(n int) {
	for range n {
		*w.n++
	}
}
