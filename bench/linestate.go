package bench

// LineCounts are one cache line's accesses, as a LineState counts them:
// totals, or per second once a caller divides them.
type LineCounts struct {
	Locked    float64 // locked read-modify-writes (atomic_inc/dec, set/clear_bit)
	Stores    float64 // plain stores (WRITE_ONCE)
	Reads     float64
	Transfers float64 // accesses that moved the line between cpus
}

// LineState is a cache line's coherence state in a simulation that takes
// every cpu's accesses to it in one kernel-time order: its last writer,
// whether another cpu read it since, and which write each cpu's copy is
// of. An access is a transfer when a cpu reads the line after another cpu
// wrote it since this one last read it, or writes it while another cpu
// holds a copy (or holds none itself). A transfer waits for no other: the
// count is of transfers, not of their queueing.
type LineState struct {
	gen        int64
	owner      int
	othersRead bool
	seen       []int64 // the gen each cpu last read or wrote (0: never)
	N          LineCounts
}

// NewLineState returns the state of a line no cpu of cpus has touched.
func NewLineState(cpus int) *LineState {
	return &LineState{owner: -1, seen: make([]int64, cpus), gen: 1}
}

// Read is cpu reading the line.
func (l *LineState) Read(cpu int) {
	l.N.Reads++
	if l.seen[cpu] != l.gen {
		l.N.Transfers++
		l.seen[cpu] = l.gen
		if cpu != l.owner {
			l.othersRead = true
		}
	}
}

// Write is cpu writing the line, with a locked instruction or a plain
// store.
func (l *LineState) Write(cpu int, locked bool) {
	if locked {
		l.N.Locked++
	} else {
		l.N.Stores++
	}
	if l.owner != cpu || l.othersRead || l.seen[cpu] != l.gen {
		l.N.Transfers++
	}
	l.gen++
	l.owner, l.othersRead, l.seen[cpu] = cpu, false, l.gen
}

// PerSecond is c over sec seconds.
func (c LineCounts) PerSecond(sec float64) LineCounts {
	return LineCounts{Locked: c.Locked / sec, Stores: c.Stores / sec, Reads: c.Reads / sec, Transfers: c.Transfers / sec}
}
