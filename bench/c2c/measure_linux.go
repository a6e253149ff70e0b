package c2c

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/contend/contend/affinity"
)

// The ping-pong line holds a counter both sides step by one. Its value says
// whose turn it is: even is the pinger's, odd the answerer's. Each side waits
// for one exact value rather than a parity, so a stray write cannot pass as a
// turn. stopValue is never a counter value; the pinger writes it, on its own
// turn, to end the game.
const stopValue = ^uint64(0)

// The answerer's flag, on a line of its own far from the ping-pong line (two
// KiB away, beyond any adjacent-line prefetcher's pair), says it finished a
// sample and checked its CPU: sample index+1, or failValue if it found itself
// on the wrong CPU. The pinger waits for it between samples, outside the
// timed interval, so that each sample starts with the answerer spinning and
// the answerer's checks never land inside a sample.
const (
	flagOffset = 2048
	failValue  = ^uint64(0)
)

// lineMemory is the page the line and flag live on, mapped fresh so that its
// placement is ours to decide: Go's heap reuses pages already touched on
// whatever node.
type lineMemory struct {
	buf     []byte
	line    *atomic.Uint64
	flag    *atomic.Uint64
	memNode int    // node get_mempolicy reports, -1 unknown
	placed  string // "mbind" or "first-touch"
}

// pageMinLen is the least mapping for the line and the flag, whatever the
// page size.
const pageMinLen = 4096

// allocLine maps a page for the line and places it on node: by mbind
// when mbind is true and the kernel allows it (containers often forbid
// it), and in any case by first touch from a thread pinned to touchCPU, a CPU
// of that node (-1 when it has none, and then mbind must succeed).
func allocLine(node int, useMbind bool, touchCPU int) (*lineMemory, error) {
	size := max(os.Getpagesize(), pageMinLen)
	buf, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("c2c: mapping the line: %w", err)
	}
	m := &lineMemory{
		buf:     buf,
		line:    (*atomic.Uint64)(unsafe.Pointer(&buf[0])),
		flag:    (*atomic.Uint64)(unsafe.Pointer(&buf[flagOffset])),
		memNode: -1,
		placed:  "first-touch",
	}
	var mbindErr error
	if useMbind {
		mbindErr = affinity.BindMemory(buf, node, affinity.Bind)
		if mbindErr == nil {
			m.placed = "mbind"
		}
	}
	touch := func() {
		m.line.Store(0)
		m.flag.Store(0)
	}
	switch {
	case touchCPU >= 0:
		if err := affinity.RunOn(touchCPU, touch); err != nil {
			m.free()
			return nil, fmt.Errorf("c2c: placing the line on node %d from cpu %d: %w", node, touchCPU, err)
		}
	case m.placed == "mbind":
		touch()
	default:
		m.free()
		return nil, fmt.Errorf("c2c: cannot place the line on node %d: it has no usable cpu to touch it from, and mbind failed: %w", node, mbindErr)
	}
	if n, err := affinity.NodeOfPage(unsafe.Pointer(&buf[0])); err == nil {
		m.memNode = n
	}
	return m, nil
}

func (m *lineMemory) free() { _ = unix.Munmap(m.buf) }

// homeOf resolves where the line of pair a, b lives: the node, the CPU to
// first-touch it from (-1 if none), and whether the node is real.
func homeOf(t *affinity.Topology, a, b int, h Home) (node, touch int, err error) {
	switch h.Which {
	case "first":
		return t.NodeOf(a), a, nil
	case "second":
		return t.NodeOf(b), b, nil
	}
	n := t.NodeByID(h.Node)
	if n == nil {
		return 0, 0, fmt.Errorf("c2c home node %d is not online (online nodes %s)", h.Node, t.OnlineNodes)
	}
	if !t.IsFake() && !n.HasMemory {
		return 0, 0, fmt.Errorf("c2c home node %d has no memory (memory on nodes %s)", h.Node, t.MemoryNodes)
	}
	return h.Node, n.CPUs.And(t.AllowedCPUs).First(), nil
}

