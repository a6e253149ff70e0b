package kernel

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// The tick trace: one record per tick of every cpu, taken where the tick
// hands the balancer its turn (sched_balance_trigger(), v6.10's name, or
// trigger_load_balance()), with what decides that turn:
//
//	sched_tick():  rq->idle_balance = idle_cpu(cpu);
//	               sched_balance_trigger(rq);
//	                 if (time_after_eq(jiffies, rq->next_balance))
//	                         raise_softirq(SCHED_SOFTIRQ);
//
// So each record holds jiffies, rq->next_balance (is the cpu's own walk
// due?), rq->idle_balance (does the walk balance as CPU_IDLE?), and
// rq->curr against rq->idle, rq->nr_running and rq->ttwu_pending (did
// the tick find the idle task running with a task already queued or a
// wakeup on its way: idle_cpu() false, so CPU_NOT_IDLE, though
// task_tick_idle() counts the tick as idle?). It is what the schedstat
// totals cannot say: which ticks walked, and as what.

// TickTraceFuncs are the functions the record is taken at, newest name
// first: sched_tick() calls it once per tick with rq as its argument.
var TickTraceFuncs = []string{"sched_balance_trigger", "trigger_load_balance"}

// tickFields are the struct rq members a record reads, by its key.
var tickFields = [][2]string{
	{"nb", "next_balance"}, {"ib", "idle_balance"}, {"nr", "nr_running"},
	{"tp", "ttwu_pending"}, {"cu", "curr"}, {"id", "idle"},
}

// tickFieldTypes are the fetch types of tickFields' members in every
// kernel since 5.x: unsigned long, unsigned char, unsigned int (both),
// and two pointers.
var tickFieldTypes = map[string]string{"nb": "u64", "ib": "u8", "nr": "u32", "tp": "u32", "cu": "u64", "id": "u64"}

// TickProbeArgs are the kprobe fetch arguments of the tick record, from
// struct rq's offsets in BTF (rq, by member) and jiffies_64's symbol; or
// why it cannot be taken.
func TickProbeArgs(rq map[string]int64, jiffies string) (string, error) {
	if jiffies == "" {
		return "", fmt.Errorf("kallsyms has no jiffies_64 (CONFIG_KALLSYMS_ALL unset?)")
	}
	args := []string{"j=@" + jiffies + ":u64"}
	for _, f := range tickFields {
		off, ok := rq[f[1]]
		if !ok {
			return "", fmt.Errorf("BTF's struct rq has no %s", f[1])
		}
		args = append(args, fmt.Sprintf("%s=+%d($arg1):%s", f[0], off, tickFieldTypes[f[0]]))
	}
	return strings.Join(args, " "), nil
}

// LeafFetch says where the tick record finds the workload's leaf
// cfs_rq on each cpu, for its PELT age at the tick: each cpu's cfs_rq
// (Leaves[cpu], tg->cfs_rq's entry, fixed for the group's life, so
// resolved once before the run) and, within a cfs_rq, the offsets of
// avg.last_update_time and avg.period_contrib; with rq's clock_pelt and
// lost_idle_time (offsets in struct rq; LostIdle -1 where the kernel has
// none), whose difference is what update_load_avg() reads as now on a
// cfs_rq never throttled (pelt.h: rq_clock_pelt() is "rq->clock_pelt -
// rq->lost_idle_time", cfs_rq_clock_pelt() less the throttled time).
type LeafFetch struct {
	Leaves              []uint64
	LastUpdate, Contrib int64
	ClockPelt, LostIdle int64
}

// Args are the kprobe fetch arguments that read f: cp and li
// (rq->clock_pelt and rq->lost_idle_time of the tick's rq) and, per cpu
// i, ui and ci (its leaf cfs_rq's
// last_update_time and period_contrib). A kprobe cannot index by the
// cpu it fires on, so every record reads every cpu's leaf and the
// parser keeps its own cpu's.
func (f LeafFetch) Args() string {
	args := []string{fmt.Sprintf("cp=+%d($arg1):u64", f.ClockPelt)}
	if f.LostIdle >= 0 {
		args = append(args, fmt.Sprintf("li=+%d($arg1):u64", f.LostIdle))
	}
	for i, leaf := range f.Leaves {
		args = append(args, fmt.Sprintf("u%d=@%#x:u64 c%d=@%#x:u32", i, leaf+uint64(f.LastUpdate), i, leaf+uint64(f.Contrib)))
	}
	return strings.Join(args, " ")
}

// The group tick record: one per tick that finds a fair task running,
// taken where sched_tick() hands it to the fair class (task_tick_fair(rq,
// curr, queued), after update_rq_clock(), before entity_tick()'s
// update_load_avg() of each level), with the running task's cfs_rq
// (curr->se.cfs_rq) and that cfs_rq's PELT age: what entity_tick() is
// about to find. The tick record's leaf ages are read after it, when a
// tick that found one of the group's tasks running has just updated its
// leaf; this one says how stale the leaf was when the tick came, the
// emulator's stall before a late tick included.

