package kernel

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The wake record: one per placement the fair class makes, taken at
// select_task_rq_fair()'s entry, with its return beside it (a kretprobe),
// so a count can say which of the wakeup path's tests put the workload's
// wakees where they went. The path, v6.1 to v7.3 (fair.c):
//
//	wake_affine_idle(this_cpu, prev_cpu, sync):
//		if (available_idle_cpu(this_cpu) && cpus_share_cache(this_cpu, prev_cpu))
//			return available_idle_cpu(prev_cpu) ? prev_cpu : this_cpu;
//		if (sync && cpu_rq(this_cpu)->nr_running == 1)	/* less delayed, v6.12 */
//			return this_cpu;
//	select_idle_sibling(p, prev, target):
//		if (available_idle_cpu(target)) return target;
//		if (prev != target && cpus_share_cache(prev, target) &&
//		    available_idle_cpu(prev)) return prev;
//		recent_used_cpu: the same test of p->recent_used_cpu;
//		select_idle_cpu(): SIS_UTIL's "nr = sd_share->nr_idle_scan + 1;
//		    if (nr == 1) return -1;", else a scan of the LLC;
//		return target;
//
// So the entry reads the wakee (p->pid, p->recent_used_cpu), prev_cpu
// and wake_flags (its arguments), what available_idle_cpu() reads of
// every cpu (rq->curr against rq->idle, rq->nr_running,
// rq->ttwu_pending, as the kick record does; vcpu_is_preempted() is
// false in a guest without KVM's steal time) and, per cpu, its LLC's
// nr_idle_scan (through the per-cpu sd_llc_shared pointer); the return
// reads the cpu chosen. The record's own cpu is the waking cpu, this_cpu.
// cpus_share_cache() is sd_llc_id's equality, read once before the run.

// The wake record's events and where they are taken.
const (
	WakeEvent = "contend_wake"
	WokeEvent = "contend_woke"
	WakeFunc  = "select_task_rq_fair"
)

// wake_flags, kernel/sched/sched.h (v5.11's values, unchanged to 7.3).
const (
	wfTTWU = 0x08
	wfSync = 0x10
)

// wakeCPUFields are the struct rq members the wake record reads of each
// cpu: what available_idle_cpu() tests.
var wakeCPUFields = []string{"nr", "tp", "cu", "id"}

// WakeFetch says where the wake record reads: task_struct's pid and
// recent_used_cpu (offsets), each cpu's struct rq (RQs, as KickFetch's)
// and struct rq's members by name, and where sd_llc_shared points for
// each cpu (LLCShared[cpu], the per-cpu pointer's address; 0 where the
// pointer was NULL, a cpu with no LLC domain, whose budget is not read) with
// sched_domain_shared's nr_idle_scan offset (NrIdleScan, -1 where the
// kernel has no SIS_UTIL). LLC is each cpu's sd_llc_id.
type WakeFetch struct {
	PID, RecentUsedCPU int64
	RQs                []uint64
	RQ                 map[string]int64
	LLCShared          []uint64
	NrIdleScan         int64
	LLC                []int
}

// Args are the entry's kprobe fetch arguments: pid, prev, wf, ru (the
// wakee's recent_used_cpu), per cpu i nrI, tpI, cuI and idI, and nsI
// (nr_idle_scan of cpu i's LLC) where the kernel has it.
func (f WakeFetch) Args() (string, error) {
	per := len(wakeCPUFields)
	if f.NrIdleScan >= 0 {
		per++
	}
	if n := 4 + per*len(f.RQs); n > maxTraceArgs {
		return "", fmt.Errorf("%d cpus need %d fetch arguments, over a kprobe's %d (MAX_TRACE_ARGS)", len(f.RQs), n, maxTraceArgs)
	}
	if f.PID < 0 || f.RecentUsedCPU < 0 {
		return "", fmt.Errorf("BTF's task_struct has no pid or recent_used_cpu")
	}
	// Unsigned fetches throughout: the parser takes numbers without a
	// sign, and int32 of the 32 bits gives back recent_used_cpu's -1.
	args := []string{fmt.Sprintf("pid=+%d($arg1):u32", f.PID), "prev=$arg2:u32", "wf=$arg3:u32", fmt.Sprintf("ru=+%d($arg1):u32", f.RecentUsedCPU)}
	cpus, err := idleCPUArgs(f.RQs, f.RQ, wakeCPUFields)
	if err != nil {
		return "", err
	}
	args = append(args, cpus...)
	if f.NrIdleScan >= 0 {
		for i, p := range f.LLCShared {
			if p != 0 {
				args = append(args, fmt.Sprintf("ns%d=+%d(@%#x):u32", i, f.NrIdleScan, p))
			}
		}
	}
	return strings.Join(args, " "), nil
}