// Measure measures the one-way handoff latency between CPUs a and b: a
// pings, b answers. Both ends are pinned and verified (by Pin, then after
// every sample, by the thread's affinity.ThreadProbe: Result.Probe says how);
// an unusable CPU is an error naming it, and an end found off its CPU is one
// saying whether the CPU went offline (affinity.OffCPU). The line lives on the
// node cfg.Home says; on a fake topology that node is not real, and the
// result says so (HomeReal false).
func Measure(t *affinity.Topology, a, b int, cfg Config) (*Result, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	if a == b {
		return nil, fmt.Errorf("c2c pair %d,%d: both ends on cpu %d", a, b, a)
	}
	for _, c := range []int{a, b} {
		if err := t.CheckCPU(c); err != nil {
			return nil, fmt.Errorf("c2c pair %d,%d: %w", a, b, err)
		}
	}
	home, touch, err := homeOf(t, a, b, cfg.Home)
	if err != nil {
		return nil, err
	}
	r := &Result{
		CPUA: a, CPUB: b, Mode: cfg.Mode, Class: ClassOf(t, a, b),
		Samples: cfg.Samples, Rounds: cfg.Rounds,
		HomeNode: home, HomeReal: !t.IsFake(),
	}
	mem, err := allocLine(home, !t.IsFake(), touch)
	if err != nil {
		return nil, err
	}
	defer mem.free()
	r.MemNode, r.Placed = mem.memNode, mem.placed

	if err := play(mem, a, b, cfg, r); err != nil {
		return nil, fmt.Errorf("c2c pair %d,%d: %w", a, b, err)
	}
	return r, nil
}

// play runs the ping-pong of pair a, b on the line in mem: both ends pinned
// and ready, then released together with GC off, and fills in r's
// statistics and checks.
func play(mem *lineMemory, a, b int, cfg Config, r *Result) error {
	probe := affinity.Probe()
	// Pinger, answerer and this goroutine each need a P: a spinning end
	// must never wait for the other to be scheduled.
	defer affinity.EnsureProcs(3)()

	var (
		wg       sync.WaitGroup
		ready    = make(chan error, 2)
		start    = make(chan struct{}) // closed to release both ends
		abort    atomic.Bool           // set before the close: give up instead
		samples  = make([]float64, cfg.Samples)
		pingErr  error
		pongErr  error
		pingChks int64
		pongChks int64
		methods  [2]string // how each end's checks read its cpu
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		pongChks, pongErr = playEnd(b, "answering", probe, ready, start, &abort, func(onCPU *affinity.ThreadProbe) (int64, error) {
			methods[1] = onCPU.Method()
			return answer(mem, b, cfg.Mode, cfg.Rounds, onCPU)
		})
	}()
	go func() {
		defer wg.Done()
		pingChks, pingErr = playEnd(a, "pinging", probe, ready, start, &abort, func(onCPU *affinity.ThreadProbe) (int64, error) {
			methods[0] = onCPU.Method()
			return ping(mem, a, cfg, onCPU, samples)
		})
	}()
	var errs []error
	for range 2 {
		if err := <-ready; err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		abort.Store(true)
		close(start)
		wg.Wait()
		return errors.Join(errs...)
	}
	runtime.GC()
	gc := debug.SetGCPercent(-1)
	close(start)
	wg.Wait()
	debug.SetGCPercent(gc)
	if err := errors.Join(pingErr, pongErr); err != nil {
		return err
	}
	r.Checks = pingChks + pongChks
	r.Probe = methods[0]
	if methods[1] != methods[0] {
		r.Probe += " + " + methods[1]
	}
	r.setStats(samples, cfg.Stat)
	return nil
}

// playEnd runs one end of a ping-pong: pin the calling goroutine to cpu,
// open the thread's on-cpu probe, report to ready, wait for the start, play,
// and release the probe and unpin, in that order (an rseq area must be
// unregistered on its thread before the thread goes back to the scheduler).
// A failed pin goes to ready and the end does not play; neither does it when
// the other end failed (abort is set before start is closed).
func playEnd(cpu int, end string, probe *affinity.CPUProbe, ready chan<- error, start <-chan struct{}, abort *atomic.Bool, play func(*affinity.ThreadProbe) (int64, error)) (checks int64, err error) {
	undo, err := affinity.Pin(cpu)
	if err != nil {
		ready <- fmt.Errorf("%s end: %w", end, err)
		return 0, nil
	}
	defer func() {
		if uerr := undo(); uerr != nil && err == nil {
			err = uerr
		}
	}()
	// The per-sample check: TSC_AUX where trusted, else an rseq area
	// registered on this thread, else getcpu (affinity.CPUProbe.Thread).
	onCPU, release := probe.Thread()
	defer release()
	ready <- nil
	<-start
	if abort.Load() {
		return 0, nil
	}
	return play(onCPU)
}

