// Package sysbench is seed 004's workloads as tasks that run, wake and
// sleep on a simulated kernel: sysbench oltp against MySQL's
// thread-per-connection server, and sysbench's threads test (threads.go).
// It says what each task does at the end of each burst and whom it wakes;
// the kernel it runs on (bench/wakeup's model, through Kernel) says where
// the woken task runs and when. It is apart from the model because it is
// the seed's benchmark, not the scheduler: the same workload runs on each
// kernel version the model has.
//
// oltp: each sysbench thread is a client task with its own connection,
// served by its own server thread; a transaction is Statements round
// trips. A client's burst formats a statement and sends it: the send wakes
// the server thread blocked in read() on the socket, with WF_SYNC
// (sock_def_readable() → wake_up_interruptible_sync_poll() →
// __wake_up_sync_key()), and the client blocks reading the reply. The
// server's burst executes it and sends the reply, which wakes the client
// the same way. With IO set, the transaction's last statement (COMMIT)
// makes the server wait for a log flush: the completion is an interrupt on
// a cpu chosen as the guest's interrupts go (IRQ), and wakes the server
// without WF_SYNC from whatever runs there (the idle task, on an idle cpu:
// case 1 of the seed's patch). bench/wakeup's SimConfig says where each
// default comes from.
package sysbench

import "github.com/contend/contend/bench"

// A Kernel is what the workload asks of the simulated kernel. Tasks and
// cpus are numbered from 0.
type Kernel interface {
	Now() int64
	CPUs() int
	// NewTask creates a sleeping task whose task_cpu() is cpu.
	NewTask(cpu int) (id int)
	TaskCPU(id int) int
	Sleeping(id int) bool
	// SetBurst sets the cpu time the task runs before its next Act.
	SetBurst(id int, ns int64)
	// Start makes a new task runnable on its cpu.
	Start(id int)
	// Wake is try_to_wake_up(id) by whatever runs on cpu (a task, or the
	// cpu's idle task), with WF_SYNC or not.
	Wake(id, cpu int, sync bool)
	// Interrupt arms an interrupt at at on cpu (-1: chosen when it fires,
	// Workload.Pick) that calls Workload.Interrupt for task id.
	Interrupt(at int64, cpu, id int)
	// Idle is idle_cpu(cpu); Running says a task runs there.
	Idle(cpu int) bool
	Running(cpu int) bool
	// Count counts one of the workload's events.
	Count(Event)
}

// An Event is what the workload counts through Kernel.Count.
type Event int8

const (
	Statement   Event = iota // a server answered a statement
	Transaction              // a client's transaction (the threads test's event) is done
	IRQWakeup                // a commit's completion interrupt wakes its server
	IdleWaker                // ... on a cpu that was idle (the patch's first case)
)

// Tests are sysbench's --test values: oltp and threads.
var Tests = []string{"oltp", "threads"}

const (
	testOLTP = iota
	testThreads
)

// IRQs are where an I/O completion interrupt lands: idle (an idle vCPU if
// there is one, else the next in turn: an s390 guest's I/O interrupts are
// floating, and KVM's __floating_irq_kick() "find[s] idle VCPUs first,
// then round robin"), cpu0 (one virtqueue and one MSI-X vector, as a 2017
// x86 guest's virtio-blk had, its affinity the default) or local (the cpu
// that submitted the I/O: blk-mq completing on the submitting cpu).
var IRQs = []string{"idle", "cpu0", "local"}

const (
	irqIdle = iota
	irqCPU0
	irqLocal
)

// A Config is the workload, in ns of kernel time; Test and IRQ index Tests
// and IRQs.
type Config struct {
	Seed                      uint64
	Test                      int
	Threads, Servers          int
	Statements                int
	Think, Service, Tail, IO  int64
	IRQ                       int
	Others                    int
	OthersPeriod, OthersBurst int64
	Locks, Yields             int
	Lock, Yield               int64
}