// GroupTickEvent is the trace's event at a fair task's tick;
// GroupTickFunc is where it is taken.
const (
	GroupTickEvent = "contend_gtick"
	GroupTickFunc  = "task_tick_fair"
)

// GroupTickArgs are the group tick record's fetch arguments: cp and li
// (rq->clock_pelt and rq->lost_idle_time, from f), q (curr->se.cfs_rq:
// taskSE and seCfsRq are struct task_struct's se and struct
// sched_entity's cfs_rq), u and c (that cfs_rq's avg.last_update_time
// and avg.period_contrib, from f).
func GroupTickArgs(f LeafFetch, taskSE, seCfsRq int64) (string, error) {
	if taskSE < 0 || seCfsRq < 0 {
		return "", fmt.Errorf("BTF has no task_struct.se or sched_entity.cfs_rq")
	}
	q := taskSE + seCfsRq
	args := []string{fmt.Sprintf("cp=+%d($arg1):u64", f.ClockPelt)}
	if f.LostIdle >= 0 {
		args = append(args, fmt.Sprintf("li=+%d($arg1):u64", f.LostIdle))
	}
	args = append(args, fmt.Sprintf("q=+%d($arg2):u64 u=+%d(+%d($arg2)):u64 c=+%d(+%d($arg2)):u32", q, f.LastUpdate, q, f.Contrib, q))
	return strings.Join(args, " "), nil
}

// The kick record: one per nohz balancer kick that reached its idle cpu,
// taken where the kick's IPI lands (nohz_csd_func(), v5.8 on), which
// raises SCHED_SOFTIRQ there, so that the cpu's _nohz_idle_balance()
// walk runs as the interrupt returns:
//
//	for_each_cpu_wrap(balance_cpu, nohz.idle_cpus_mask, this_cpu+1) {
//		if (!idle_cpu(balance_cpu))
//			continue;
//		if (!idle_cpu(this_cpu) && need_resched()) { ... goto abort; }
//		...
//		if (time_after_eq(jiffies, rq->next_balance)) { ... sched_balance_domains(rq, CPU_IDLE); }
//
// So each record holds jiffies, the mask's first word, and every cpu's
// rq->next_balance and what idle_cpu() reads (rq->curr against
// rq->idle, rq->nr_running, rq->ttwu_pending): which cpus the walk that
// follows would find in the mask, idle and due, had nothing changed in
// between. What it cannot say is how many walks then ended early.

// maxTraceArgs is the kernel's limit on a probe's fetch arguments
// (kernel/trace/trace_probe.h's MAX_TRACE_ARGS).
const maxTraceArgs = 128

// KickEvent is the trace's event at a kick; KickFunc is where it is taken.
const (
	KickEvent = "contend_kick"
	KickFunc  = "nohz_csd_func"
)

// kickCPUFields are the struct rq members the kick record reads of each
// cpu: its next_balance and what idle_cpu() tests (not idle_balance, the
// tick's).
var kickCPUFields = []string{"nb", "nr", "tp", "cu", "id"}

// KickFetch says where the kick record reads: the address of the first
// word of nohz.idle_cpus_mask (the mask itself, behind the pointer where
// cpumask_var_t is one), each cpu's struct rq (runqueues plus
// __per_cpu_offset[cpu]), and struct rq's members by name (BTF's).
type KickFetch struct {
	Mask uint64
	RQs  []uint64
	RQ   map[string]int64
}

// The newidle record: one per newidle walk, taken at its entry
// (sched_balance_newidle(), v6.10's name; newidle_balance() before), so
// it reads what the walk's gate tests before the walk can change it (a
// walk that reaches the root domain rewrites rd->overloaded, and its
// cost can raise max_newidle_lb_cost):
//
//	if (!get_rd_overloaded(this_rq->rd) ||
//	    (sd && this_rq->avg_idle < sd->max_newidle_lb_cost)) {
//
// (v5.16 on; rd->overload, an int, before v6.9's rename to a bool).
// Every field is read through the walk's own rq, its first argument.

// NewidleEvent is the trace's event at a newidle walk; NewidleFuncs are
// where it is taken, newest name first.
const NewidleEvent = "contend_newidle"

var NewidleFuncs = []string{"sched_balance_newidle", "newidle_balance"}

// NewidleArgs are the newidle record's fetch arguments, from struct
// rq's offsets (rq: avg_idle, sd, rd), sched_domain's
// max_newidle_lb_cost (cost) and root_domain's overloaded (over, of
// overSize bytes, 1 or 4): ai (rq->avg_idle), sd (rq->sd), mc
// (rq->sd->max_newidle_lb_cost: where sd is NULL the read faults and
// the slot holds whatever the buffer held, so the parser ignores it)
// and ov (rq->rd->overloaded); or why they cannot be read.
func NewidleArgs(rq map[string]int64, cost, over, overSize int64) (string, error) {
	for _, m := range []string{"avg_idle", "sd", "rd"} {
		if _, ok := rq[m]; !ok {
			return "", fmt.Errorf("BTF's struct rq has no %s", m)
		}
	}
	if cost < 0 || over < 0 {
		return "", fmt.Errorf("BTF has no sched_domain.max_newidle_lb_cost or root_domain.overloaded")
	}
	size := map[int64]string{1: "u8", 4: "u32"}[overSize]
	if size == "" {
		return "", fmt.Errorf("root_domain.overloaded is %d bytes, neither a bool nor an int", overSize)
	}
	return fmt.Sprintf("ai=+%d($arg1):u64 sd=+%d($arg1):u64 mc=+%d(+%d($arg1)):u64 ov=+%d(+%d($arg1)):%s",
		rq["avg_idle"], rq["sd"], cost, rq["sd"], over, rq["rd"], size), nil
}

