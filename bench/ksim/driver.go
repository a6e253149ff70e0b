package ksim

import (
	"iter"
	"slices"
)

// A Kind says what an Event is. The driver itself knows only Wait; the
// others name the kernel events models share, and a scenario numbers its
// own from User on.
type Kind int

const (
	Wait      Kind = iota // resume the CPU at T: everything before T happens first
	Tick                  // the scheduler tick (sched_tick(), scheduler_tick() before v6.10)
	Softirq               // SCHED_SOFTIRQ: the periodic balance
	Wakeup                // try_to_wake_up() of a task
	IdleEntry             // the CPU switches to its idle task
	IdleExit              // the idle task schedules a task in
	Access                // an access to a contended line, priced by the scenario's Serve
	Release               // a release store to a contended line
	User                  // the first of a scenario's own kinds
)

// An Event happens at kernel time T on CPU CPU. Arg is the kind's own
// datum (a task id, a line index), the scenario's to read.
type Event struct {
	T    int64
	CPU  int
	Kind Kind
	Arg  int64
	seq  uint64
}

// A Queue holds events in kernel-time order: the earliest first, ties by
// CPU number, then in the order they were pushed. The zero Queue is empty
// and ready. It is a binary heap typed on Event: no interface boxing, no
// allocation once it has grown.
type Queue struct {
	h   []Event
	seq uint64
}

// Len is the number of events queued.
func (q *Queue) Len() int { return len(q.h) }

// before is the queue's order: time, then CPU, then push order. It is
// total (no two pushes share a seq), so the events come out in the same
// order whatever the heap's layout.
func before(a, b *Event) bool {
	if a.T != b.T {
		return a.T < b.T
	}
	if a.CPU != b.CPU {
		return a.CPU < b.CPU
	}
	return a.seq < b.seq
}

// Push queues e: it rises from the new leaf, each parent it passes moved
// down into the hole.
func (q *Queue) Push(e Event) {
	e.seq = q.seq
	q.seq++
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !before(&e, &q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		i = p
	}
	q.h[i] = e
}

// Peek returns the earliest event without taking it; the queue must not be
// empty.
func (q *Queue) Peek() Event { return q.h[0] }

