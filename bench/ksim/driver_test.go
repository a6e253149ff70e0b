package ksim

import (
	"fmt"
	"slices"
	"testing"
)

func TestQueueOrder(t *testing.T) {
	var q Queue
	in := []Event{{T: 5, CPU: 1}, {T: 3, CPU: 2}, {T: 5, CPU: 0}, {T: 3, CPU: 2, Arg: 1}, {T: 1, CPU: 9}, {T: 5, CPU: 0, Arg: 1}}
	for _, e := range in {
		q.Push(e)
	}
	var got []string
	for q.Len() > 0 {
		e := q.Pop()
		got = append(got, fmt.Sprintf("%d/%d/%d", e.T, e.CPU, e.Arg))
	}
	// Time, then CPU, then the order pushed.
	want := []string{"1/9/0", "3/2/0", "3/2/1", "5/0/0", "5/0/1", "5/1/0"}
	if !slices.Equal(got, want) {
		t.Errorf("popped %v, want %v", got, want)
	}
}

func TestQueueHeap(t *testing.T) {
	var q Queue
	x := uint64(7)
	for range 1000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		q.Push(Event{T: int64(x % 100), CPU: int(x>>32) % 8})
	}
	prev := Event{T: -1}
	for q.Len() > 0 {
		if q.Peek() != q.h[0] {
			t.Fatal("Peek is not the head")
		}
		e := q.Pop()
		if e.T < prev.T || e.T == prev.T && (e.CPU < prev.CPU || e.CPU == prev.CPU && e.seq < prev.seq) {
			t.Fatalf("popped %+v after %+v", e, prev)
		}
		prev = e
	}
}

// Pushes and pops interleaved, as a model's loop does them, pop what a
// sorted list of the events queued would give first, for each heap size.
func TestQueueInterleaved(t *testing.T) {
	for _, size := range []int{1, 2, 3, 7, 64, 200} {
		var q Queue
		var ref []Event
		x := uint64(size)*0x9E3779B97F4A7C15 | 1
		now := int64(0)
		for range 5000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if len(ref) < size || x%3 == 0 {
				e := Event{T: now + int64(x%50), CPU: int(x>>40) % 4, Arg: int64(x >> 50)}
				q.Push(e)
				e.seq = q.seq - 1
				ref = append(ref, e)
				continue
			}
			i := 0
			for j := range ref {
				if before(&ref[j], &ref[i]) {
					i = j
				}
			}
			got := q.Pop()
			if got != ref[i] {
				t.Fatalf("size %d: popped %+v, want %+v", size, got, ref[i])
			}
			now = got.T
			ref = slices.Delete(ref, i, i+1)
		}
	}
}

// A line served FIFO in kernel-time order: each CPU ticks three times and
// at each tick makes one access costing 10 ns; CPUs that access at the
// same instant queue in CPU order.
func TestDriverLine(t *testing.T) {
	var lineFree int64
	var order []string
	d := Driver{Serve: func(p *Proc, e Event) {
		if e.Kind != Access {
			t.Errorf("Serve got kind %d", e.Kind)
		}
		start := max(e.T, lineFree)
		lineFree = start + 10
		p.Done = lineFree
		order = append(order, fmt.Sprintf("cpu%d@%d", p.CPU, start))
	}}
	const hz = HZ(1000)
	ends := make([]int64, 3)
	d.Run(3, func(p *Proc) {
		p.Ticks(hz, 2, func(j int64) bool {
			if !p.Do(Event{T: p.Now, Kind: Access}) {
				return false
			}
			p.Now = p.Done
			return true
		})
		ends[p.CPU] = p.Now
	})
	want := []string{"cpu0@1000000", "cpu1@1000010", "cpu2@1000020", "cpu0@2000000", "cpu1@2000010", "cpu2@2000020"}
	if !slices.Equal(order, want) {
		t.Errorf("accesses %v, want %v", order, want)
	}
	if !slices.Equal(ends, []int64{2000010, 2000020, 2000030}) {
		t.Errorf("CPUs ended at %v", ends)
	}
}

// A body that returns early, and one that never yields, end the run; the
// driver stops the coroutines still suspended when a body panics.
func TestDriverEnds(t *testing.T) {
	var d Driver
	n := 0
	d.Run(4, func(p *Proc) {
		if p.CPU == 2 {
			return
		}
		for i := range 3 {
			if !p.WaitUntil(int64(10 * i)) {
				return
			}
			n++
		}
	})
	if n != 9 {
		t.Errorf("%d waits done, want 9", n)
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the body's panic", r)
		}
	}()
	d.Run(2, func(p *Proc) {
		p.WaitUntil(1)
		if p.CPU == 1 {
			panic("boom")
		}
		p.WaitUntil(2)
	})
}

func TestLockstep(t *testing.T) {
	var got []int
	Lockstep(3, 2, func(i int) { got = append(got, i) })
	if !slices.Equal(got, []int{0, 1, 2, 0, 1, 2}) {
		t.Errorf("Lockstep(3, 2) stepped %v", got)
	}
	Lockstep(3, 0, func(int) { t.Error("stepped with no rounds") })
}

// Delay moves one cpu's events of the kinds named, from a time on, and
// leaves the heap in order: the others, earlier ones and other kinds stay.
func TestQueueDelay(t *testing.T) {
	var q Queue
	for _, e := range []Event{{T: 10, CPU: 1, Kind: User}, {T: 20, CPU: 1, Kind: User}, {T: 20, CPU: 1, Kind: Tick},
		{T: 5, CPU: 1, Kind: User}, {T: 15, CPU: 0, Kind: User}, {T: 30, CPU: 2, Kind: User}} {
		q.Push(e)
	}
	q.Delay(1, 10, 100, User)
	var got []string
	for q.Len() > 0 {
		e := q.Pop()
		got = append(got, fmt.Sprintf("%d/%d/%d", e.T, e.CPU, e.Kind))
	}
	u, k := int(User), int(Tick)
	want := []string{fmt.Sprintf("5/1/%d", u), fmt.Sprintf("15/0/%d", u), fmt.Sprintf("20/1/%d", k), fmt.Sprintf("30/2/%d", u), fmt.Sprintf("110/1/%d", u), fmt.Sprintf("120/1/%d", u)}
	if !slices.Equal(got, want) {
		t.Errorf("after Delay popped %v, want %v", got, want)
	}
}