// Args are the kprobe fetch arguments that read f: j (jiffies_64,
// through the symbol jiffies), self (the kick's rq, nohz_csd_func()'s
// argument: it names the cpu's own rq, so a record whose self is not
// RQs[cpu] says the addresses are wrong), m (the mask's word) and per
// cpu i: nbI, nrI, tpI, cuI and idI, as the tick record's members.
func (f KickFetch) Args(jiffies string) (string, error) {
	if jiffies == "" {
		return "", fmt.Errorf("kallsyms has no jiffies_64 (CONFIG_KALLSYMS_ALL unset?)")
	}
	if n := 4 + 5*len(f.RQs); n > maxTraceArgs {
		return "", fmt.Errorf("%d cpus need %d fetch arguments, over a kprobe's %d (MAX_TRACE_ARGS)", len(f.RQs), n, maxTraceArgs)
	}
	args := []string{"j=@" + jiffies + ":u64", "self=$arg1:u64", fmt.Sprintf("m=@%#x:u64", f.Mask)}
	if fl, ok := f.RQ["nohz_flags"]; ok {
		args = append(args, fmt.Sprintf("fl=+%d($arg1):u32", fl))
	}
	cpus, err := idleCPUArgs(f.RQs, f.RQ, kickCPUFields)
	if err != nil {
		return "", err
	}
	args = append(args, cpus...)
	return strings.Join(args, " "), nil
}

// TickRecord is one traced tick.
type TickRecord struct {
	CPU         int
	Time        float64 // seconds, the trace clock's
	Jiffies     uint64
	NextBalance uint64
	IdleBalance bool // rq->idle_balance: the walk balances as CPU_IDLE
	NrRunning   uint32
	TTWUPending bool
	IdleTask    bool // rq->curr == rq->idle
	// IdleEntry marks an idle entry's record (IdleEntryEvent), not a
	// tick's: only CPU and Time are set.
	IdleEntry bool
	// GroupTick marks a group tick's record (GroupTickEvent): CPU,
	// Time, LeafPtr (the running task's cfs_rq) and the Leaf fields,
	// of that cfs_rq, are set.
	GroupTick bool
	LeafPtr   uint64
	// Leaf says the record has its cpu's leaf cfs_rq (LeafFetch):
	// LeafAge is rq_clock_pelt() (clock_pelt less lost_idle_time) less
	// the cfs_rq's avg.last_update_time, ns, and LeafContrib its
	// avg.period_contrib, µs of the current period already summed.
	Leaf        bool
	LeafAge     int64
	LeafContrib uint32
	// Kick marks a kick's record (KickEvent), not a tick's: CPU, Time
	// and Jiffies are set, Self is its rq's address, and of the cpus
	// (bit i, cpu i < 64) Masked are those in nohz.idle_cpus_mask's
	// first word, IdleCPUs those idle_cpu() would call idle (the idle
	// task current, none queued, no wakeup pending) and DueCPUs those
	// whose rq->next_balance had come; RQs is how many cpus it read.
	// Newidle marks a newidle walk's record (NewidleEvent): CPU and
	// Time are set, Overloaded is rq->rd->overloaded, AvgIdle
	// rq->avg_idle (ns), NoDomain whether rq->sd was NULL and, where it
	// was not, NewidleCost its max_newidle_lb_cost (ns).
	Newidle, Overloaded, NoDomain bool
	AvgIdle, NewidleCost          uint64
	Kick                          bool
	Self                          uint64
	Masked, IdleCPUs, DueCPUs     uint64
	// HasFlags says the kick read its rq->nohz_flags before
	// nohz_csd_func() clears them (KickFlags: NOHZ_BALANCE_KICK 1,
	// NOHZ_STATS_KICK 2, NOHZ_NEWILB_KICK 4, NOHZ_NEXT_KICK 8, v5.x to
	// v7.3's sched.h).
	HasFlags  bool
	KickFlags uint32
	RQs       int
}

// LeafCrossed is whether the record's leaf cfs_rq would decay were it
// updated at the tick: ___update_load_sum()'s "delta = now -
// sa->last_update_time; delta >>= 10;" then accumulate_sum()'s "delta +=
// sa->period_contrib; periods = delta / 1024;", a decay where periods is
// not 0. The tick's own balance softirq (update_blocked_averages()) runs
// a moment later, on the same clock to within the softirq's entry.
func (r TickRecord) LeafCrossed() bool {
	return r.Leaf && r.LeafAge >= 0 && r.LeafAge>>10+int64(r.LeafContrib) >= 1024
}

