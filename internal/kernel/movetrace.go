package kernel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The move record: one per set_task_cpu() call, taken in the wake trace's
// instance, so a count can say how each of the workload's tasks came to
// change cpu and what it left: which path moved it, how long it had
// waited since it last ran, what its old cpu was running, and whether
// the move brought it onto its partner's cpu or took it off it.
//
// set_task_cpu(p, new_cpu) (core.c, v6.1 to v7.3) is called with p on
// no runqueue (try_to_wake_up()'s placement: on_rq 0) or with p
// TASK_ON_RQ_MIGRATING (2), detached by the balancer (detach_task()),
// move_queued_task() (the stopper's: an active balance, an affinity
// change) or a push. The record's line says where it ran: the balance
// softirq of the cpu it goes to (a periodic or idle balance at its
// tick, rebalance_domains()), the softirq of a third cpu (the nohz idle
// balancer's walk on an idle cpu's behalf), the stopper (migration/N),
// or schedule() on the cpu it goes to (sched_balance_newidle()).
// A call the compiler inlined into try_to_wake_up() (the same file)
// would go untaken; Debian's 6.1 calls it (its wakeup moves are in the
// records, 4212 of an LLCs-of-4 run's 4301), and the wake record has
// every wakeup's placement besides.
//
// The wait is what task_hot() tests, rq_clock_task(src_rq) less
// p->se.exec_start: read as the old cpu's rq->clock_task, which the
// balancer's update_rq_clock(busiest) brought up to date before it
// detached p. A task that waited less than sysctl_sched_migration_cost
// (500 µs, the kernel's default; Debian keeps it) is cache-hot, which
// can_migrate_task() refuses until the domain's nr_balance_failed is
// past its cache_nice_tries.
const (
	MoveEvent = "contend_move"
	MoveFunc  = "set_task_cpu"
)

// MigrationCostNs is sysctl_sched_migration_cost's default (core.c:
// "const_debug unsigned int sysctl_sched_migration_cost = 500000UL"),
// the wait under which task_hot() calls a task cache-hot.
const MigrationCostNs = 500_000

// taskOnRQMigrating is TASK_ON_RQ_MIGRATING (sched.h).
const taskOnRQMigrating = 2

// moveCPUFields are the struct rq members the move record reads of
// each cpu, as the wake record's keys (tickFields).
var moveCPUFields = []string{"nr", "cu", "id"}

// MoveFetch says where the move record reads: task_struct's pid, cpu,
// on_rq, and se.exec_start (offsets), each cpu's struct rq (RQs, as
// WakeFetch's) and struct rq's members by name.
type MoveFetch struct {
	PID, CPU, OnRQ, ExecStart int64
	RQs                       []uint64
	RQ                        map[string]int64
}

// Args are the move kprobe's fetch arguments: pid, to (new_cpu), from
// (p->cpu, not yet changed), or (on_rq), es (se.exec_start) and, per cpu
// i, nrI, cuI, idI (as the wake record's), ctI (rq->clock_task) and cpI
// (the pid of rq->curr).
func (f MoveFetch) Args() (string, error) {
	if f.PID < 0 || f.CPU < 0 || f.OnRQ < 0 || f.ExecStart < 0 {
		return "", fmt.Errorf("BTF's task_struct lacks pid, cpu, on_rq or se.exec_start")
	}
	ct, ok1 := f.RQ["clock_task"]
	cu, ok2 := f.RQ["curr"]
	if !ok1 || !ok2 {
		return "", fmt.Errorf("BTF's struct rq lacks clock_task or curr")
	}
	per := len(moveCPUFields) + 2
	if n := 5 + per*len(f.RQs); n > maxTraceArgs {
		return "", fmt.Errorf("%d cpus need %d fetch arguments, over a kprobe's %d (MAX_TRACE_ARGS)", len(f.RQs), n, maxTraceArgs)
	}
	args := []string{
		fmt.Sprintf("pid=+%d($arg1):u32", f.PID), "to=$arg2:u32",
		fmt.Sprintf("from=+%d($arg1):u32", f.CPU), fmt.Sprintf("or=+%d($arg1):u32", f.OnRQ),
		fmt.Sprintf("es=+%d($arg1):u64", f.ExecStart),
	}
	cpus, err := idleCPUArgs(f.RQs, f.RQ, moveCPUFields)
	if err != nil {
		return "", err
	}
	args = append(args, cpus...)
	for i, rq := range f.RQs {
		args = append(args, fmt.Sprintf("ct%d=@%#x:u64", i, rq+uint64(ct)),
			fmt.Sprintf("cp%d=+%d(@%#x):u32", i, f.PID, rq+uint64(cu)))
	}
	return strings.Join(args, " "), nil
}