// wakeBufferKB sizes the wake instance's ring buffer per cpu for n cpus:
// 8 MiB a cpu up to 8 cpus, then 64 MiB in all, at least 1 MiB a cpu. A guest's pipe pairs make up to 28k
// wakeups a second (6.18, 3 pairs), two records each of about 140 bytes
// on 4 cpus: 2 s of them are some 8 MiB.
func wakeBufferKB(n int) int { return min(max(64<<10/max(n, 1), 1<<10), 8<<10) }

// WokeArgs are the return's fetch argument: the cpu chosen.
const WokeArgs = "cpu=$retval:u32"

// idleCPUArgs are the fetch arguments that read keys (tickFields' keys)
// of each cpu's rq at rqs[i], named KEYi.
func idleCPUArgs(rqs []uint64, rq map[string]int64, keys []string) ([]string, error) {
	var args []string
	for i, addr := range rqs {
		for _, k := range keys {
			j := slices.IndexFunc(tickFields, func(f [2]string) bool { return f[0] == k })
			if j < 0 {
				return nil, fmt.Errorf("no rq member has the record key %q", k)
			}
			off, ok := rq[tickFields[j][1]]
			if !ok {
				return nil, fmt.Errorf("BTF's struct rq has no %s", tickFields[j][1])
			}
			args = append(args, fmt.Sprintf("%s%d=@%#x:%s", k, i, addr+uint64(off), tickFieldTypes[k]))
		}
	}
	return args, nil
}

// idleCPUs reads the cpus idle_cpu() calls idle (the idle task current,
// none queued, no wakeup pending) out of a record's nrI, tpI, cuI and
// idI, and how many cpus it read: cpus 0 to n-1, each with all four.
func idleCPUs(kind string, v map[string]uint64) (idle uint64, n int, err error) {
	for i := range 64 {
		c := strconv.Itoa(i)
		if _, ok := v["nr"+c]; !ok {
			return idle, i, nil
		}
		for _, k := range []string{"tp", "cu", "id"} {
			if _, ok := v[k+c]; !ok {
				return 0, 0, fmt.Errorf("%s record: cpu %d has nr%d= but no %s%d=", kind, i, i, k, i)
			}
		}
		if v["cu"+c] == v["id"+c] && v["nr"+c] == 0 && v["tp"+c] == 0 {
			idle |= 1 << i
		}
	}
	return idle, 64, nil
}

// WakeRecord is one record of a wake trace: a wakeup's entry into
// select_task_rq_fair() on the waking cpu (CPU), or, Woke, its return.
// Of an entry: WakerPID is the task the line's header names running on
// the waking cpu, PID the wakee, Prev its prev_cpu, Recent its
// recent_used_cpu, Flags the wake_flags, IdleCPUs (bit i, cpu i < 64)
// the cpus available_idle_cpu() would call idle of the RQs read,
// PendingCPUs those running their idle task with a wakeup queued to
// them (ttwu_pending: the wakelist's IPI not yet taken, which idle_cpu()
// refuses), Curr each cpu's rq->curr, WakerNr the waking cpu's nr_running and Scan its
// LLC's nr_idle_scan (-1 not read). Of a return: To, the cpu chosen.
type WakeRecord struct {
	CPU                    int
	Time                   float64
	Woke                   bool
	WakerPID, PID          int32
	Prev, Recent, Scan, To int32
	Flags, WakerNr         uint32
	IdleCPUs, PendingCPUs  uint64
	// IdleTaskCPUs are those whose rq->curr is their idle task, a task
	// queued or not.
	IdleTaskCPUs uint64
	RQs          int
	Curr         []uint64
	// Move, where set, makes this a move record (movetrace.go), not a
	// wakeup's.
	Move *MoveRecord
}

// ParseWakeTrace reads a wake trace's text (its instance's "trace"
// file): every record line a WakeEvent's or a WokeEvent's, or an error
// naming its number.
func ParseWakeTrace(r io.Reader) ([]WakeRecord, error) {
	return parseTrace(r, "wake trace", parseWakeLine)
}