// IdleEntryEvent is the trace's event at an idle entry: do_idle()'s
// nohz_run_idle_balance() call, one per idle period (the count's
// nohz-run-idle). Between two of a cpu's ticks, an entry means a newidle
// walk before it (sched_balance_newidle(), whose update_next_balance()
// brings rq->next_balance within the idle interval: the next tick's walk
// is due); none means the cpu ran from tick to tick.
const IdleEntryEvent = "contend_idle"

// IdleEntryFunc is where IdleEntryEvent is taken.
const IdleEntryFunc = "nohz_run_idle_balance"

// Due is whether the tick raises the balance softirq for the cpu's own
// walk: time_after_eq(jiffies, rq->next_balance).
func (r TickRecord) Due() bool { return int64(r.Jiffies-r.NextBalance) >= 0 }

// TraceLost reads the trace text's header line "# entries-in-buffer/
// entries-written: KEPT/WRITTEN #P:CPUS": the records the ring buffer
// overwrote (WRITTEN less KEPT), 0 where the header is absent.
func TraceLost(text []byte) int {
	for _, line := range strings.Split(string(text), "\n") {
		rest, ok := strings.CutPrefix(line, "# entries-in-buffer/entries-written:")
		if !ok {
			continue
		}
		var kept, written int
		if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d/%d", &kept, &written); err == nil && written > kept {
			return written - kept
		}
		return 0
	}
	return 0
}

// ParseTickTrace reads a trace instance's text: lines such as
//
//	<idle>-0  [002] d.h2.  51.123456: contend_tick: (sched_balance_trigger+0x0/0x90) j=4295020000 nb=4295020001 ib=1 nr=0 tp=0 cu=18446... id=18446...
//	<idle>-0  [002] d..2.  51.124000: contend_idle: (nohz_run_idle_balance+0x0/0x80)
//
// skipping the '#' header. A line that is not a whole record is an error
// naming its number.
func ParseTickTrace(r io.Reader) ([]TickRecord, error) {
	return parseTrace(r, "tick trace", parseTickLine)
}

// parseTrace reads every record line of a trace's text (not its "#"
// header, nor a blank line) with parse; an error names what and the line.
func parseTrace[R any](r io.Reader, what string, parse func(line string) (R, error)) ([]R, error) {
	var out []R
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		rec, err := parse(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", what, n, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", what, n+1, err)
	}
	return out, nil
}

// traceHeader is a trace line's "COMM-PID [CPU] FLAGS TIMESTAMP: EVENT:
// ARGS" split: the task running (PID, -1 where the header has none), the
// cpu, the time, the event (its colon cut) and the words after it; with
// the task's name (Comm) and the irq-info flags between the cpu and the
// time ("d.s2.": irqs off, need-resched, hardirq or softirq, preempt
// depth, migrate-disable; "" where the line has none).
type traceHeader struct {
	PID   int32
	CPU   int
	Time  float64
	Comm  string
	Flags string
	Event string
	Args  []string
}

func splitTraceLine(line string) (traceHeader, error) {
	h := traceHeader{PID: -1}
	// The task's name may hold spaces and brackets, so the cpu is the
	// last [N] before the first timestamp that follows one.
	f := strings.Fields(line)
	cpuAt, timeAt := -1, -1
	for i, w := range f {
		if len(w) > 2 && w[0] == '[' && w[len(w)-1] == ']' {
			if c, err := strconv.Atoi(w[1 : len(w)-1]); err == nil && c >= 0 {
				h.CPU, cpuAt = c, i
			}
			continue
		}
		if s, ok := strings.CutSuffix(w, ":"); ok && cpuAt >= 0 {
			if t, err := strconv.ParseFloat(s, 64); err == nil && t >= 0 {
				h.Time, timeAt = t, i
				break
			}
		}
	}
	if cpuAt < 0 {
		return h, fmt.Errorf("no [cpu] in %q", line)
	}
	if timeAt < 0 {
		return h, fmt.Errorf("no timestamp after the cpu in %q", line)
	}
	// "COMM-PID": the name may hold dashes, the pid none; with
	// tracefs's record-tgid option a "(TGID)" stands between, which may
	// split into two words ("(  7)").
	at := cpuAt - 1
	if at >= 0 && strings.HasSuffix(f[at], ")") {
		for at > 0 && !strings.HasPrefix(f[at], "(") {
			at--
		}
		at--
	}
	if at >= 0 {
		w := f[at]
		dash := strings.LastIndexByte(w, '-')
		if pid, err := strconv.ParseInt(w[dash+1:], 10, 32); err == nil && pid >= 0 {
			h.PID = int32(pid)
			// A name with spaces spans words; its last word ends in -PID.
			h.Comm = strings.Join(append(slices.Clone(f[:at]), w[:max(dash, 0)]), " ")
		}
	}
	if timeAt == cpuAt+2 {
		h.Flags = f[cpuAt+1]
	}
	if timeAt+1 < len(f) {
		h.Event = strings.TrimSuffix(f[timeAt+1], ":")
		h.Args = f[timeAt+2:]
	}
	return h, nil
}

