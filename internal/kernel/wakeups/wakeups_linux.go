package wakeups

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/contend/contend/internal/kernel"
	"github.com/contend/contend/internal/kernel/machine"
	"github.com/contend/contend/internal/kernel/schedstat"
)

// Config is a run of the wakeup model's workload on the running
// kernel (bench/wakeup's shape): client threads that burn Think, send a
// query over loopback UDP and sleep on the reply; server threads that
// sleep on their socket, burn Service and reply. Each send wakes the
// sleeper with WF_SYNC (udp's sk_data_ready is sock_def_readable() →
// wake_up_interruptible_sync_poll()). Client i is served by server
// i mod Servers, so Servers = Clients is MySQL's thread per connection and
// Servers = 1 the oracle's one server answering every client. Nothing is
// pinned. Self is contend's own binary (os.Executable's where empty):
// each thread is a process of its own (Worker; see there for why).
type Config struct {
	Root             string // "/" live
	Self             string
	Clients, Servers int
	Think, Service   time.Duration
	Warmup, Duration time.Duration
	// NoWakeTrace leaves the wake trace out (kernel.TraceWakes: a kprobe
	// and a kretprobe on select_task_rq_fair(), recording the counted
	// window); WakeTrace, where set, is the file its records are saved to.
	NoWakeTrace bool
	WakeTrace   string
}

// Check says what is wrong with the config's numbers, if anything.
func (cfg Config) Check() error {
	if cfg.Clients < 1 || cfg.Servers < 1 || cfg.Servers > cfg.Clients {
		return fmt.Errorf("clients %d, servers %d: want 1 ≤ servers ≤ clients", cfg.Clients, cfg.Servers)
	}
	if cfg.Think <= 0 || cfg.Service <= 0 || cfg.Duration <= 0 || cfg.Warmup < 0 {
		return fmt.Errorf("think %s, service %s, duration %s, warmup %s: want all positive (warmup may be 0)",
			cfg.Think, cfg.Service, cfg.Duration, cfg.Warmup)
	}
	return nil
}

