package sysbench

import "testing"

// fakeKernel is one cpu running its runnable tasks in turn, each to the
// end of its burst, with no time passing: enough to drive the workload's
// state machine and count what it does.
type fakeKernel struct {
	cpu      []int // per task
	sleeping []bool
	burst    []int64
	queue    []int // runnable, in turn
	counts   [4]int
	irqs     int
	syncs    int
	wakes    int
}

func (k *fakeKernel) Now() int64 { return 0 }
func (k *fakeKernel) CPUs() int  { return 2 }
func (k *fakeKernel) NewTask(cpu int) int {
	k.cpu, k.sleeping, k.burst = append(k.cpu, cpu), append(k.sleeping, true), append(k.burst, 0)
	return len(k.cpu) - 1
}
func (k *fakeKernel) TaskCPU(id int) int        { return k.cpu[id] }
func (k *fakeKernel) Sleeping(id int) bool      { return k.sleeping[id] }
func (k *fakeKernel) SetBurst(id int, ns int64) { k.burst[id] = ns }
func (k *fakeKernel) Start(id int)              { k.sleeping[id] = false; k.queue = append(k.queue, id) }
func (k *fakeKernel) Wake(id, cpu int, sync bool) {
	if !k.sleeping[id] {
		return
	}
	k.wakes++
	if sync {
		k.syncs++
	}
	k.Start(id)
}
func (k *fakeKernel) Interrupt(at int64, cpu, id int) { k.irqs++ }
func (k *fakeKernel) Idle(cpu int) bool               { return false }
func (k *fakeKernel) Running(cpu int) bool            { return true }
func (k *fakeKernel) Count(e Event)                   { k.counts[e]++ }

// run runs n bursts.
func (k *fakeKernel) run(w *Workload, n int) {
	for range n {
		if len(k.queue) == 0 {
			return
		}
		id := k.queue[0]
		k.queue = k.queue[1:]
		switch w.Act(id, k.cpu[id]) {
		case Block:
			k.sleeping[id] = true
		default:
			k.queue = append(k.queue, id)
		}
	}
}

// oltp: clients and their servers take turns, every wakeup WF_SYNC; each
// statement is answered once, and Statements of them make a transaction.
func TestOLTP(t *testing.T) {
	for _, servers := range []int{3, 1} {
		k := &fakeKernel{}
		w := New(k, &Config{Seed: 1, Threads: 3, Servers: servers, Statements: 4, Think: 1000, Service: 4000, Locks: 1, Yields: 1, Lock: 1, Yield: 1})
		k.run(w, 1000)
		done := 0
		for _, cl := range w.Clients() {
			sv, stmt := w.Client(cl)
			done += stmt
			if servers == 1 && sv != w.partner[w.Clients()[0]] {
				t.Errorf("one server: client %d served by %d", cl, sv)
			}
		}
		if k.counts[Transaction] == 0 || k.counts[Statement] != 4*k.counts[Transaction]+done || k.syncs != k.wakes {
			t.Errorf("servers %d: %d statements, %d transactions, %d in progress, %d of %d wakeups sync",
				servers, k.counts[Statement], k.counts[Transaction], done, k.syncs, k.wakes)
		}
	}
}

// A reply that comes while its client still runs its tail (here the
// fake kernel runs the server before the tailing client, as a wakee that
// preempts its waker does) is kept for the client's recv(), which then
// does not sleep: the pair goes on. Dropped (a Wake of a task not
// asleep), both would sleep for good.
func TestOLTPReplyDuringTail(t *testing.T) {
	k := &fakeKernel{}
	w := New(k, &Config{Seed: 1, Threads: 1, Servers: 1, Statements: 4, Think: 1000, Service: 4000, Tail: 100})
	k.run(w, 1000)
	if k.counts[Statement] < 100 || len(k.queue) == 0 {
		t.Errorf("%d statements in 1000 bursts, %d tasks runnable at the end: the pair stalled", k.counts[Statement], len(k.queue))
	}
}

// The threads test: a mutex's owner holds it, events are Yields rounds, no
// wakeup is WF_SYNC, and a waiter sleeps until the unlock wakes it.
func TestThreads(t *testing.T) {
	k := &fakeKernel{}
	w := New(k, &Config{Seed: 1, Test: testThreads, Threads: 4, Servers: 4, Locks: 2, Yields: 3, Lock: 200, Yield: 1000})
	for range 200 {
		k.run(w, 1)
		m := w.mx
		for i, o := range m.owner {
			if o >= 0 && !m.holding[o] {
				t.Fatalf("mutex %d owned by task %d, which does not hold it", i, o)
			}
		}
	}
	if k.counts[Transaction] == 0 || k.syncs != 0 {
		t.Errorf("%d events, %d sync wakeups; want some events, no sync wakeup", k.counts[Transaction], k.syncs)
	}
}

// Interrupts: the others' timers and a commit's completion each arm one;
// the completion counts an interrupt wakeup.
func TestInterrupts(t *testing.T) {
	k := &fakeKernel{}
	w := New(k, &Config{Seed: 1, Threads: 1, Servers: 1, Statements: 1, Think: 10, Service: 10, IO: 100, IRQ: irqCPU0, Others: 2, OthersPeriod: 1000, OthersBurst: 5})
	if k.irqs != 2 || !w.Other(2) || w.Other(0) {
		t.Fatalf("after New: %d interrupts armed, other(2) %v, other(0) %v; want 2, true, false", k.irqs, w.Other(2), w.Other(0))
	}
	k.run(w, 2) // the client sends, the server flushes the commit
	if k.irqs != 3 || !k.sleeping[1] {
		t.Fatalf("after the commit: %d interrupts armed, server sleeping %v; want 3, true", k.irqs, k.sleeping[1])
	}
	w.Interrupt(1, 0)
	if k.counts[IRQWakeup] != 1 || k.sleeping[1] {
		t.Errorf("completion: %d interrupt wakeups, server sleeping %v; want 1, false", k.counts[IRQWakeup], k.sleeping[1])
	}
}