func parseWakeLine(line string) (WakeRecord, error) {
	h, err := splitTraceLine(line)
	rec := WakeRecord{CPU: h.CPU, Time: h.Time, WakerPID: h.PID}
	switch {
	case err != nil:
	case h.Event == WakeEvent:
		err = rec.parseEntry(h.Args)
	case h.Event == WokeEvent:
		err = rec.parseReturn(h.Args)
	case h.Event == MoveEvent:
		return parseMove(h)
	default:
		err = fmt.Errorf("event %q, none of %s, %s and %s", h.Event, WakeEvent, WokeEvent, MoveEvent)
	}
	return rec, err
}

// parseEntry reads a wake record's arguments (WakeFetch.Args).
func (rec *WakeRecord) parseEntry(args []string) error {
	v, err := recordValues("wake", args, "pid", "prev", "wf", "ru", "nr0")
	if err != nil {
		return err
	}
	if rec.IdleCPUs, rec.RQs, err = idleCPUs("wake", v); err != nil {
		return err
	}
	rec.Curr = make([]uint64, rec.RQs)
	for i := range rec.Curr {
		c := strconv.Itoa(i)
		rec.Curr[i] = v["cu"+c]
		if v["cu"+c] == v["id"+c] {
			rec.IdleTaskCPUs |= 1 << i
		}
		if v["cu"+c] == v["id"+c] && v["tp"+c] != 0 && v["nr"+c] == 0 {
			// sched_ttwu_pending() enqueues before it clears
			// ttwu_pending: a cpu with a task queued is past it.
			rec.PendingCPUs |= 1 << i
		}
	}
	rec.PID, rec.Prev, rec.Recent = int32(v["pid"]), int32(v["prev"]), int32(v["ru"])
	rec.Flags = uint32(v["wf"])
	if rec.Prev < 0 || rec.Prev >= 64 {
		return fmt.Errorf("wake record: prev=%d, not a cpu", rec.Prev)
	}
	if rec.CPU < rec.RQs {
		rec.WakerNr = uint32(v["nr"+strconv.Itoa(rec.CPU)])
	}
	rec.Scan = -1
	if ns, ok := v["ns"+strconv.Itoa(rec.CPU)]; ok {
		rec.Scan = int32(ns)
	}
	return nil
}

// parseReturn reads a wake return's record (WokeArgs).
func (rec *WakeRecord) parseReturn(args []string) error {
	rec.Woke = true
	v, err := recordValues("woke", args, "cpu")
	if err != nil {
		return err
	}
	rec.To = int32(v["cpu"])
	if rec.To < 0 || rec.To >= 64 {
		return fmt.Errorf("woke record: cpu=%d, not a cpu", rec.To)
	}
	return nil
}

