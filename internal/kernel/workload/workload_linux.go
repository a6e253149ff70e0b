// Package workload is what contend kernel count runs and counts: unpinned
// threads that sleep in the kernel and wake each other (pipe and
// loopback-UDP ping-pong pairs, a migrating variant, a UDP server with
// clients), run as a process of its own (ServeLoad) inside the count's
// cgroup hierarchy. It knows nothing of the counting: internal/kernel
// starts it, reads its threads' schedstats and its one line of JSON.
package workload

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Shapes are the workloads a count can run: each a set of unpinned
// threads that sleep in the kernel and wake each other, so every
// transaction is two wakeups, two enqueues and two dequeues of a task of
// the cgroup — the events that write tg->load_avg.
var Shapes = map[string]string{
	"pipe":    "ping-pong pairs over two pipes (one byte each way)",
	"udp":     "ping-pong pairs over loopback UDP (netperf UDP_RR's shape)",
	"migrate": "pipe pairs whose second thread moves to the next allowed cpu after every transaction",
	"server":  "one UDP server thread answering every client thread (the wakeup model's shape)",
}

// Load is one workload run's outcome.
type Load struct {
	Shape        string  `json:"shape"`
	Pairs        int     `json:"pairs"`
	Transactions uint64  `json:"transactions"`
	Seconds      float64 `json:"seconds"`
	// TIDs are the workload's own threads (the pingers and the server),
	// alive until the process exits: a count reads their schedstats
	// after the run, and the process's other threads are the Go
	// runtime's.
	TIDs []int `json:"tids,omitempty"`
}

// RunLoad runs the shape with pairs pairs (clients, for server) for d and
// returns what it did. Threads blocked at the end are left blocked: the
// caller is a process of its own that exits after reporting.
func RunLoad(shape string, pairs int, d time.Duration) (*Load, error) {
	if pairs < 1 {
		return nil, fmt.Errorf("pairs %d: need at least 1", pairs)
	}
	var stop atomic.Bool
	counts := make([]atomic.Uint64, pairs)
	var ready sync.WaitGroup
	errc := make(chan error, 2*pairs+1)
	tids := make(chan int, 2*pairs+1)
	start := func(f func() error) {
		ready.Add(1)
		go func() {
			runtime.LockOSThread() // its own thread, to sleep in the kernel
			tids <- unix.Gettid()
			ready.Done()
			if err := f(); err != nil {
				errc <- err
			}
			// Park, still locked: a locked goroutine that returns takes
			// its thread with it, and with the thread its schedstats,
			// which the count reads after the run (it read the Go
			// runtime's threads alone, a 2-pair pipe's wakeups a
			// seventh of the machine's selects).
			select {}
		}()
	}
	switch shape {
	case "pipe", "migrate":
		for p := range pairs {
			var ab, ba [2]int
			if err := unix.Pipe2(ab[:], unix.O_CLOEXEC); err != nil {
				return nil, fmt.Errorf("pipe: %w", err)
			}
			if err := unix.Pipe2(ba[:], unix.O_CLOEXEC); err != nil {
				return nil, fmt.Errorf("pipe: %w", err)
			}
			start(func() error { return pingLoop(&stop, &counts[p], ab[1], ba[0]) })
			start(func() error { return pongLoop(&stop, ba[1], ab[0], shape == "migrate") })
		}
	case "udp":
		for p := range pairs {
			a, b, err := udpPair()
			if err != nil {
				return nil, err
			}
			start(func() error { return pingLoop(&stop, &counts[p], a, a) })
			start(func() error { return pongLoop(&stop, b, b, false) })
		}
	case "server":
		srv, port, err := udpSocket()
		if err != nil {
			return nil, err
		}
		for p := range pairs {
			c, _, err := udpSocket()
			if err != nil {
				return nil, err
			}
			if err := unix.Connect(c, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
				return nil, fmt.Errorf("udp connect: %w", err)
			}
			start(func() error { return pingLoop(&stop, &counts[p], c, c) })
		}
		start(func() error { return serveLoop(&stop, srv) })
	default:
		return nil, fmt.Errorf("unknown shape %q", shape)
	}
	ready.Wait()
	t0 := time.Now()
	select {
	case err := <-errc:
		return nil, err
	case <-time.After(d):
	}
	stop.Store(true)
	l := &Load{Shape: shape, Pairs: pairs, Seconds: time.Since(t0).Seconds()}
	for len(tids) > 0 {
		l.TIDs = append(l.TIDs, <-tids)
	}
	slices.Sort(l.TIDs)
	for i := range counts {
		l.Transactions += counts[i].Load()
	}
	return l, nil
}