// Measure turns schedstats on (restored after), starts the workload,
// lets it run for Warmup, reads the counters, lets it run for Duration,
// reads them again, and kills it.
func Measure(ctx context.Context, cfg Config) (w *Run, err error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.Root == "" {
		cfg.Root = "/"
	}
	if cfg.Self == "" {
		if cfg.Self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding contend's own binary for the workload: %w", err)
		}
	}
	// The count's lock: its stale sweep would otherwise restore the
	// schedstats sysctl this run set, while it still reads them.
	lock, err := machine.TakeLock(cfg.Root, "kernel wakeups")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	u := machine.NewUndo(os.Stderr)
	defer func() { err = errors.Join(err, u.Run()) }()
	if err := machine.Sysctl(u, cfg.Root, "kernel.sched_schedstats", "1"); err != nil {
		return nil, err
	}
	if err := loopbackUp(u); err != nil {
		return nil, err
	}
	w = &Run{Clients: cfg.Clients, Servers: cfg.Servers, ThinkNs: cfg.Think.Nanoseconds(),
		ServeNs: cfg.Service.Nanoseconds(), WarmupNs: cfg.Warmup.Nanoseconds()}
	if s, err := readTrim(filepath.Join(cfg.Root, "proc/sys/kernel/osrelease")); err == nil {
		w.Kernel = s
	}
	cpus, err := kernel.OnlineCPUs(cfg.Root)
	if err != nil {
		return nil, err
	}
	w.CPUs = len(cpus)
	w.LLCSize = llcSize(cfg.Root)
	var wake *kernel.WakeTracer
	if !cfg.NoWakeTrace {
		var note string
		if wake, note = kernel.TraceWakes(u, cfg.Root); note != "" {
			w.Notes = append(w.Notes, note)
		}
	}

	// The workers' counters, shared with each: per slot (clients, then
	// servers) statements done, and ns spent in and number of sends.
	counts, err := os.CreateTemp("", "contend-wakeups-")
	if err != nil {
		return nil, err
	}
	os.Remove(counts.Name())
	defer counts.Close()
	slots := cfg.Clients + cfg.Servers
	if err := counts.Truncate(int64(slotBytes * slots)); err != nil {
		return nil, err
	}
	page, err := unix.Mmap(int(counts.Fd()), 0, slotBytes*slots, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the statement counters: %w", err)
	}
	defer unix.Munmap(page)
	word := func(slot, i int) uint64 { return (*atomic.Uint64)(unsafe.Pointer(&page[slotBytes*slot+8*i])).Load() }
	statements := func() (n uint64) {
		for i := range cfg.Clients {
			n += word(i, 0)
		}
		return n
	}
	// sends sums the send syscalls' time and count, clients' and servers'.
	sends := func() (s [2][2]float64) {
		for i := range slots {
			side := 0
			if i >= cfg.Clients {
				side = 1
			}
			s[side][0] += float64(word(i, 1))
			s[side][1] += float64(word(i, 2))
		}
		return s
	}

	var socks []*os.File
	defer func() {
		for _, f := range socks {
			f.Close()
		}
	}()
	ports := make([]int, cfg.Servers)
	var procs []*exec.Cmd
	defer func() {
		for _, c := range procs {
			c.Process.Kill()
			c.Wait()
		}
	}()
	spawn := func(role string, sock *os.File, spinFor time.Duration, slot int) error {
		cmd := exec.CommandContext(ctx, cfg.Self, "kernel", "wakeup-worker", "-role", role, "-spin", spinFor.String(), "-slot", strconv.Itoa(slot))
		cmd.ExtraFiles = []*os.File{sock, counts}
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "GOGC=off", "GODEBUG=asyncpreemptoff=1")
		cmd.Stderr = os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting a %s: %w", role, err)
		}
		procs = append(procs, cmd)
		return nil
	}
	for i := range ports {
		fd, port, err := wakeSocket()
		if err != nil {
			return nil, err
		}
		ports[i] = port
		f := os.NewFile(uintptr(fd), "server")
		socks = append(socks, f)
		if err := spawn("server", f, cfg.Service, cfg.Clients+i); err != nil {
			return nil, err
		}
	}
	for i := range cfg.Clients {
		fd, _, err := wakeSocket()
		if err != nil {
			return nil, err
		}
		f := os.NewFile(uintptr(fd), "client")
		socks = append(socks, f)
		if err := unix.Connect(fd, &unix.SockaddrInet4{Port: ports[i%cfg.Servers], Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			return nil, fmt.Errorf("udp connect: %w", err)
		}
		if err := spawn("client", f, cfg.Think, i); err != nil {
			return nil, err
		}
	}
	// The servers come first in procs; the report sums clients and
	// servers apart.
	pids := make([]int, len(procs))
	for i, c := range procs {
		pids[i] = c.Process.Pid
	}
	wait := func(d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	if err := wait(cfg.Warmup); err != nil {
		return nil, err
	}
	tids := map[int]string{}
	s0, c0, o0, ss0, err := readWakeCounters(cfg.Root, pids, cfg.Servers, tids)
	if err != nil {
		return nil, err
	}
	if wake != nil {
		if err := wake.Record(true); err != nil {
			w.Notes = append(w.Notes, "no wake trace: recording: "+err.Error())
			wake = nil
		}
	}
	n0, t0, sd0 := statements(), time.Now(), sends()
	if err := wait(cfg.Duration); err != nil {
		return nil, err
	}
	s1, c1, o1, ss1, err := readWakeCounters(cfg.Root, pids, cfg.Servers, tids)
	if err != nil {
		return nil, err
	}
	if wake != nil {
		if err := wake.Record(false); err != nil {
			w.Notes = append(w.Notes, "no wake trace: stopping it: "+err.Error())
			wake = nil
		}
	}
	w.Seconds, w.Statements = time.Since(t0).Seconds(), statements()-n0
	if sd1 := sends(); sd1[0][1] > sd0[0][1] && sd1[1][1] > sd0[1][1] {
		w.ClientSendNs = (sd1[0][0] - sd0[0][0]) / (sd1[0][1] - sd0[0][1])
		w.ServerSendNs = (sd1[1][0] - sd0[1][0]) / (sd1[1][1] - sd0[1][1])
	}
	w.Client, w.Server = sub(c1, c0), sub(s1, s0)
	w.Sched = ss1.Sub(ss0)
	w.NewidleLBCostNs = newidleCost(u, cfg.Root)
	w.Others = schedstat.Task{}
	for path, ts := range o1 {
		d := sub(ts, o0[path]) // a thread born in the window counts from zero
		if d["nr_wakeups"] > 0 {
			w.OtherThreads++
		}
		for _, k := range schedstat.TaskCounters {
			w.Others[k] += d[k]
		}
	}
	for _, c := range procs {
		if c.ProcessState != nil {
			return nil, fmt.Errorf("a workload process exited early: %s", c.ProcessState)
		}
	}
	if wake != nil {
		w.Wakes, w.Notes = readWakes(wake, tids, cfg.WakeTrace, w.Notes)
	}
	return w, nil
}

// readWakes sums the wake trace's records of the workload's threads
// (tids' values: each process's /proc/PID/task/TID/sched), adding a note
// where it could not be read or saved: the run stands without it.
func readWakes(wake *kernel.WakeTracer, tids map[int]string, save string, notes []string) (*kernel.WakeTrace, []string) {
	var ids []int
	for _, path := range tids {
		if tid, err := strconv.Atoi(filepath.Base(filepath.Dir(path))); err == nil {
			ids = append(ids, tid)
		}
	}
	t, saveErr, err := wake.Read(ids, save)
	if saveErr != nil {
		notes = append(notes, "wake trace not saved: "+saveErr.Error())
	}
	if err != nil {
		return nil, append(notes, "wake trace not read: "+err.Error())
	}
	if t.Lost > 0 {
		notes = append(notes, fmt.Sprintf("wake trace: the ring buffer overwrote %d records: its shares cover the window's end only", t.Lost))
	}
	return t, notes
}

// slotBytes is a worker's share of the counters: statements, send ns,
// sends.
const slotBytes = 24

// Worker is one thread of Measure's workload, a process of its
// own: a client (sock a connected UDP socket) or a server (sock bound),
// spinning spin before each send; it counts in its slot of counts (a
// client its statements) and times each send syscall, in which the
// wakeup of its partner happens. Started as Measure starts it (GOMAXPROCS=1,
// GOGC=off, GODEBUG=asyncpreemptoff=1), it never returns.
//
// Why processes, and raw syscalls: the thread the kernel sees must wake
// its partner and nobody else. Go's own syscall path hands a blocked
// thread's P to another M and wakes it (handoffp, startm), and sysmon
// preempts a goroutine that holds a P 10 ms without rescheduling; a
// goroutine locked to its thread then parks the thread and has another
// wake it (stoplockedm, startlockedm). Each such wakeup is a
// record_wakee() flip on the workload's thread, and with sd_llc_size 1 as
// wake_wide()'s factor one flip on each side of a pair makes every wakeup
// "wide", so wake_affine() is never called — a workload the model does not
// run. Here the only goroutine of a one-P process makes raw syscalls
// (the runtime never sees them; the P stays held), so sysmon's preemption
// finds no other P or M to involve and the goroutine resumes on its own
// thread; the collector, which would need to stop a thread blocked in a
// raw syscall, is off, as is the signal of asynchronous preemption.
func Worker(role string, sock, counts *os.File, spinFor time.Duration, slot int) error {
	fd := int(sock.Fd())
	buf := make([]byte, 16)
	page, err := unix.Mmap(int(counts.Fd()), 0, slotBytes*(slot+1), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mapping the counters: %w", err)
	}
	n := (*atomic.Uint64)(unsafe.Pointer(&page[slotBytes*slot]))
	sendNs := (*atomic.Uint64)(unsafe.Pointer(&page[slotBytes*slot+8]))
	nsend := (*atomic.Uint64)(unsafe.Pointer(&page[slotBytes*slot+16]))
	switch role {
	case "client":
		for {
			spin(spinFor)
			t := time.Now()
			if _, err := rawRW(unix.SYS_WRITE, fd, wakeByte); err != nil {
				return fmt.Errorf("client send: %w", err)
			}
			sendNs.Add(uint64(time.Since(t)))
			nsend.Add(1)
			if _, err := rawRW(unix.SYS_READ, fd, buf); err != nil {
				return fmt.Errorf("client receive: %w", err)
			}
			n.Add(1)
		}
	case "server":
		var from unix.RawSockaddrAny
		for {
			fromLen := uint32(unsafe.Sizeof(from))
			_, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0,
				uintptr(unsafe.Pointer(&from)), uintptr(unsafe.Pointer(&fromLen)))
			if e == unix.EINTR {
				continue
			}
			if e != 0 {
				return fmt.Errorf("server receive: %w", e)
			}
			spin(spinFor)
			t := time.Now()
			for {
				_, _, e = unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&wakeByte[0])), 1, 0,
					uintptr(unsafe.Pointer(&from)), uintptr(fromLen))
				if e != unix.EINTR {
					break
				}
			}
			if e != 0 {
				return fmt.Errorf("server reply: %w", e)
			}
			sendNs.Add(uint64(time.Since(t)))
			nsend.Add(1)
		}
	}
	return fmt.Errorf("role %q: want client or server", role)
}

