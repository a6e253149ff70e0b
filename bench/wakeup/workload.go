package wakeup

import (
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
)

// The workload: sysbench oltp against MySQL's thread-per-connection
// server, in the guest. Each sysbench thread is a client task with its own
// connection, served by its own server thread; a transaction is
// statements round trips. A client's burst formats a statement and sends
// it: the send wakes the server thread blocked in read() on the socket,
// with WF_SYNC (sock_def_readable() → wake_up_interruptible_sync_poll() →
// __wake_up_sync_key()), and the client blocks reading the reply. The
// server's burst executes it and sends the reply, which wakes the client
// the same way. With io set, the transaction's last statement (COMMIT)
// makes the server wait for a log flush: the completion is an interrupt
// on a cpu chosen as the guest's interrupts go (irq), and wakes the server
// without WF_SYNC from whatever runs there (the idle task, on an idle
// cpu: case 1 of the seed's patch).

// irq modes: where an I/O completion interrupt lands.
type irqMode int8

const (
	// irqIdle: an idle vCPU if there is one, else the next in turn. An
	// s390 guest's I/O interrupts are floating: KVM's
	// __floating_irq_kick() "find[s] idle VCPUs first, then round
	// robin".
	irqIdle irqMode = iota
	// irqCPU0: always cpu 0 (one virtqueue and one MSI-X vector, as a
	// 2017 x86 guest's virtio-blk had, its affinity the default).
	irqCPU0
	// irqLocal: the cpu that submitted the I/O (blk-mq completing on
	// the submitting cpu).
	irqLocal
)

var irqNames = []string{"idle", "cpu0", "local"}

type workload struct {
	server  []bool  // per task: a server thread
	other   []bool  // per task: one of the guest's other threads (SimConfig.Others), not counted
	tailing []bool  // per task: running its tail after a wakeup (SimConfig.Tail)
	partner []int   // per client: its server
	pending [][]int // per server: the clients whose statements wait, oldest first
	stmt    []int   // per client: the statement of its transaction it is on
	ioDone  []bool  // per client: this transaction's commit flush is done
	clients []int
	mx      *mutexTest // sysbench --test=threads; nil: oltp
	rr      int        // the round-robin cpu for irqIdle
	rng     uint64
	p       *params
}