// WakeTrace sums the workload's wakeups in a wake trace: where
// select_task_rq_fair() put each, and what the cpus were as it began.
// A pair's wakeups are two populations: stacked, the wakee's prev_cpu
// the waking cpu (the two share it: select_idle_sibling() skips its
// prev test), and split; a pair moves between them by a wakeup that
// parts it (a stacked wakee put elsewhere: its recent_used_cpu, another
// cpu of the LLC, idle, or select_idle_cpu() found an idle cpu of the
// LLC within its budget) or one that joins it (a split wakee put on the
// waking cpu: wake_affine()'s WF_SYNC pull, its prev not an idle cpu of
// the waking cpu's LLC).
type WakeTrace struct {
	// Wakes are the workload's wakeups (WF_TTWU, a wakee of tids) with
	// their return; Unpaired those whose return the trace lacks (tracing
	// turned on or off between the two, or a kretprobe missed). Sync of them carried
	// WF_SYNC; Local went to the waking cpu (schedstat's
	// nr_wakeups_local, counted apart: a check), AtPrev to prev_cpu,
	// another cpu; NoScan found the waking cpu's LLC's nr_idle_scan 0
	// (select_idle_cpu() scans nothing), of Scanned that read it.
	Wakes    int `json:"wakes"`
	Unpaired int `json:"unpaired,omitempty"`
	Sync     int `json:"sync"`
	Local    int `json:"local"`
	AtPrev   int `json:"at_prev"`
	Scanned  int `json:"scanned,omitempty"`
	NoScan   int `json:"no_scan,omitempty"`
	// Stacked are the wakeups whose prev_cpu was the waking cpu;
	// StackedParted those put elsewhere; StackedNoScan found the LLC's
	// nr_idle_scan 0, StackedIdleMate an idle cpu in the waking cpu's
	// LLC besides it, StackedScanIdle both a budget and an idle cpu
	// (what the scan would take, had nothing changed); StackedRecentIdle
	// found the wakee's recent_used_cpu another cpu of the LLC, idle:
	// select_idle_sibling() takes it before any scan, budget or none
	// (a pair joined within an LLC parts that way at its next wakeup).
	Stacked         int `json:"stacked"`
	StackedParted   int `json:"stacked_parted"`
	StackedNoScan   int `json:"stacked_no_scan,omitempty"`
	StackedIdleMate int `json:"stacked_idle_mate"`
	StackedScanIdle int `json:"stacked_scan_idle"`
	// StackedScanFinds had an idle cpu within the budget's reach:
	// select_idle_cpu()'s loop, nr_idle_scan probes of the LLC's cpus
	// from the waking cpu's next up, wrapping (for_each_cpu_wrap(cpu,
	// cpus, target + 1) with "if (!--nr) return -1;" before each),
	// meets one (no SMT: the lab's guests have none).
	StackedScanFinds int `json:"stacked_scan_finds"`
	// StackedByRule had either, an idle recent_used_cpu or an idle cpu
	// in the budget's reach: what select_idle_sibling()'s rules part,
	// had nothing changed between the record and the choice.
	StackedByRule     int `json:"stacked_by_rule"`
	StackedRecentIdle int `json:"stacked_recent_idle"`
	// StackedMatePending found another cpu of the waking cpu's LLC
	// idle but for a wakeup queued to it (PendingCPUs): taken, had its
	// IPI landed.
	StackedMatePending int `json:"stacked_mate_pending"`
	// StackedMateWork found another cpu of the waking cpu's LLC running
	// one of the workload's tasks (its rq->curr the waker's task of some
	// record whose line names a workload thread).
	StackedMateWork int `json:"stacked_mate_work"`
	// Joined are the other wakeups (split) put on the waking cpu;
	// JoinedPrevIdle of them found prev_cpu idle, JoinedPrevFar that
	// outside the waking cpu's LLC (cpus_share_cache() false, so
	// select_idle_sibling() does not take it); JoinedAlone were WF_SYNC
	// with the waker alone on its cpu (wake_affine_idle()'s this_cpu, the
	// target; from 6.13 the kernel leaves delayed tasks out of that
	// count, which the record's nr_running keeps).
	Joined         int `json:"joined"`
	JoinedAlone    int `json:"joined_alone"`
	JoinedPrevIdle int `json:"joined_prev_idle"`
	JoinedPrevFar  int `json:"joined_prev_far"`
	// PendingUs is how long a cpu stays idle with a wakeup queued to it
	// (PendingCPUs: the wakelist's IPI sent, not yet taken; under TCG,
	// a halted vCPU's wait for a host cpu): PendingQuantiles quantiles of
	// the spells, µs, each from the first record that finds a cpu so to
	// the first that finds it otherwise (records of every wakeup, the
	// workload's or not, so the spells are known to within the records'
	// spacing), of PendingSpells spells.
	PendingUs     []float64 `json:"pending_us,omitempty"`
	PendingSpells int       `json:"pending_spells,omitempty"`
	// PendingMedianUs and PendingP95Us are the spells' median and 95th
	// percentile, µs (0 with fewer than PendingQuantiles spells).
	PendingMedianUs float64 `json:"pending_median_us,omitempty"`
	PendingP95Us    float64 `json:"pending_p95_us,omitempty"`
	// LLCKnown says sd_llc_id was read (else StackedIdleMate,
	// StackedScanIdle, StackedMateWork and JoinedPrevFar are not summed).
	LLCKnown bool `json:"llc_known"`
	// Lost are the records the ring buffer overwrote (TraceLost): the
	// shares then cover the run's end.
	Lost int `json:"lost,omitempty"`
	// Moves sums the move records (SumMoves), where the trace took them.
	Moves *MoveTrace `json:"moves,omitempty"`
	// OtherRun… and WorkRun… are how long a task stayed a cpu's
	// rq->curr, by every record's reading of every cpu (so, as the
	// pending spells, to within the records' spacing), a task outside the
	// workload's (not the idle task) and one of the workload's: their
	// PendingQuantiles quantiles, the median, the 99th percentile (µs)
	// and how many spells (none with fewer than PendingQuantiles). Under TCG a spell runs on while the
	// host leaves its vCPU unrun.
	OtherRunUs       []float64 `json:"other_run_us,omitempty"` // PendingQuantiles quantiles
	WorkRunUs        []float64 `json:"work_run_us,omitempty"`
	OtherRunMedianUs float64   `json:"other_run_median_us,omitempty"`
	OtherRunP99Us    float64   `json:"other_run_p99_us,omitempty"`
	OtherRuns        int       `json:"other_runs,omitempty"`
	WorkRunMedianUs  float64   `json:"work_run_median_us,omitempty"`
	WorkRunP99Us     float64   `json:"work_run_p99_us,omitempty"`
	WorkRuns         int       `json:"work_runs,omitempty"`
}