func parseTickLine(line string) (TickRecord, error) {
	h, err := splitTraceLine(line)
	rec := TickRecord{CPU: h.CPU, Time: h.Time}
	if err != nil {
		return rec, err
	}
	switch h.Event {
	case IdleEntryEvent:
		rec.IdleEntry = true // no arguments
		return rec, nil
	case NewidleEvent:
		return parseNewidle(rec, h.Args)
	case KickEvent:
		return parseKick(rec, h.Args)
	case GroupTickEvent:
		v, err := recordValues("group tick", h.Args, "cp", "q", "u", "c")
		if err != nil {
			return rec, err
		}
		rec.GroupTick, rec.LeafPtr = true, v["q"]
		return rec, rec.setLeaf(v["cp"], v["li"], v["u"], v["c"], "c")
	}
	v, err := recordValues("tick", h.Args, "j", "nb", "ib", "nr", "tp", "cu", "id")
	if err != nil {
		return rec, err
	}
	if v["nr"] > math.MaxUint32 {
		return rec, fmt.Errorf("nr=%d: over 32 bits", v["nr"])
	}
	rec.Jiffies, rec.NextBalance, rec.IdleBalance = v["j"], v["nb"], v["ib"] != 0
	rec.NrRunning, rec.TTWUPending = uint32(v["nr"]), v["tp"] != 0
	curr, idle := v["cu"], v["id"]
	own := strconv.Itoa(rec.CPU)
	clock, lost := v["cp"], v["li"]
	lut, hasLUT := v["u"+own]
	contrib, hasContrib := v["c"+own]
	_, hasClock := v["cp"]
	rec.IdleTask = curr == idle
	if hasClock && hasLUT && hasContrib {
		return rec, rec.setLeaf(clock, lost, lut, contrib, "c"+own)
	}
	return rec, nil
}

// setLeaf sets the record's leaf age from rq->clock_pelt, lost_idle_time
// and the cfs_rq's last_update_time and period_contrib (whose fetch
// argument is named key). The tick probe runs after sched_tick() has let
// go of the rq's lock: a leaf updated between the fetches of the clock
// and of last_update_time (an enqueue onto this rq from another cpu)
// would give a negative age, kept as -1, not a crossing.
func (r *TickRecord) setLeaf(clock, lost, lut, contrib uint64, key string) error {
	if contrib >= 1024 {
		return fmt.Errorf("%s=%d: period_contrib over 1023 (the kernel keeps it under 1024)", key, contrib)
	}
	now := clock - min(lost, clock)
	r.Leaf, r.LeafAge, r.LeafContrib = true, int64(now-lut), uint32(contrib)
	if lut > now {
		r.LeafAge = -1
	}
	return nil
}

// recordValues reads a record's KEY=NUMBER arguments, every one of them
// a number, and wants each of need: the kind's record's fetch arguments
// by name.
func recordValues(kind string, args []string, need ...string) (map[string]uint64, error) {
	v := map[string]uint64{}
	for _, w := range args {
		k, val, ok := strings.Cut(w, "=")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(val, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: not a number", k, val)
		}
		v[k] = n
	}
	for _, k := range need {
		if _, ok := v[k]; !ok {
			return nil, fmt.Errorf("%s record: no %s=", kind, k)
		}
	}
	return v, nil
}

// parseNewidle reads a newidle record's arguments (NewidleArgs) into rec.
func parseNewidle(rec TickRecord, args []string) (TickRecord, error) {
	rec.Newidle = true
	v, err := recordValues("newidle", args, "ai", "sd", "mc", "ov")
	if err != nil {
		return rec, err
	}
	rec.AvgIdle, rec.Overloaded, rec.NoDomain = v["ai"], v["ov"] != 0, v["sd"] == 0
	if !rec.NoDomain {
		rec.NewidleCost = v["mc"]
	}
	return rec, nil
}

// UnderCost is whether a newidle record's walk returned at the gate's
// avg_idle test, the root domain overloaded: rq->avg_idle under the
// lowest domain's max_newidle_lb_cost.
func (r TickRecord) UnderCost() bool {
	return r.Newidle && r.Overloaded && !r.NoDomain && r.AvgIdle < r.NewidleCost
}

// GateClosed is whether a newidle record's walk returned at
// sched_balance_newidle()'s gate: the root domain not overloaded, or
// UnderCost.
func (r TickRecord) GateClosed() bool {
	return r.Newidle && (!r.Overloaded || r.UnderCost())
}

// parseKick reads a kick record's arguments (KickFetch.Args) into rec.
func parseKick(rec TickRecord, args []string) (TickRecord, error) {
	rec.Kick = true
	v, err := recordValues("kick", args, "j", "self", "m")
	if err != nil {
		return rec, err
	}
	rec.Jiffies, rec.Self, rec.Masked = v["j"], v["self"], v["m"]
	if fl, ok := v["fl"]; ok {
		rec.HasFlags, rec.KickFlags = true, uint32(fl)
	}
	if rec.IdleCPUs, rec.RQs, err = idleCPUs("kick", v); err != nil {
		return rec, err
	}
	for i := range rec.RQs {
		nb, ok := v["nb"+strconv.Itoa(i)]
		if !ok {
			return rec, fmt.Errorf("kick record: cpu %d has nr%d= but no nb%d=", i, i, i)
		}
		if int64(rec.Jiffies-nb) >= 0 {
			rec.DueCPUs |= 1 << i
		}
	}
	if rec.RQs == 0 {
		return rec, fmt.Errorf("kick record: no cpu's rq (nr0=)")
	}
	return rec, nil
}