var one = []byte{1}

// pingLoop sends a byte and waits for the answer: one transaction.
func pingLoop(stop *atomic.Bool, n *atomic.Uint64, w, r int) error {
	buf := make([]byte, 1)
	for !stop.Load() {
		if _, err := unix.Write(w, one); err != nil {
			return fmt.Errorf("ping write: %w", err)
		}
		if _, err := unix.Read(r, buf); err != nil {
			return fmt.Errorf("ping read: %w", err)
		}
		n.Add(1)
	}
	return nil
}

// pongLoop answers each byte; migrating, it then moves to the next cpu it
// may use, so that every transaction's wakeup crosses cpus.
func pongLoop(stop *atomic.Bool, w, r int, migrate bool) error {
	buf := make([]byte, 1)
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return err
	}
	var cpus []int
	for c := range 1024 {
		if allowed.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	next := 0
	for !stop.Load() {
		if _, err := unix.Read(r, buf); err != nil {
			return fmt.Errorf("pong read: %w", err)
		}
		if _, err := unix.Write(w, one); err != nil {
			return fmt.Errorf("pong write: %w", err)
		}
		if migrate && len(cpus) > 1 {
			next = (next + 1) % len(cpus)
			var set unix.CPUSet
			set.Set(cpus[next])
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				return fmt.Errorf("moving to cpu %d: %w", cpus[next], err)
			}
		}
	}
	return nil
}

// serveLoop answers every datagram to its sender.
func serveLoop(stop *atomic.Bool, s int) error {
	buf := make([]byte, 16)
	for !stop.Load() {
		_, from, err := unix.Recvfrom(s, buf, 0)
		if err != nil {
			return fmt.Errorf("server recvfrom: %w", err)
		}
		if err := unix.Sendto(s, one, 0, from); err != nil {
			return fmt.Errorf("server sendto: %w", err)
		}
	}
	return nil
}

// udpSocket binds a blocking UDP socket to a free loopback port.
func udpSocket() (fd, port int, err error) {
	fd, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("udp socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 0, 0, fmt.Errorf("udp bind: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return 0, 0, err
	}
	return fd, sa.(*unix.SockaddrInet4).Port, nil
}

// udpPair returns two loopback UDP sockets connected to each other.
func udpPair() (a, b int, err error) {
	a, pa, err := udpSocket()
	if err != nil {
		return 0, 0, err
	}
	b, pb, err := udpSocket()
	if err != nil {
		return 0, 0, err
	}
	lo := [4]byte{127, 0, 0, 1}
	if err := unix.Connect(a, &unix.SockaddrInet4{Port: pb, Addr: lo}); err != nil {
		return 0, 0, err
	}
	if err := unix.Connect(b, &unix.SockaddrInet4{Port: pa, Addr: lo}); err != nil {
		return 0, 0, err
	}
	return a, b, nil
}

// ServeLoad is the workload process: it runs the shape, prints its Load
// as one JSON line, and exits when its parent closes stdin (after reading
// the threads' schedstats).
func ServeLoad(stdout io.Writer, stdin io.Reader, shape string, pairs int, d time.Duration) error {
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2*pairs+2))
	l, err := RunLoad(shape, pairs, d)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(l)
	if _, err := fmt.Fprintf(stdout, "%s\n", b); err != nil {
		return err
	}
	io.Copy(io.Discard, stdin)
	return nil
}