// Pop takes the earliest event; the queue must not be empty. The hole at
// the root goes down to a leaf by the earlier child (one comparison a
// level, Floyd's), then the last event rises into it from there: it
// belongs near the bottom, so that is shorter than sifting it down.
func (q *Queue) Pop() Event {
	e := q.h[0]
	last := len(q.h) - 1
	x := q.h[last]
	q.h = q.h[:last]
	if last == 0 {
		return e
	}
	i := 0
	for {
		l := 2*i + 1
		if l >= last {
			break
		}
		if r := l + 1; r < last && before(&q.h[r], &q.h[l]) {
			l = r
		}
		q.h[i] = q.h[l]
		i = l
	}
	for i > 0 {
		p := (i - 1) / 2
		if !before(&x, &q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		i = p
	}
	q.h[i] = x
	return e
}

// Delay makes cpu's events of the given kinds at or after from d later,
// their order kept: what runs on the cpu stands still for d (a vCPU its
// host does not run) while the other cpus go on.
func (q *Queue) Delay(cpu int, from, d int64, kinds ...Kind) {
	moved := false
	for i := range q.h {
		if e := &q.h[i]; e.CPU == cpu && e.T >= from && slices.Contains(kinds, e.Kind) {
			e.T += d
			moved = true
		}
	}
	if !moved {
		return
	}
	for i := len(q.h)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// down sifts the event at i down to its place below.
func (q *Queue) down(i int) {
	n := len(q.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		if r := l + 1; r < n && before(&q.h[r], &q.h[l]) {
			l = r
		}
		if !before(&q.h[l], &q.h[i]) {
			return
		}
		q.h[i], q.h[l] = q.h[l], q.h[i]
		i = l
	}
}

// A Proc is one CPU's coroutine in a Driver: its kernel time, and the
// answer to its last request, which the driver's Serve writes.
type Proc struct {
	CPU int
	Now int64 // this CPU's kernel time, ns
	// Done, OK and Val are Serve's answer to the last request: when it
	// finished, whether it succeeded (a cmpxchg that found the flag
	// clear), and a value. Serve may leave them alone.
	Done int64
	OK   bool
	Val  int64

	yield func(Event) bool
}

// Do yields request e for this CPU (e.CPU is set to it) and returns once
// the driver has served it, with the answer in Done, OK and Val; false when
// the driver is stopping and the body must return.
func (p *Proc) Do(e Event) bool {
	e.CPU = p.CPU
	return p.yield(e)
}

// WaitUntil moves the CPU's time to t (never back) and lets every event
// before it happen first; false when the body must return.
func (p *Proc) WaitUntil(t int64) bool {
	p.Now = max(p.Now, t)
	return p.yield(Event{T: p.Now, CPU: p.CPU, Kind: Wait})
}

// Ticks runs f for ticks 1..n of hz, each once every CPU's earlier events
// have happened (skew_tick=0: all CPUs tick at the same instant); it stops
// early, returning false, when f does or the driver stops.
func (p *Proc) Ticks(hz HZ, n int64, f func(j int64) bool) bool {
	for j := int64(1); j <= n; j++ {
		if !p.WaitUntil(hz.TickTime(j)) || !f(j) {
			return false
		}
	}
	return true
}

// A Driver runs one coroutine per CPU (iter.Pull), each the kernel's
// control flow on that CPU, and serves their requests in kernel-time order
// (a Queue: ties by CPU). A CPU's body yields (Proc.Do, Proc.WaitUntil) at
// every event that must wait for a time or touches what another CPU
// touches; Serve is the scenario's answer to a request that is not a Wait:
// the price of a contended line, the state it leaves. It runs on the
// driver's thread between two bodies, so it sees every event before the
// request's and none after. Nothing is timed: a run is a function of its
// inputs.
type Driver struct {
	// Serve answers a request other than Wait, before the CPU resumes.
	// Nil serves nothing.
	Serve func(p *Proc, e Event)
}

// Run starts body on CPUs 0..n-1 and serves their requests until every
// body has returned. Each body starts at time 0 and runs up to its first
// request before the next CPU's starts. Bodies must not call each other's
// Procs.
func (d *Driver) Run(n int, body func(p *Proc)) {
	type coro struct {
		p    *Proc
		next func() (Event, bool)
		stop func()
	}
	cs := make([]coro, n)
	var q Queue
	defer func() {
		for _, c := range cs {
			if c.stop != nil {
				c.stop()
			}
		}
	}()
	for i := range cs {
		p := &Proc{CPU: i}
		cs[i].p = p
		cs[i].next, cs[i].stop = iter.Pull(func(yield func(Event) bool) {
			p.yield = yield
			body(p)
		})
		if e, ok := cs[i].next(); ok {
			q.Push(e)
		}
	}
	for q.Len() > 0 {
		e := q.Pop()
		c := &cs[e.CPU]
		if e.Kind != Wait && d.Serve != nil {
			d.Serve(c.p, e)
		}
		if e, ok := c.next(); ok {
			q.Push(e)
		}
	}
}

// Lockstep is the driver of models whose workers each own some CPUs and make
// one event of one of them per step, every CPU's clock moving by the same
// gap an event (idlemask's, wakeup's): rounds rounds of step(0), ...,
// step(n-1). When each worker takes its CPUs in turn, that is kernel-time
// order by construction (an event at t runs before every event after t;
// ties go by the CPU's place in its worker, then by worker), the order a
// Queue would give at the price of a push and a pop per event; and the
// events are the pinned workers' own hot loop, called as the runner calls
// it. Nothing is timed.
func Lockstep(n int, rounds int64, step func(i int)) {
	for range rounds {
		for i := range n {
			step(i)
		}
	}
}