// KickSelfOK is whether rec, a kick's record, read its own cpu's rq
// where its argument says the rq is: the check that rqs, the per-cpu
// addresses its fetches were built from, are right.
func KickSelfOK(rec TickRecord, rqs []uint64) bool {
	return rec.CPU < len(rqs) && rqs[rec.CPU] == rec.Self
}

// TickTrace sums a tick trace: the shares the models' tick rules take
// or are held to, by what the records read.
type TickTrace struct {
	Func  string `json:"func"`  // the function traced
	Ticks int    `json:"ticks"` // records of ticks
	// Idle are the ticks that found the idle task running (what
	// task_tick_idle() counts); IdleNotIdle those of them whose
	// rq->idle_balance was 0 (a task queued, IdleQueued, or a wakeup
	// pending, IdlePending): their walk, if due, balances CPU_NOT_IDLE.
	Idle        int `json:"idle"`
	IdleNotIdle int `json:"idle_not_idle"`
	IdleQueued  int `json:"idle_queued"`
	IdlePending int `json:"idle_pending"`
	// IdleDue and BusyDue are the idle and the other ticks whose own
	// walk was due (jiffies at or past rq->next_balance).
	IdleDue int `json:"idle_due"`
	BusyDue int `json:"busy_due"`
	// Slots are pairs of one cpu's successive ticks a tick period apart
	// (within half a period), by how far jiffies moved between them: 0
	// (the later tick read the jiffy the earlier one read), 1, 2 or more.
	Slots [3]int `json:"slots"`
	// States are the same pairs by the cpu's state at each (0 busy, 1
	// the idle task running): States[earlier][later].
	States [2][2]int `json:"states"`
	// Lost are the records the ring buffer overwrote (TraceLost): where
	// any were, the trace covers only the run's end, and its counts are
	// no rates.
	Lost int `json:"lost,omitempty"`
	// IdleEntries are the idle entries traced; BusyEntry are the pairs
	// whose ticks both found the cpu busy, by whether an idle entry came
	// between (BusyEntry[1]) or none did (BusyEntry[0]). (A busy tick
	// whose next finds the cpu idle has one always: it went idle.)
	IdleEntries int    `json:"idle_entries"`
	BusyEntry   [2]int `json:"busy_entry"`
	// BusyRun are the pairs of one cpu's successive busy ticks with no
	// idle entry between (the cpu ran throughout, so its tick never
	// stopped), by whether the later came on time, within half a period
	// of one period after ([0]), or late ([1]): a tick the cpu could not
	// take, which an emulator's vCPU stalled on its host makes.
	BusyRun [2]int `json:"busy_run"`
	// BusyLateUs and IdleLateUs are the median lateness of the busy and
	// the idle ticks, in µs after the tick's due time (TickLateness);
	// BusyLatePeriod is the busy ticks' mean lateness in PELT periods
	// (1024 µs), each capped at one: the chance a PELT period boundary
	// fell within a busy tick's lateness. Zero where ticks were too few.
	BusyLateUs     float64 `json:"busy_late_us,omitempty"`
	IdleLateUs     float64 `json:"idle_late_us,omitempty"`
	BusyLatePeriod float64 `json:"busy_late_period,omitempty"`
	// QueuedLeaf are the idle ticks that found a task queued (the idle
	// task running, nr_running above 0) whose record has the workload's
	// leaf cfs_rq (TickRecord.Leaf), QueuedCrossed those whose leaf
	// would decay at the tick's softirq (LeafCrossed), and QueuedAgeUs
	// their leaves' median age, µs: how long the woken task's cfs_rq had
	// gone without an update when a tick came in its wait. IdleLeaf and
	// IdleCrossed are the same of the idle ticks with none queued.
	// GroupTicks are the ticks that found one of the workload's tasks
	// running on its leaf cfs_rq (a group tick record whose cfs_rq is
	// the cpu's leaf: SumGroupTicks), GroupCrossed those whose leaf was
	// past a PELT period as the tick came (entity_tick() decays it), and
	// GroupAgeUs their leaves' median age, µs.
	GroupTicks    int     `json:"group_ticks,omitempty"`
	GroupCrossed  int     `json:"group_crossed,omitempty"`
	GroupAgeUs    float64 `json:"group_age_us,omitempty"`
	QueuedLeaf    int     `json:"queued_leaf,omitempty"`
	QueuedCrossed int     `json:"queued_crossed,omitempty"`
	QueuedAgeUs   float64 `json:"queued_age_us,omitempty"`
	IdleLeaf      int     `json:"idle_leaf,omitempty"`
	IdleCrossed   int     `json:"idle_crossed,omitempty"`
	// Kicks are the kicks traced (KickEvent); of the other cpus at each,
	// KickMasked are those in nohz.idle_cpus_mask, KickIdle those of
	// them idle (idle_cpu()), KickIdleDue those of them due as well:
	// the cpus the walk that follows would balance, had nothing changed.
	// KickSelfDue are the kicks whose own cpu was in the mask, idle and
	// due (the walk reaches it last, for_each_cpu_wrap() from this_cpu+1).
	Kicks       int `json:"kicks,omitempty"`
	KickMasked  int `json:"kick_masked,omitempty"`
	KickIdle    int `json:"kick_idle,omitempty"`
	KickIdleDue int `json:"kick_idle_due,omitempty"`
	KickSelfDue int `json:"kick_self_due,omitempty"`
	// Of the kicks that read their flags (KickFlagged): KickWalks found
	// their own cpu idle, so nohz_csd_func() raised the softirq whose
	// walk follows ("rq->idle_balance = idle_cpu(cpu); if
	// (rq->idle_balance) ..."); KickBalance of those carried
	// NOHZ_BALANCE_KICK, so the walk runs passes; KickPasses are the
	// cpus those walks would pass over, had nothing changed: the other
	// cpus in the mask, idle and due, and their own where it was.
	KickFlagged int `json:"kick_flagged,omitempty"`
	KickWalks   int `json:"kick_walks,omitempty"`
	KickBalance int `json:"kick_balance,omitempty"`
	KickPasses  int `json:"kick_passes,omitempty"`
	// KickWrongRQ are the kick records dropped as read from the wrong
	// addresses (KickSelfOK).
	KickWrongRQ int `json:"kick_wrong_rq,omitempty"`
	// Newidles are the newidle walks traced (NewidleEvent);
	// NewidleNotOverloaded those that found the root domain not
	// overloaded, NewidleUnderCost those that found it overloaded and
	// rq->avg_idle under the lowest domain's max_newidle_lb_cost (both
	// return at the gate: GateClosed); NewidleAvgIdleUs and NewidleCostUs
	// the medians of avg_idle and, where there was a domain, of its cost.
	Newidles             int     `json:"newidles,omitempty"`
	NewidleNotOverloaded int     `json:"newidle_not_overloaded,omitempty"`
	NewidleUnderCost     int     `json:"newidle_under_cost,omitempty"`
	NewidleAvgIdleUs     float64 `json:"newidle_avg_idle_us,omitempty"`
	NewidleCostUs        float64 `json:"newidle_cost_us,omitempty"`
}