// MoveRecord is a move record (a WakeRecord's Move): PID moved From to
// To, with OnRQ its on_rq, Wait (ns) since it last ran by From's clock
// (-1 where From's clock is behind its exec_start, or From is not a cpu
// read), and what From and To ran: their rq->curr's pid (0 the idle
// task) and nr_running. Path says where the line ran (MovePath).
type MoveRecord struct {
	PID, From, To    int32
	OnRQ             uint32
	Wait             int64
	FromCurr, ToCurr int32
	FromNr, ToNr     uint32
	Path             string
}

// The move paths, by the record's line (see the record's doc).
const (
	MoveWakeup  = "wakeup"  // on_rq 0: try_to_wake_up()'s placement
	MoveTick    = "tick"    // the balance softirq of the cpu it goes to
	MoveNohz    = "nohz"    // the softirq of another cpu: the nohz idle balancer's walk
	MoveStopper = "stopper" // migration/N: an active balance or an affinity move
	MoveNewidle = "newidle" // schedule() on the cpu it goes to
	MoveOther   = "other"
)

// parseMove reads a move record's arguments (MoveFetch.Args) and where
// its line ran (h) into a WakeRecord.
func parseMove(h traceHeader) (WakeRecord, error) {
	rec := WakeRecord{CPU: h.CPU, Time: h.Time, WakerPID: h.PID}
	v, err := recordValues("move", h.Args, "pid", "to", "from", "or", "es", "nr0")
	if err != nil {
		return rec, err
	}
	m := &MoveRecord{PID: int32(v["pid"]), To: int32(v["to"]), From: int32(v["from"]), OnRQ: uint32(v["or"]), Wait: -1}
	if m.To < 0 || m.To >= 64 || m.From < 0 || m.From >= 64 {
		return rec, fmt.Errorf("move record: from=%d to=%d, not cpus", m.From, m.To)
	}
	cpu := func(key string, c int32) (uint64, bool) {
		x, ok := v[key+strconv.Itoa(int(c))]
		return x, ok
	}
	curr := func(c int32) int32 {
		cu, _ := cpu("cu", c)
		id, _ := cpu("id", c)
		if cu == id {
			return 0
		}
		pid, _ := cpu("cp", c)
		return int32(pid)
	}
	if ct, ok := cpu("ct", m.From); ok && ct >= v["es"] {
		m.Wait = int64(ct - v["es"])
	}
	nf, _ := cpu("nr", m.From)
	nt, _ := cpu("nr", m.To)
	m.FromNr, m.ToNr, m.FromCurr, m.ToCurr = uint32(nf), uint32(nt), curr(m.From), curr(m.To)
	m.Path = movePath(h, m)
	rec.Move = m
	return rec, nil
}

// movePath is the path a move took, from the line that recorded it.
func movePath(h traceHeader, m *MoveRecord) string {
	softirq := len(h.Flags) > 2 && (h.Flags[2] == 's' || h.Flags[2] == 'H') || strings.HasPrefix(h.Comm, "ksoftirqd/")
	switch {
	case m.OnRQ == 0:
		return MoveWakeup
	case m.OnRQ != taskOnRQMigrating:
		return MoveOther
	case strings.HasPrefix(h.Comm, "migration/"):
		return MoveStopper
	case softirq && h.CPU == int(m.To):
		return MoveTick
	case softirq:
		return MoveNohz
	case h.CPU == int(m.To):
		return MoveNewidle
	}
	return MoveOther
}