// A Workload is the tasks' state: who serves whom, what waits, where each
// client is in its transaction.
type Workload struct {
	server  []bool  // per task: a server thread
	other   []bool  // per task: one of the guest's other threads (Config.Others), not counted
	tailing []bool  // per task: running its tail after a wakeup (Config.Tail)
	replied []bool  // per client: its reply came while it ran its tail
	flushes []bool  // per server: asleep on its commit's log flush, not on its socket
	partner []int   // per client: its server
	pending [][]int // per server: the clients whose statements wait, oldest first
	stmt    []int   // per client: the statement of its transaction it is on
	ioDone  []bool  // per client: this transaction's commit flush is done
	clients []int
	mx      *mutexTest // sysbench --test=threads; nil: oltp
	rr      int        // the round-robin cpu for irqIdle
	rng     uint64
	p       *Config
	k       Kernel
}

// New creates Threads client tasks and Servers server tasks on k (Servers
// == Threads: MySQL's thread per connection, client i served by server i;
// 1: one server answering every client, the kernel oracle's UDP server
// shape), placed in creation order round the cpus (client 0, server 0,
// client 1, ...: fork and accept balancing spread new threads over idle
// cpus, so a pair starts apart), and the Others, and starts every client.
func New(k Kernel, p *Config) *Workload {
	w := &Workload{rng: p.Seed*0x9E3779B97F4A7C15 | 1, p: p, k: k}
	n := k.CPUs()
	tasks := 0
	add := func(server bool) int {
		id := k.NewTask(tasks % n)
		tasks++
		w.server = append(w.server, server)
		w.other = append(w.other, false)
		w.tailing = append(w.tailing, false)
		w.replied = append(w.replied, false)
		w.flushes = append(w.flushes, false)
		w.partner = append(w.partner, -1)
		w.pending = append(w.pending, nil)
		w.stmt = append(w.stmt, 0)
		w.ioDone = append(w.ioDone, false)
		return id
	}
	if p.Test == testThreads {
		w.mx = newMutexTest(p)
		for range p.Threads {
			w.clients = append(w.clients, add(false))
		}
	}
	servers := make([]int, p.Servers)
	for i := range p.Threads * btoi(w.mx == nil) {
		cl := add(false)
		w.clients = append(w.clients, cl)
		if i < p.Servers {
			servers[i] = add(true)
		}
	}
	for i, cl := range w.clients {
		w.partner[cl] = servers[i%p.Servers]
	}
	for range p.Others {
		id := add(false)
		w.other[id] = true
		k.Interrupt(k.Now()+w.draw(p.OthersPeriod), k.TaskCPU(id), id)
	}
	for _, id := range w.clients {
		b := w.burst(p.Think)
		if w.mx != nil {
			b = w.draw(p.Lock)
		}
		k.SetBurst(id, b)
		k.Start(id)
	}
	return w
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Other says whether task id is one of the guest's other threads, whose
// wakeups and moves count nowhere.
func (w *Workload) Other(id int) bool { return w.other[id] }

// Client reports the server of client id and the statement of its
// transaction it is on; Pending the statements waiting for server id.
func (w *Workload) Client(id int) (server, stmt int) { return w.partner[id], w.stmt[id] }
func (w *Workload) Pending(id int) int               { return len(w.pending[id]) }

// Clients are the client tasks (the threads test's threads).
func (w *Workload) Clients() []int { return w.clients }

// draw is a burst of mean ns: uniform in [mean/2, 3·mean/2), so that
// pairs do not run in lockstep.
func (w *Workload) draw(mean int64) int64 {
	r := bench.XorShift(&w.rng)
	return mean/2 + int64(r%uint64(max(mean, 1)))
}

// burst is a statement's burst before its send: the mean less the tail
// that follows the send.
func (w *Workload) burst(mean int64) int64 { return w.draw(mean - w.p.Tail) }

// A Next is what a task does once its burst is done.
type Next int8

const (
	Block Next = iota // it sleeps
	RunOn             // it goes on running its next burst (set)
	Yield             // sched_yield(): behind the cpu's queued tasks, then its next burst (set)
)

// Act is what task id, running on cpu, does at the end of its burst.
func (w *Workload) Act(id, cpu int) Next {
	if w.other[id] {
		// Back to sleep on a timer, armed on this cpu (an hrtimer fires
		// where it was started).
		w.k.Interrupt(w.k.Now()+w.draw(w.p.OthersPeriod), cpu, id)
		return Block
	}
	if w.mx != nil {
		return w.mx.act(w, id, cpu)
	}
	if w.oltp(id, cpu) {
		return RunOn
	}
	return Block
}

// oltp is Act for sysbench oltp's clients and servers: it reports whether
// t goes on running (a server with another statement waiting, its next
// burst set) rather than blocking.
func (w *Workload) oltp(t, cpu int) bool {
	k := w.k
	if w.tailing[t] {
		// The tail is done: the task blocks, or a server with another
		// statement waiting goes on to it.
		w.tailing[t] = false
		if w.replied[t] {
			// The reply is in its socket: recv() returns at once.
			w.replied[t] = false
			k.SetBurst(t, w.burst(w.p.Think))
			return true
		}
		if w.server[t] && len(w.pending[t]) > 0 {
			k.SetBurst(t, w.burst(w.p.Service))
			return true
		}
		return false
	}
	if !w.server[t] {
		// The client sends its statement and blocks on the reply; a
		// server already awake finds it waiting when it is done.
		sv := w.partner[t]
		w.pending[sv] = append(w.pending[sv], t)
		if k.Sleeping(sv) && !w.flushes[sv] {
			k.SetBurst(sv, w.burst(w.p.Service))
			k.Wake(sv, cpu, true)
		}
		return w.tail(t)
	}
	cl := w.pending[t][0]
	last := w.stmt[cl] == w.p.Statements-1
	if last && w.p.IO > 0 && !w.ioDone[cl] {
		// COMMIT: the log flush; the server blocks until it completes.
		w.ioDone[cl] = true
		w.flushes[t] = true // its socket's statements wait for the flush
		k.Interrupt(k.Now()+w.p.IO, w.irqCPU(cpu), t)
		return false
	}
	w.pending[t] = w.pending[t][1:]
	k.Count(Statement)
	w.stmt[cl]++
	if w.stmt[cl] == w.p.Statements {
		w.stmt[cl] = 0
		w.ioDone[cl] = false
		k.Count(Transaction)
	}
	if k.Sleeping(cl) {
		k.SetBurst(cl, w.burst(w.p.Think))
		k.Wake(cl, cpu, true)
	} else {
		// The client is still in its tail (queued behind this server
		// on one cpu, say): the reply waits in its socket for the
		// recv() it is on its way to, which then does not sleep (the
		// kernel's wakeup of a task not yet asleep, ttwu_runnable()).
		// A Wake here would be lost (tryToWakeUp wakes only sleepers),
		// and the pair with it.
		w.replied[cl] = true
	}
	if w.tail(t) {
		return true
	}
	if len(w.pending[t]) > 0 {
		k.SetBurst(t, w.burst(w.p.Service)) // the next statement, without sleeping
		return true
	}
	return false
}

// tail starts t's run after its send, if there is one: it reports whether
// t goes on running.
func (w *Workload) tail(t int) bool {
	if w.p.Tail <= 0 {
		return false
	}
	w.tailing[t] = true
	w.k.SetBurst(t, w.p.Tail)
	return true
}

// irqCPU is where the completion of an I/O submitted on cpu will land,
// chosen at submission (the model does not move it if cpus change state
// meanwhile).
func (w *Workload) irqCPU(cpu int) int {
	switch w.p.IRQ {
	case irqCPU0:
		return 0
	case irqLocal:
		return cpu
	case irqIdle:
		return -1 // chosen when it fires
	}
	panic("sysbench: unknown irq mode") // the config's reader checked it
}

// Interrupt is the interrupt armed for task id firing on cpu (-1: choose
// now): a commit's completion wakes its server, a timer one of the other
// threads, without WF_SYNC, from whatever runs on the cpu.
func (w *Workload) Interrupt(id, cpu int) {
	k := w.k
	if cpu < 0 {
		cpu = w.idleFirst()
	}
	if w.other[id] {
		k.SetBurst(id, w.draw(w.p.OthersBurst))
		k.Wake(id, cpu, false)
		return
	}
	k.Count(IRQWakeup)
	if !k.Running(cpu) && k.Idle(cpu) {
		k.Count(IdleWaker)
	}
	w.flushes[id] = false
	k.SetBurst(id, w.draw(w.p.Service/4)) // the commit's end after the flush
	k.Wake(id, cpu, false)
}

// idleFirst is __floating_irq_kick(): the first idle vCPU, else round
// robin.
func (w *Workload) idleFirst() int {
	n := w.k.CPUs()
	for c := range n {
		if w.k.Idle(c) {
			return c
		}
	}
	w.rr = (w.rr + 1) % n
	return w.rr
}