// peltPeriod is a PELT period in seconds (1024 µs: kernel/sched/pelt.c's
// unit, 1024 ns × 1024).
const peltPeriod = 1024e-6

// TickLateness returns each tick's lateness in seconds, in recs' order
// of one cpu's ticks: how long after its due time it ran. A cpu's tick
// is an hrtimer at a fixed phase of the tick period, so the due times
// are that phase plus whole periods; the phase is the densest 20 µs bin
// of the ticks' times modulo the period (most ticks run on time), its
// earliest tick's. A tick a little early of it (jitter) is on time.
func TickLateness(times []float64, period float64) []float64 {
	if len(times) == 0 || period <= 0 {
		return nil
	}
	const bin = 20e-6
	nb := max(int(period/bin), 1)
	counts := make([]int, nb)
	mod := func(t float64) float64 { return math.Mod(math.Mod(t, period)+period, period) }
	for _, t := range times {
		counts[min(int(mod(t)/bin), nb-1)]++
	}
	best := 0
	for i, c := range counts {
		if c > counts[best] {
			best = i
		}
	}
	phase := period
	for _, t := range times {
		if m := mod(t); min(int(m/bin), nb-1) == best {
			phase = min(phase, m)
		}
	}
	late := make([]float64, len(times))
	for i, t := range times {
		l := math.Round(mod(t-phase)*1e9) / 1e9 // to the trace's ns
		if l > period-bin {                     // a few µs early: on time
			l = 0
		}
		late[i] = l
	}
	return late
}

// lateness fills t's lateness figures from each cpu's ticks.
func (t *TickTrace) lateness(byCPU map[int][]TickRecord, period float64) {
	var busy, idle []float64
	for _, rs := range byCPU {
		times := make([]float64, len(rs))
		for i, r := range rs {
			times[i] = r.Time
		}
		for i, l := range TickLateness(times, period) {
			if rs[i].IdleTask {
				idle = append(idle, l)
			} else {
				busy = append(busy, l)
			}
		}
	}
	median := func(v []float64) float64 {
		if len(v) == 0 {
			return 0
		}
		slices.Sort(v)
		return v[len(v)/2] * 1e6
	}
	if len(busy) > 0 {
		sum := 0.0
		for _, l := range busy {
			sum += min(l/peltPeriod, 1)
		}
		t.BusyLatePeriod = sum / float64(len(busy))
	}
	t.BusyLateUs, t.IdleLateUs = median(busy), median(idle)
}