// MoveTrace sums the workload's moves in a wake trace (its move
// records): how many, by path, how long the moved task had waited, what
// its old cpu ran, and what the move did to its pair (the task whose
// wakeups it most often made or took, by the wake records: its partner).
type MoveTrace struct {
	// All are every task's moves in the window; Moves the workload's
	// (a task of tids), ByPath of them by MovePath.
	All    int            `json:"all"`
	Moves  int            `json:"moves"`
	ByPath map[string]int `json:"by_path,omitempty"`
	// Of the balancer's moves (on_rq TASK_ON_RQ_MIGRATING, not the
	// stopper's: its moves are mostly affinity changes, the migrate
	// shape's sched_setaffinity(), and ByPath counts them): Balanced;
	// Hot waited under MigrationCostNs since it last ran (moved only past
	// the domain's cache_nice_tries failures, or by the stopper),
	// WaitUnknown had no wait to read (the old cpu's clock behind the
	// task's exec_start, or not read), and WaitMedianUs is the known
	// waits' median (µs). Cold() are the rest.
	Balanced     int     `json:"balanced"`
	Hot          int     `json:"hot"`
	WaitUnknown  int     `json:"wait_unknown,omitempty"`
	WaitMedianUs float64 `json:"wait_median_us,omitempty"`
	// What the old cpu was running as the balancer took the task:
	// FromPartner its partner, FromWorkload another of the workload's
	// tasks, FromOther a task outside the workload (the stopper's
	// migration/N among them), FromIdle nothing (the idle task, a task
	// queued and not yet switched to); FromWaiting left another task
	// waiting there besides the one running (nr_running, read after
	// detach_task()'s deactivate_task() took the moved one off: 2 or more
	// with a task running, 1 or more with the idle task current).
	FromPartner  int `json:"from_partner"`
	FromWorkload int `json:"from_workload"`
	FromOther    int `json:"from_other"`
	FromIdle     int `json:"from_idle"`
	FromWaiting  int `json:"from_waiting"`
	// Joined took the task to the cpu its partner was last placed on
	// (a wakeup's return or a move), Parted from it: every path's moves,
	// wakeups' too.
	Joined int `json:"joined"`
	Parted int `json:"parted"`
}

// Cold are the balancer's moves of a task that had waited past
// MigrationCostNs since it last ran.
func (m *MoveTrace) Cold() int { return m.Balanced - m.Hot - m.WaitUnknown }

// SumMoves sums the move records of tids' tasks among recs (a wake
// trace's records in time order), with each task's partner taken from
// the wake records: the workload task that woke it most often.
func SumMoves(recs []WakeRecord, tids []int) MoveTrace {
	m := MoveTrace{ByPath: map[string]int{}}
	wokeBy := map[int32]map[int32]int{}
	for i := range recs {
		r := &recs[i]
		if r.Move == nil && !r.Woke && r.Flags&wfTTWU != 0 && slices.Contains(tids, int(r.PID)) && slices.Contains(tids, int(r.WakerPID)) {
			if wokeBy[r.PID] == nil {
				wokeBy[r.PID] = map[int32]int{}
			}
			wokeBy[r.PID][r.WakerPID]++
		}
	}
	partner := map[int32]int32{}
	for pid, by := range wokeBy {
		best, n := int32(-1), 0
		for w, k := range by {
			if k > n || k == n && w < best {
				best, n = w, k
			}
		}
		partner[pid] = best
	}
	// Where each task was last placed: the cpu a wakeup's return chose
	// (paired to its entry per cpu) or a move's.
	at := map[int32]int32{}
	entry := map[int]int32{}
	var waits []float64
	for i := range recs {
		r := &recs[i]
		switch {
		case r.Move != nil:
		case !r.Woke:
			entry[r.CPU] = r.PID
			continue
		default:
			if pid, ok := entry[r.CPU]; ok {
				at[pid] = r.To
				delete(entry, r.CPU)
			}
			continue
		}
		mv := r.Move
		m.All++
		if !slices.Contains(tids, int(mv.PID)) {
			at[mv.PID] = mv.To
			continue
		}
		m.Moves++
		m.ByPath[mv.Path]++
		p, hasPartner := partner[mv.PID]
		pcpu, placed := at[p]
		if hasPartner && placed {
			m.Joined += b2i(pcpu == mv.To)
			m.Parted += b2i(pcpu == mv.From)
		}
		at[mv.PID] = mv.To
		if mv.OnRQ != taskOnRQMigrating || mv.Path == MoveStopper {
			continue
		}
		m.Balanced++
		if mv.Wait >= 0 {
			m.Hot += b2i(mv.Wait < MigrationCostNs)
			waits = append(waits, float64(mv.Wait)/1e3)
		} else {
			m.WaitUnknown++
		}
		m.FromWaiting += b2i(mv.FromCurr != 0 && mv.FromNr >= 2 || mv.FromCurr == 0 && mv.FromNr >= 1)
		switch c := mv.FromCurr; {
		case c == 0:
			m.FromIdle++
		case hasPartner && c == p:
			m.FromPartner++
		case slices.Contains(tids, int(c)):
			m.FromWorkload++
		default:
			m.FromOther++
		}
	}
	if len(waits) > 0 {
		slices.Sort(waits)
		m.WaitMedianUs = waits[len(waits)/2]
	}
	return m
}
