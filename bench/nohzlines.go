package bench

// NohzLines prices the nohz struct's two lines in a simulation (contend
// simulate balanceflag -nohz, simulate idlemask -nohz): it hears each
// access of the kernel's nohz paths as bench/ksim's Nohz makes it (it is a
// ksim.NohzObserver) and follows both lines through LineStates, in the
// order the simulation takes the cpus' events. Counter is the struct
// before Shrikanth Hegde's 5d86d542f68f ("Remove nohz.nr_cpus and use
// weight of cpumask instead", merged 2026-01), with nohz.nr_cpus on the
// struct's line; without it, "is any cpu tickless" reads the mask.
//
// The lines, as Nohz lays them out (CONFIG_CPUMASK_OFFSTACK=y, the large
// machines' config, which the commit names: the mask's bits are an
// allocation of their own): the struct's ____cacheline_aligned line
// (nr_cpus, counter only; has_blocked_load, needs_update, next_blocked,
// next_balance) and the mask's (nohz.idle_cpus_mask, up to 512 cpus).
type NohzLines struct {
	Counter             bool
	st, mask            *LineState
	stops, calls, exits int64
	idleMoves           float64
}

// NewNohzLines returns the lines of a machine of cpus cpus, untouched.
func NewNohzLines(cpus int, counter bool) *NohzLines {
	return &NohzLines{Counter: counter, st: NewLineState(cpus), mask: NewLineState(cpus)}
}

func (l *NohzLines) moves() float64 { return l.st.N.Transfers + l.mask.N.Transfers }

// Enter is nohz_balance_enter_idle() on a cpu not yet in the mask:
// cpumask_set_cpu(), atomic_inc(&nohz.nr_cpus) (counter),
// WRITE_ONCE(nohz.needs_update, 1).
func (l *NohzLines) Enter(cpu int) {
	m0 := l.moves()
	l.stops++
	l.mask.Write(cpu, true)
	if l.Counter {
		l.st.Write(cpu, true)
	}
	l.st.Write(cpu, false) // needs_update
	l.idleMoves += l.moves() - m0
}

// Blocked is every nohz_balance_enter_idle() call's has_blocked_load
// store, which the commit keeps.
func (l *NohzLines) Blocked(cpu int) {
	m0 := l.moves()
	l.calls++
	l.st.Write(cpu, false)
	l.idleMoves += l.moves() - m0
}

// Exit is nohz_balance_exit_idle() from a busy tick: cpumask_clear_cpu(),
// atomic_dec(&nohz.nr_cpus) (counter).
func (l *NohzLines) Exit(cpu int) {
	m0 := l.moves()
	l.exits++
	l.mask.Write(cpu, true)
	if l.Counter {
		l.st.Write(cpu, true)
	}
	l.idleMoves += l.moves() - m0
}

// Kick is nohz_balancer_kick()'s test for a tickless cpu
// (atomic_read(&nohz.nr_cpus) before, cpumask_empty() after) and, when
// one is, its reads of has_blocked_load, next_blocked, next_balance and
// needs_update on the struct's line: one access, as the same cpu's reads
// of one line at one moment move it at most once.
func (l *NohzLines) Kick(cpu int, tickless bool) {
	if l.Counter {
		l.st.Read(cpu)
	} else {
		l.mask.Read(cpu)
	}
	if tickless {
		l.st.Read(cpu)
	}
}

// Transfers are both lines' transfers so far.
func (l *NohzLines) Transfers() float64 { return l.moves() }

// Row is the lines' accesses per second over sec seconds of kernel time,
// as variant.
func (l *NohzLines) Row(variant string, sec float64) NohzRow {
	return NohzRow{Variant: variant,
		StopsPerSec: float64(l.stops) / sec, CallsPerSec: float64(l.calls) / sec, RestartsPerSec: float64(l.exits) / sec,
		Struct: l.st.N.PerSecond(sec), Mask: l.mask.N.PerSecond(sec),
		IdleTransfers: l.idleMoves / sec, TickTransfers: (l.moves() - l.idleMoves) / sec}
}

// A NohzRow is one variant's accesses to the nohz lines, per second of
// kernel time over the whole machine.
type NohzRow struct {
	Variant string // counter (before 5d86d542f68f) or weight (after)
	// StopsPerSec are the tick stops that entered nohz.idle_cpus_mask,
	// CallsPerSec all calls of nohz_balance_enter_idle() (one per tick
	// stop; a cpu still in the mask since an earlier stop only stores
	// has_blocked_load), RestartsPerSec the busy ticks'
	// nohz_balance_exit_idle() that left it.
	StopsPerSec, CallsPerSec, RestartsPerSec float64
	// Struct is the nohz struct's line, Mask the idle mask's.
	Struct, Mask LineCounts
	// IdleTransfers and TickTransfers split both lines' transfers per
	// second by path, as the commit splits the cost: the tick stop and
	// restart's writes (its "idle cost"), and the busy tick's
	// nohz_balancer_kick() reads (its "scheduler tick cost").
	IdleTransfers, TickTransfers float64
	// CyclesPct is the transfers' time at the scenario's handoff cost
	// over the cpus' busy time, where a scenario prices it (balanceflag).
	CyclesPct float64 `json:",omitempty"`
}