// ping is the pinging end, on a thread pinned to cpu: run samples until
// the preheat has passed and the warm-up is done, recording cfg.Samples
// one-way times in samples (ns). It ends the game by writing stopValue on its
// own turn.
func ping(mem *lineMemory, cpu int, cfg Config, probe cpuProbe, samples []float64) (checks int64, err error) {
	line, flag := mem.line, mem.flag
	defer line.Store(stopValue) // on our turn: every exit follows a flag wait
	var v uint64
	heatUntil := time.Now().Add(cfg.Preheat)
	n := uint64(0) // samples run, for the answerer's flag
	warmup := cfg.Warmup.Samples()
	for measured := -warmup; measured < cfg.Samples; {
		t0 := time.Now()
		if cfg.Mode == CAS {
			v = pingCAS(line, v, cfg.Rounds)
		} else {
			v = pingRW(line, v, cfg.Rounds)
		}
		el := time.Since(t0)
		n++
		for f := flag.Load(); f != n; f = flag.Load() {
			if f == failValue {
				return checks, fmt.Errorf("answering end left its cpu")
			}
		}
		if got := probe.CPU(); got != cpu {
			line.Store(stopValue) // free the answerer before OffCPU's wait
			return checks, fmt.Errorf("pinging end: %w", affinity.OffCPU(cpu, got))
		}
		checks++
		if err := cfg.Context.Err(); err != nil {
			return checks, err
		}
		if cfg.Preheat > 0 && measured == -warmup && time.Now().Before(heatUntil) {
			continue // still preheating: the warm-up starts after it
		}
		if measured >= 0 {
			samples[measured] = float64(el.Nanoseconds()) / float64(2*cfg.Rounds)
		}
		measured++
	}
	return checks, nil
}

// answer is the answering end, on a thread pinned to cpu: answer rounds
// pings per sample, check its CPU and raise the flag, until it meets stopValue.
func answer(mem *lineMemory, cpu int, mode Mode, rounds int, probe cpuProbe) (checks int64, err error) {
	line, flag := mem.line, mem.flag
	var v uint64
	for n := uint64(1); ; n++ {
		var ok bool
		if mode == CAS {
			v, ok = answerCAS(line, v, rounds)
		} else {
			v, ok = answerRW(line, v, rounds)
		}
		if !ok {
			return checks, nil
		}
		if got := probe.CPU(); got != cpu {
			flag.Store(failValue)
			return checks, fmt.Errorf("answering end: %w", affinity.OffCPU(cpu, got))
		}
		checks++
		flag.Store(n)
	}
}

// cpuProbe says which CPU the calling thread runs on: an
// affinity.ThreadProbe in a measurement, a fake in tests.
type cpuProbe interface{ CPU() int }

// The hot loops. v is the counter value on entry, always even (the pinger's
// turn); each returns the value on exit. They stay named symbols for perf
// annotate and allocate nothing.

// pingRW sends n pings and waits for each answer by loading the line:
// n round trips, 2n handoffs.
//
//go:noinline
func pingRW(line *atomic.Uint64, v uint64, n int) uint64 {
	for range n {
		line.Store(v + 1)
		v += 2
		for line.Load() != v {
		}
	}
	return v
}

// answerRW answers n pings; it returns false when it meets stopValue.
//
//go:noinline
func answerRW(line *atomic.Uint64, v uint64, n int) (uint64, bool) {
	for range n {
		v++
		for x := line.Load(); x != v; x = line.Load() {
			if x == stopValue {
				return v, false
			}
		}
		v++
		line.Store(v)
	}
	return v, true
}

// pingCAS takes its turn n times by compare-and-swap: the first CAS finds
// the line ours already, each later one waits out an answer, and a final
// same-value CAS waits out the last answer, so the time is n round trips.
//
//go:noinline
func pingCAS(line *atomic.Uint64, v uint64, n int) uint64 {
	for range n {
		for !line.CompareAndSwap(v, v+1) {
		}
		v += 2
	}
	for !line.CompareAndSwap(v, v) {
	}
	return v
}

// answerCAS answers n pings by compare-and-swap. A failed CAS does not
// say what it found, so it looks for stopValue only once every 1024 failures:
// a load after every failure would be a second access racing the pinger's.
//
//go:noinline
func answerCAS(line *atomic.Uint64, v uint64, n int) (uint64, bool) {
	for range n {
		for fails := uint(1); !line.CompareAndSwap(v+1, v+2); fails++ {
			if fails%1024 == 0 && line.Load() == stopValue {
				return v, false
			}
		}
		v += 2
	}
	return v, true
}
