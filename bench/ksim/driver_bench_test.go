package ksim

import (
	"strconv"
	"testing"
)

// BenchmarkDriver is the driver's cost per event: CPUs that each wait for
// the next tick and make one access, served in time order. ns/op is per
// event, a tick's wait or an access (two coroutine switches and a push and
// pop of the Queue), as ns/event; it is what a model pays for running on
// the Driver instead of a loop of its own.
func BenchmarkDriver(b *testing.B) {
	for _, n := range []int{8, 512} {
		b.Run("cpus="+strconv.Itoa(n), func(b *testing.B) {
			d := Driver{Serve: func(p *Proc, e Event) { p.Done = e.T + 1 }}
			ticks := max(int64(b.N)/int64(n), 1)
			b.ResetTimer()
			d.Run(n, func(p *Proc) {
				p.Ticks(1000, ticks, func(int64) bool { return p.Do(Event{T: p.Now, Kind: Access}) })
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*ticks*int64(n)), "ns/event")
		})
	}
}

// BenchmarkQueue is one push and one pop on a queue holding n events.
func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{8, 512} {
		b.Run("events="+strconv.Itoa(n), func(b *testing.B) {
			var q Queue
			for i := range n {
				q.Push(Event{T: int64(i), CPU: i})
			}
			b.ResetTimer()
			for i := range b.N {
				e := q.Pop()
				e.T += int64(n + i%3)
				q.Push(e)
			}
		})
	}
}
