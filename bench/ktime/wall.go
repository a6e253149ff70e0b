package ktime

import (
	"github.com/contend/contend/bench"
)

// Wall returns the monotonic wall clock in nanoseconds (bench.Now, runtime
// nanotime through the vDSO, about 20-30 ns a read under KVM): the clock of
// pacing and of timed samples, never of the model.
func Wall() int64 { return bench.Now() }

// A Pacer makes a worker run at the kernel's event rate: Wait spins on local
// work after an event until the wall clock has moved by the event's kernel
// gap since the event began. The zero Pacer is off and Wait returns at once,
// which is the unpaced stress mode.
type Pacer struct {
	On   bool
	sink uint64
}

// Wait spins until Wall() ≥ start+gap (start from Wall when the event
// began). The spin is real work (bench.LocalWork in steps of about 50 ns),
// not a sleep: a sleeping worker gives its CPU away, and the kernel's CPUs
// are busy with the task that made the event. Off, it is one inlined test:
// an unpaced hot loop pays no call for it.
func (p *Pacer) Wait(start, gap int64) {
	if p.On {
		p.spin(start, gap)
	}
}

// spin is Wait's loop, out of line so that Wait inlines.
//
//go:noinline
func (p *Pacer) spin(start, gap int64) {
	for Wall()-start < gap {
		p.sink = bench.LocalWork(p.sink, 50)
	}
}

// A Share measures the share of a worker's time spent in a hot path, by
// timing one event in Every: the path's time over the whole event's time
// (pacing included), summed over the timed events. Four clock reads per
// timed event, none on the others. A Share belongs to one worker.
type Share struct {
	Every int64 // time one event in Every; 0 means 64
	left  int64
	path  int64
	whole int64
	n     int64
}

// Due reports whether the current event is to be timed, and counts it.
func (s *Share) Due() bool {
	if s.left--; s.left > 0 {
		return false
	}
	if s.Every <= 0 {
		s.Every = 64
	}
	s.left = s.Every
	return true
}

// Add records one timed event: path nanoseconds in the hot path out of
// whole.
func (s *Share) Add(path, whole int64) {
	s.path += path
	s.whole += whole
	s.n++
}

// Merge adds another worker's timings to s.
func (s *Share) Merge(o *Share) {
	s.path += o.path
	s.whole += o.whole
	s.n += o.n
}

// Percent returns the path's share of the timed events' time, in per cent,
// and how many events were timed.
func (s *Share) Percent() (pct float64, samples int64) {
	if s.whole <= 0 {
		return 0, s.n
	}
	return 100 * float64(s.path) / float64(s.whole), s.n
}