// BusyCorr is the correlation of a cpu's state at successive ticks, the
// chance the later tick finds it busy after a busy tick less that after
// an idle one: 0 where the ticks are drawn on their own, 1 where a cpu
// never changes; 0 where either state had no pair.
func (t TickTrace) BusyCorr() float64 {
	b, i := t.States[0][0]+t.States[0][1], t.States[1][0]+t.States[1][1]
	if b == 0 || i == 0 {
		return 0
	}
	return float64(t.States[0][0])/float64(b) - float64(t.States[1][0])/float64(i)
}

// SumTicks sums records (in any order; each cpu's in time order) at hz;
// with hz unknown (0) it pairs no ticks.
func SumTicks(fn string, recs []TickRecord, hz int) TickTrace {
	t := TickTrace{Func: fn}
	period := 1 / float64(max(hz, 1))
	last := map[int]TickRecord{}
	entered := map[int]bool{} // an idle entry since the cpu's last tick
	byCPU := map[int][]TickRecord{}
	var ages, avgIdle, cost []float64
	for _, r := range recs {
		if r.GroupTick {
			continue // SumGroupTicks'
		}
		if r.IdleEntry {
			t.IdleEntries++
			entered[r.CPU] = true
			continue
		}
		if r.Newidle {
			t.Newidles++
			t.NewidleNotOverloaded += b2i(!r.Overloaded)
			t.NewidleUnderCost += b2i(r.UnderCost())
			avgIdle = append(avgIdle, float64(r.AvgIdle)/1e3)
			if !r.NoDomain {
				cost = append(cost, float64(r.NewidleCost)/1e3)
			}
			continue
		}
		if r.Kick {
			self := uint64(1) << r.CPU
			t.Kicks++
			t.KickMasked += bits.OnesCount64(r.Masked &^ self)
			t.KickIdle += bits.OnesCount64(r.Masked & r.IdleCPUs &^ self)
			t.KickIdleDue += bits.OnesCount64(r.Masked & r.IdleCPUs & r.DueCPUs &^ self)
			t.KickSelfDue += b2i(r.Masked&r.IdleCPUs&r.DueCPUs&self != 0)
			if r.HasFlags {
				t.KickFlagged++
				if r.IdleCPUs&self != 0 {
					t.KickWalks++
					if r.KickFlags&1 != 0 {
						t.KickBalance++
						t.KickPasses += bits.OnesCount64(r.Masked & r.IdleCPUs & r.DueCPUs)
					}
				}
			}
			continue
		}
		t.Ticks++
		byCPU[r.CPU] = append(byCPU[r.CPU], r)
		switch {
		case !r.Leaf || !r.IdleTask:
		case r.NrRunning > 0:
			t.QueuedLeaf++
			t.QueuedCrossed += b2i(r.LeafCrossed())
			if r.LeafAge >= 0 {
				ages = append(ages, float64(r.LeafAge)/1e3)
			}
		default:
			t.IdleLeaf++
			t.IdleCrossed += b2i(r.LeafCrossed())
		}
		if r.IdleTask {
			t.Idle++
			if !r.IdleBalance {
				t.IdleNotIdle++
				if r.NrRunning > 0 {
					t.IdleQueued++
				} else if r.TTWUPending {
					t.IdlePending++
				}
			}
			if r.Due() {
				t.IdleDue++
			}
		} else if r.Due() {
			t.BusyDue++
		}
		if p, ok := last[r.CPU]; ok && hz > 0 {
			if !p.IdleTask && !r.IdleTask && !entered[r.CPU] && r.Time > p.Time {
				t.BusyRun[b2i(r.Time-p.Time >= 1.5*period)]++
			}
			if dt := r.Time - p.Time; dt > period/2 && dt < 1.5*period {
				t.Slots[min(max(int64(r.Jiffies-p.Jiffies), 0), 2)]++
				t.States[b2i(p.IdleTask)][b2i(r.IdleTask)]++
				if !p.IdleTask && !r.IdleTask {
					t.BusyEntry[b2i(entered[r.CPU])]++
				}
			}
		}
		last[r.CPU], entered[r.CPU] = r, false
	}
	if hz > 0 {
		t.lateness(byCPU, period)
	}
	t.QueuedAgeUs, t.NewidleAvgIdleUs, t.NewidleCostUs = median(ages), median(avgIdle), median(cost)
	return t
}

// SumGroupTicks fills t's group tick figures from recs: the group tick
// records whose cfs_rq is their cpu's leaf (leaves[cpu], LeafFetch's).
func (t *TickTrace) SumGroupTicks(recs []TickRecord, leaves []uint64) {
	var ages []float64
	for _, r := range recs {
		if !r.GroupTick || r.CPU < 0 || r.CPU >= len(leaves) || r.LeafPtr != leaves[r.CPU] {
			continue
		}
		t.GroupTicks++
		t.GroupCrossed += b2i(r.LeafCrossed())
		if r.LeafAge >= 0 {
			ages = append(ages, float64(r.LeafAge)/1e3)
		}
	}
	t.GroupAgeUs = median(ages)
}

// median is v's median (v sorted in place), 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