// SumWakes pairs each cpu's wake records with their returns (in recs'
// order, each cpu's in time order: a cpu places one wakeup at a time,
// under p->pi_lock with interrupts off) and sums the wakeups of tids'
// tasks. llc is each cpu's sd_llc_id (nil where unknown).
func SumWakes(recs []WakeRecord, tids []int, llc []int) WakeTrace {
	w := WakeTrace{LLCKnown: len(llc) > 0}
	// The workload's task_structs, by the records whose waker is one of
	// its threads: the waking cpu's rq->curr is then that thread's.
	work := map[uint64]bool{}
	for i := range recs {
		if r := &recs[i]; !r.Woke && r.CPU < len(r.Curr) && slices.Contains(tids, int(r.WakerPID)) {
			work[r.Curr[r.CPU]] = true
		}
	}
	pending := map[int]*WakeRecord{}
	sameLLC := func(a, b int) bool { return a < len(llc) && b < len(llc) && llc[a] == llc[b] }
	var spells pendingSpells
	var runs runSpells
	moves := false
	for i := range recs {
		r := &recs[i]
		if r.Move != nil {
			moves = true
			continue
		}
		if !r.Woke {
			spells.see(r)
			runs.see(r, work)
			if p := pending[r.CPU]; p != nil && wanted(p, tids) {
				w.Unpaired++
			}
			pending[r.CPU] = r
			continue
		}
		e := pending[r.CPU]
		delete(pending, r.CPU)
		if e == nil || !wanted(e, tids) {
			continue
		}
		w.Wakes++
		waker, prev, to := e.CPU, int(e.Prev), int(r.To)
		sync := e.Flags&wfSync != 0
		w.Sync += b2i(sync)
		w.Local += b2i(to == waker)
		w.AtPrev += b2i(to == prev && to != waker)
		if e.Scan >= 0 {
			w.Scanned++
			w.NoScan += b2i(e.Scan == 0)
		}
		if prev != waker {
			if to == waker {
				w.Joined++
				w.JoinedAlone += b2i(sync && e.WakerNr == 1)
				if e.IdleCPUs&(1<<prev) != 0 {
					w.JoinedPrevIdle++
					w.JoinedPrevFar += b2i(w.LLCKnown && !sameLLC(prev, waker))
				}
			}
			continue
		}
		w.Stacked++
		w.StackedParted += b2i(to != waker)
		w.StackedNoScan += b2i(e.Scan == 0)
		if w.LLCKnown {
			var mates uint64
			mateWork := false
			for c := range min(e.RQs, 64) {
				if c != waker && sameLLC(c, waker) {
					mates |= 1 << c
					mateWork = mateWork || c < len(e.Curr) && work[e.Curr[c]]
				}
			}
			w.StackedMateWork += b2i(mateWork)
			w.StackedMatePending += b2i(e.PendingCPUs&mates != 0)
			ru := int(e.Recent)
			recent := ru != prev && ru >= 0 && ru < min(e.RQs, 64) && sameLLC(ru, waker) && e.IdleCPUs&(1<<ru) != 0
			finds := false
			w.StackedRecentIdle += b2i(recent)
			if e.IdleCPUs&mates != 0 {
				w.StackedIdleMate++
				w.StackedScanIdle += b2i(e.Scan != 0)
				finds = e.Scan > 0 && scanFinds(e.IdleCPUs, mates, waker, min(e.RQs, 64), int(e.Scan))
				w.StackedScanFinds += b2i(finds)
			}
			w.StackedByRule += b2i(recent || finds)
		}
	}
	for _, p := range pending {
		w.Unpaired += b2i(wanted(p, tids))
	}
	if moves {
		m := SumMoves(recs, tids)
		w.Moves = &m
	}
	w.PendingUs, w.PendingSpells = spells.us.quantiles(), len(spells.us)
	if w.PendingUs != nil {
		w.PendingMedianUs, w.PendingP95Us = spells.us.at(0.5), spells.us.at(0.95)
	}
	w.OtherRunUs, w.WorkRunUs = runs.other.quantiles(), runs.work.quantiles()
	if w.OtherRunUs != nil {
		w.OtherRunMedianUs, w.OtherRunP99Us, w.OtherRuns = runs.other.at(0.5), runs.other.at(0.99), len(runs.other)
	}
	if w.WorkRunUs != nil {
		w.WorkRunMedianUs, w.WorkRunP99Us, w.WorkRuns = runs.work.at(0.5), runs.work.at(0.99), len(runs.work)
	}
	return w
}

