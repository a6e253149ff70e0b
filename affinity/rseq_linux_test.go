package affinity

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// onPinned runs f on a goroutine of its own pinned to cpu, as a worker's
// is, and unpins it after f.
func onPinned(tb testing.TB, cpu int, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		undo, err := Pin(cpu)
		if err != nil {
			tb.Error(err)
			return
		}
		defer undo()
		f()
	}()
	<-done
}

// haveRseq says whether this kernel (or emulator) registers rseq areas.
func haveRseq(t testing.TB) bool {
	var ok bool
	onPinned(t, startCPUs()[0], func() {
		tp, release := (&CPUProbe{}).Thread()
		defer release()
		ok = tp.Method() == "rseq cpu_id"
	})
	return ok
}

// TestThreadProbeFollowsMigration registers an area on a thread pinned to
// each allowed CPU in turn and then moves the thread to every other one
// with the area still registered: the kernel must have rewritten cpu_id
// before the thread runs again, as getcpu sees it.
func TestThreadProbeFollowsMigration(t *testing.T) {
	cpus := startCPUs()
	if len(cpus) == 0 {
		t.Skip("cannot read this process's affinity mask")
	}
	if !haveRseq(t) {
		t.Skip("no rseq here (the kernel's or QEMU user mode's): the probe is getcpu, tested by TestPinEachAllowedCPU")
	}
	for _, from := range cpus {
		t.Run(fmt.Sprintf("from=%d", from), func(t *testing.T) {
			onPinned(t, from, func() {
				tp, release := (&CPUProbe{}).Thread()
				defer release()
				if got := tp.CPU(); got != from || !tp.FastPath() {
					t.Errorf("on cpu %d the probe says %d (%s)", from, got, tp.Method())
				}
				for _, to := range cpus {
					var set unix.CPUSet
					set.Set(to)
					if err := unix.SchedSetaffinity(0, &set); err != nil {
						t.Fatal(err)
					}
					want, _, _ := GetCPU()
					if got := tp.CPU(); got != want || got != to {
						t.Errorf("moved to cpu %d (getcpu %d): the rseq area says %d", to, want, got)
					}
				}
			})
		})
	}
}

// TestThreadProbeReleaseUnregisters checks that release leaves the thread
// with no area (a second registration succeeds; one over a registered area
// is refused), and that a thread with an area of someone else's (glibc's,
// in a cgo binary) falls back to getcpu rather than failing.
func TestThreadProbeReleaseUnregisters(t *testing.T) {
	if !haveRseq(t) {
		t.Skip("no rseq here")
	}
	cpu := startCPUs()[0]
	onPinned(t, cpu, func() {
		p := &CPUProbe{}
		for i := range 3 {
			tp, release := p.Thread()
			if tp.Method() != "rseq cpu_id" {
				t.Fatalf("registration %d: the probe is %s: the previous release left an area registered", i, tp.Method())
			}
			release()
			release() // harmless twice
		}
		page, area, err := registerRseq() // someone else's area
		if err != nil {
			t.Fatal(err)
		}
		tp, release := p.Thread()
		if tp.Method() != "getcpu" || tp.CPU() != cpu {
			t.Errorf("with an area already registered the probe is %s, says cpu %d on cpu %d", tp.Method(), tp.CPU(), cpu)
		}
		release()
		owner := &ThreadProbe{p: p, area: area, page: page}
		owner.release()
		page, area, err = registerRseq()
		if err != nil {
			t.Fatalf("no registration after both released: %v", err)
		}
		(&ThreadProbe{p: p, area: area, page: page}).release()
	})
}

// TestThreadProbeOptOut: CONTEND_NO_RSEQ keeps the probe on getcpu.
func TestThreadProbeOptOut(t *testing.T) {
	t.Setenv("CONTEND_NO_RSEQ", "1")
	cpu := startCPUs()[0]
	onPinned(t, cpu, func() {
		tp, release := (&CPUProbe{}).Thread()
		defer release()
		if tp.Method() != "getcpu" || tp.FastPath() || tp.CPU() != cpu {
			t.Errorf("CONTEND_NO_RSEQ=1: probe %s (fast %v) says cpu %d on cpu %d", tp.Method(), tp.FastPath(), tp.CPU(), cpu)
		}
	})
}

// BenchmarkThreadProbe is the price of one on-CPU check per batch by each
// method, on a pinned thread (method=default: what the runner uses here,
// TSC_AUX on x86 where it is trusted).
func BenchmarkThreadProbe(b *testing.B) {
	for _, m := range []struct {
		name string
		p    *CPUProbe
		env  string
	}{
		{"method=rseq", &CPUProbe{}, ""},
		{"method=getcpu", &CPUProbe{}, "1"},
		{"method=default", Probe(), ""},
	} {
		b.Run(m.name, func(b *testing.B) {
			if m.env != "" {
				b.Setenv("CONTEND_NO_RSEQ", m.env)
			}
			onPinned(b, startCPUs()[0], func() {
				tp, release := m.p.Thread()
				defer release()
				if m.name == "method=rseq" && tp.Method() != "rseq cpu_id" {
					b.Skipf("no rseq here: %s", tp.Method())
				}
				sum := 0
				b.ResetTimer()
				for range b.N {
					sum += tp.CPU()
				}
				b.StopTimer()
				if sum < 0 {
					b.Fatal("a check failed")
				}
			})
		})
	}
}