// spin burns d of wall time on this thread: the cpu burst of a statement.
// Wall time, not the thread's cpu clock (a syscall per read, which would
// itself be most of the burst in a TCG guest); the burst's real cpu time
// is measured after, as sum_exec_runtime.
func spin(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
	}
}

func rawRW(trap uintptr, fd int, b []byte) (int, error) {
	for {
		n, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}

// readWakeCounters sums the sched files of the servers' processes
// (pids[:servers]) and of the clients', and reads /proc/schedstat. Of each
// process it reads its busiest thread, the one with the most voluntary
// switches (the worker's: the runtime's own threads, sysmon's timer
// sleeps aside, do nothing in it).
//
// tids keeps the thread chosen per process at the first read, so that the
// second reads the same one.
func readWakeCounters(root string, pids []int, servers int, tids map[int]string) (s, c schedstat.Task, others map[string]schedstat.Task, ss *schedstat.Stats, err error) {
	s, c, others = schedstat.Task{}, schedstat.Task{}, map[string]schedstat.Task{}
	for i, pid := range pids {
		tasks, _ := filepath.Glob(filepath.Join(root, "proc", strconv.Itoa(pid), "task", "*", "sched"))
		var best schedstat.Task
		var bestPath string
		all := map[string]schedstat.Task{}
		for _, path := range tasks {
			f, err := os.Open(path)
			if err != nil {
				continue // a runtime thread gone
			}
			ts, err := schedstat.ParseTask(f)
			f.Close()
			if err != nil {
				return nil, nil, nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			if _, ok := ts["nr_wakeups_affine"]; !ok {
				return nil, nil, nil, nil, fmt.Errorf("%s has no nr_wakeups_affine: is the kernel built with CONFIG_SCHEDSTATS, and kernel.sched_schedstats 1?", path)
			}
			all[path] = ts
			if best == nil || ts["nr_voluntary_switches"] > best["nr_voluntary_switches"] {
				best, bestPath = ts, path
			}
		}
		if best == nil {
			return nil, nil, nil, nil, fmt.Errorf("workload process %d: no thread to read", pid)
		}
		if t, ok := tids[pid]; ok && all[t] != nil {
			best, bestPath = all[t], t
		}
		tids[pid] = bestPath
		for path, ts := range all {
			if path != bestPath {
				others[path] = ts
			}
		}
		sum := c
		if i < servers {
			sum = s
		}
		for _, k := range schedstat.TaskCounters {
			sum[k] += best[k]
		}
	}
	f, err := os.Open(filepath.Join(root, "proc/schedstat"))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	defer f.Close()
	if ss, err = schedstat.Parse(f); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("/proc/schedstat: %w", err)
	}
	return s, c, others, ss, nil
}

func sub(t, o schedstat.Task) schedstat.Task {
	d := schedstat.Task{}
	for k, v := range t {
		d[k] = v - o[k]
	}
	return d
}

// llcSize is how many cpus share cpu0's last-level cache (its highest
// cache index), 1 where sysfs says nothing.
func llcSize(root string) int {
	idx, _ := filepath.Glob(filepath.Join(root, "sys/devices/system/cpu/cpu0/cache/index*/shared_cpu_list"))
	if len(idx) == 0 {
		return 1
	}
	last := idx[len(idx)-1] // index0..index3 sort in order
	s, err := readTrim(last)
	if err != nil {
		return 1
	}
	n := 0
	for _, r := range strings.Split(s, ",") {
		lo, hi, found := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if found {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil {
			return 1
		}
		n += b - a + 1
	}
	return max(n, 1)
}

// newidleCost is the mean over cpus and levels of sched_domain's
// max_newidle_lb_cost (6.1's debugfs sched/domains/cpuN/domainM/), the
// cost newidle_balance() weighs against avg_idle; debugfs is mounted for
// the read where it is not. 0 where it cannot be read.
func newidleCost(u *machine.Undo, root string) float64 {
	pattern := filepath.Join(root, "sys/kernel/debug/sched/domains/cpu*/domain*/max_newidle_lb_cost")
	files, _ := filepath.Glob(pattern)
	if len(files) == 0 {
		if err := machine.Mount(u, root, "debugfs", "sys/kernel/debug"); err != nil {
			return 0
		}
		files, _ = filepath.Glob(pattern)
	}
	var sum float64
	var n int
	for _, f := range files {
		s, err := readTrim(f)
		if err != nil {
			continue
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// loopbackUp brings lo up where it is down (a minimal guest's /init
// configures no interface), and records taking it down again.
func loopbackUp(u *machine.Undo) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket for lo's flags: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("lo's flags: %w", err)
	}
	flags := ifr.Uint16()
	if flags&unix.IFF_UP != 0 {
		return nil
	}
	set := func(f uint16) error {
		s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(s)
		r, err := unix.NewIfreq("lo")
		if err != nil {
			return err
		}
		r.SetUint16(f)
		return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, r)
	}
	if err := set(flags | unix.IFF_UP); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	u.Push("lo down", func() error { return set(flags) })
	return nil
}

// wakeByte is every query and reply.
var wakeByte = []byte{1}

// wakeSocket binds a blocking UDP socket to a free loopback port.
func wakeSocket() (fd, port int, err error) {
	fd, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("udp socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return 0, 0, fmt.Errorf("udp bind: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return 0, 0, err
	}
	return fd, sa.(*unix.SockaddrInet4).Port, nil
}

// readTrim reads a one-value kernel file.
func readTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}