// PendingQuantiles is how many quantiles of the pending spells a wake
// trace keeps (WakeTrace.PendingUs): the 2.5th, 7.5th, ... 97.5th
// percentiles, each standing for a twentieth of the spells.
const PendingQuantiles = 20

// pendingSpells follows each cpu's pending state (WakeRecord.PendingCPUs)
// through the records, collecting the spells' lengths.
type pendingSpells struct {
	on    uint64      // the cpus seen pending
	since [64]float64 // since when
	us    spellLengths
}

func (p *pendingSpells) see(r *WakeRecord) {
	for c := range min(r.RQs, 64) {
		bit := uint64(1) << c
		switch pend := r.PendingCPUs&bit != 0; {
		case pend && p.on&bit == 0:
			p.on |= bit
			p.since[c] = r.Time
		case !pend && p.on&bit != 0:
			p.on &^= bit
			if d := r.Time - p.since[c]; d >= 0 {
				p.us = append(p.us, d*1e6)
			}
		}
	}
}

// runSpells follows each cpu's rq->curr through the records, collecting
// how long each task stayed current, the workload's tasks' (work) apart
// from the others' (neither the idle task nor the workload's): the time
// a task queued behind it waits.
type runSpells struct {
	curr        [64]uint64
	since       [64]float64
	seen, began uint64
	work, other spellLengths
}

func (s *runSpells) see(r *WakeRecord, work map[uint64]bool) {
	for c := range min(r.RQs, len(r.Curr), 64) {
		bit := uint64(1) << c
		cu := r.Curr[c]
		if r.IdleTaskCPUs&bit != 0 {
			cu = 0 // the idle task: no spell kept
		}
		if s.seen&bit != 0 && cu == s.curr[c] {
			continue
		}
		// A spell is kept from the record that first finds its task
		// current after another (the one current at the first record
		// began before the trace) to the one that finds it gone.
		if s.began&bit != 0 && s.curr[c] != 0 {
			if d := r.Time - s.since[c]; d >= 0 {
				if work[s.curr[c]] {
					s.work = append(s.work, d*1e6)
				} else {
					s.other = append(s.other, d*1e6)
				}
			}
		}
		if s.seen&bit != 0 {
			s.began |= bit
		}
		s.seen |= bit
		s.curr[c], s.since[c] = cu, r.Time
	}
}

// spellLengths are spells' lengths, µs.
type spellLengths []float64

// quantiles are the spells' PendingQuantiles quantiles, the midpoints of
// equal twentieths (the 2.5th, 7.5th, ... 97.5th percentiles: each
// stands for its twentieth when drawn), nil with fewer spells than that.
// The spells are those the records see: one shorter than the records'
// spacing mostly goes unseen, so the short end is thin.
func (l spellLengths) quantiles() []float64 {
	if len(l) < PendingQuantiles {
		return nil
	}
	q := make([]float64, PendingQuantiles)
	for i := range q {
		q[i] = l.at((float64(i) + 0.5) / PendingQuantiles)
	}
	return q
}

// at is the spells' quantile f (0 ≤ f < 1), the nearest rank's; l
// sorted in place.
func (l spellLengths) at(f float64) float64 {
	if !slices.IsSorted(l) {
		slices.Sort(l)
	}
	return l[min(int(f*float64(len(l))), len(l)-1)]
}

// scanFinds is whether select_idle_cpu()'s loop finds an idle cpu of
// idle among mates (the LLC's cpus but target, of n), probing budget of
// them from target's next up, wrapping.
func scanFinds(idle, mates uint64, target, n, budget int) bool {
	for i := 1; i < n && budget > 0; i++ {
		c := (target + i) % n
		if mates&(1<<c) == 0 {
			continue
		}
		if idle&(1<<c) != 0 {
			return true
		}
		budget--
	}
	return false
}

// wanted is whether a wake record is a wakeup (not a fork's or an
// exec's placement) of one of tids' tasks.
func wanted(r *WakeRecord, tids []int) bool {
	return r.Flags&wfTTWU != 0 && slices.Contains(tids, int(r.PID))
}