// newWorkload creates threads client tasks and servers server tasks on k
// (servers == threads: MySQL's thread per connection, client i served by
// server i; 1: one server answering every client, the kernel oracle's UDP
// server shape), placed in creation order round the cpus (client 0,
// server 0, client 1, ...: fork and accept balancing spread new threads
// over idle cpus, so a pair starts apart), and starts every client.
func newWorkload(k *ksys, p *params) *workload {
	w := &workload{rng: p.seed*0x9E3779B97F4A7C15 | 1, p: p}
	n := int(len(k.cpus))
	add := func(server bool) *ktask {
		t := k.addTask(int(len(k.tasks)) % n)
		w.server = append(w.server, server)
		w.other = append(w.other, false)
		w.tailing = append(w.tailing, false)
		w.partner = append(w.partner, -1)
		w.pending = append(w.pending, nil)
		w.stmt = append(w.stmt, 0)
		w.ioDone = append(w.ioDone, false)
		return t
	}
	if p.test == testThreads {
		w.mx = newMutexTest(p)
		for range p.threads {
			w.clients = append(w.clients, add(false).ID)
		}
	}
	servers := make([]int, p.servers)
	for i := range p.threads * btoi(w.mx == nil) {
		cl := add(false)
		w.clients = append(w.clients, cl.ID)
		if i < p.servers {
			servers[i] = add(true).ID
		}
	}
	for i, cl := range w.clients {
		w.partner[cl] = servers[i%p.servers]
	}
	for range p.others {
		t := add(false)
		w.other[t.ID] = true
		k.push(k.now+w.draw(p.othersPeriod), evIRQ, t.CPU, int64(t.ID))
	}
	k.w = w
	for _, id := range w.clients {
		t := k.tasks[id]
		t.burst = w.burst(p.think)
		if w.mx != nil {
			t.burst = w.draw(p.lock)
		}
		t.wokenAt = k.now
		k.enqueue(t, k.cpus[t.CPU], t.CPU)
	}
	return w
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// draw is a burst of mean ns: uniform in [mean/2, 3·mean/2), so that
// pairs do not run in lockstep.
func (w *workload) draw(mean int64) int64 {
	r := bench.XorShift(&w.rng)
	return mean/2 + int64(r%uint64(max(mean, 1)))
}

// burst is a statement's burst before its send: the mean less the tail
// that follows the send.
func (w *workload) burst(mean int64) int64 { return w.draw(mean - w.p.tail) }

// A next is what a task does once its burst is done.
type next int8

const (
	block    next = iota // it sleeps
	runOn                // it goes on running its next burst (set)
	yieldCPU             // sched_yield(): behind the cpu's queued tasks, then its next burst (set)
)

// act is what task t does at the end of its burst on c.
func (w *workload) act(k *ksys, t *ktask, c *kcpu) next {
	if w.other[t.ID] {
		// Back to sleep on a timer, armed on this cpu (an hrtimer fires
		// where it was started).
		k.push(k.now+w.draw(w.p.othersPeriod), evIRQ, c.CPU, int64(t.ID))
		return block
	}
	if w.mx != nil {
		return w.mx.act(k, t, c)
	}
	if w.oltp(k, t, c) {
		return runOn
	}
	return block
}

// oltp is act for sysbench oltp's clients and servers: it reports whether
// t goes on running (a server with another statement waiting, its next
// burst set) rather than blocking.
func (w *workload) oltp(k *ksys, t *ktask, c *kcpu) bool {
	if w.tailing[t.ID] {
		// The tail is done: the task blocks, or a server with another
		// statement waiting goes on to it.
		w.tailing[t.ID] = false
		if w.server[t.ID] && len(w.pending[t.ID]) > 0 {
			t.burst = w.burst(w.p.service)
			return true
		}
		return false
	}
	if !w.server[t.ID] {
		// The client sends its statement and blocks on the reply; a
		// server already awake finds it waiting when it is done.
		sv := k.tasks[w.partner[t.ID]]
		w.pending[sv.ID] = append(w.pending[sv.ID], t.ID)
		if sv.State == ksim.TaskSleeping {
			sv.burst = w.burst(w.p.service)
			k.tryToWakeUp(sv, t, c, true)
		}
		return w.tail(t)
	}
	cl := w.pending[t.ID][0]
	last := w.stmt[cl] == w.p.statements-1
	if last && w.p.io > 0 && !w.ioDone[cl] {
		// COMMIT: the log flush; the server blocks until it completes.
		w.ioDone[cl] = true
		k.push(k.now+w.p.io, evIRQ, w.irqCPU(k, c), int64(t.ID))
		return false
	}
	w.pending[t.ID] = w.pending[t.ID][1:]
	k.c.statements++
	w.stmt[cl]++
	if w.stmt[cl] == w.p.statements {
		w.stmt[cl] = 0
		w.ioDone[cl] = false
		k.c.transactions++
	}
	peer := k.tasks[cl]
	peer.burst = w.burst(w.p.think)
	k.tryToWakeUp(peer, t, c, true)
	if w.tail(t) {
		return true
	}
	if len(w.pending[t.ID]) > 0 {
		t.burst = w.burst(w.p.service) // the next statement, without sleeping
		return true
	}
	return false
}

// tail starts t's run after its send, if there is one: it reports whether
// t goes on running.
func (w *workload) tail(t *ktask) bool {
	if w.p.tail <= 0 {
		return false
	}
	w.tailing[t.ID] = true
	t.burst = w.p.tail
	return true
}

// irqCPU is where the completion of an I/O submitted on c will land,
// chosen at submission (the model does not move it if cpus change state
// meanwhile).
func (w *workload) irqCPU(k *ksys, c *kcpu) int {
	switch w.p.irq {
	case irqCPU0:
		return 0
	case irqLocal:
		return c.CPU
	case irqIdle:
		return -1 // chosen when it fires
	}
	panic("wakeup: unknown irq mode") // runs() checked it
}

// irq is the completion interrupt for server t on cpu c (c nil: choose
// now): it wakes t, without WF_SYNC, from whatever c runs.
func (w *workload) irq(k *ksys, t *ktask, c *kcpu) {
	if c == nil {
		c = w.idleFirst(k)
	}
	current := c.idleTask
	if c.Curr != nil {
		current = k.tasks[c.Curr.ID]
	}
	if w.other[t.ID] {
		t.burst = w.draw(w.p.othersBurst)
		k.tryToWakeUp(t, current, c, false)
		return
	}
	k.c.irqWakeups++
	if c.Curr == nil && c.idle() {
		k.c.idleWakers++
	}
	t.burst = w.draw(w.p.service / 4) // the commit's end after the flush
	k.tryToWakeUp(t, current, c, false)
}

// idleFirst is __floating_irq_kick(): the first idle vCPU, else round
// robin.
func (w *workload) idleFirst(k *ksys) *kcpu {
	for _, c := range k.cpus {
		if c.idle() {
			return c
		}
	}
	w.rr = (w.rr + 1) % int(len(k.cpus))
	return k.cpus[w.rr]
}
