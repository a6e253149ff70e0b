package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/contend/contend/internal/kernel/machine"
)

// wakeTracing is a count's wake trace (waketrace.go): its instance,
// recording over the counted run, and each cpu's sd_llc_id.
type wakeTracing struct {
	inst  *machine.Tracefs
	llc   []int
	moves bool // the move record's probe is in
}

// traceWakes sets up the wake trace: its own instance (the records come
// far more often than the ticks', which must not be overwritten) with
// the entry's kprobe and the return's kretprobe on select_task_rq_fair();
// or a note saying why there is none. The count goes on without it.
func traceWakes(u *machine.Undo, tfs *machine.Tracefs, in Input, cpus []int) (*wakeTracing, string) {
	const no = "no wake trace: "
	f, err := wakeFetch(in, cpus)
	if err != nil {
		return nil, no + err.Error()
	}
	args, err := f.Args()
	if err != nil {
		return nil, no + err.Error()
	}
	inst, err := tfs.Instance(u, "-wake")
	if err != nil {
		return nil, no + err.Error()
	}
	note := ""
	if err := inst.SetBufferKB(wakeBufferKB(len(f.RQs))); err != nil {
		note = fmt.Sprintf("wake trace: its buffer left at the default: %v", err)
	}
	// Both probes or neither: an entry without its return would fire
	// on every wakeup for nothing until the count's end.
	probes := machine.NewUndo(io.Discard)
	if err := tfs.AddTracedKprobe(probes, inst, WakeEvent, WakeFunc, args); err != nil {
		return nil, no + err.Error()
	}
	if err := tfs.AddTracedKretprobe(probes, inst, WokeEvent, WakeFunc, WokeArgs); err != nil {
		if uerr := probes.Run(); uerr != nil {
			return nil, no + err.Error() + "; " + uerr.Error()
		}
		return nil, no + err.Error()
	}
	u.Push("kprobes "+machine.ProbeGroup+"/"+WakeEvent+" and "+WokeEvent+" (traced)", probes.Run)
	// The move record rides along where it can; without it the wake
	// trace stands.
	moves := true
	if err := traceMoves(u, tfs, inst, in, f.RQs); err != nil {
		note = strings.TrimPrefix(note+"; ", "; ") + "no move records: " + err.Error()
		moves = false
	}
	return &wakeTracing{inst: inst, llc: f.LLC, moves: moves}, note
}

// traceMoves adds the move record's kprobe (movetrace.go) to the wake
// trace's instance.
func traceMoves(u *machine.Undo, tfs *machine.Tracefs, inst *machine.Tracefs, in Input, rqs []uint64) error {
	l := in.Layout
	if s, _, ok := in.Syms.Func(MoveFunc); !ok || s.Name != MoveFunc {
		return errors.New("kallsyms has no " + MoveFunc)
	}
	es := int64(-1)
	if l.TaskSE >= 0 && l.SEExecStart >= 0 {
		es = l.TaskSE + l.SEExecStart
	}
	var absent []string
	for _, m := range []string{"task_struct.pid", "task_struct.cpu", "task_struct.on_rq", "task_struct.se", "sched_entity.exec_start"} {
		if why, ok := l.Absent[m]; ok {
			absent = append(absent, why)
		}
	}
	if len(absent) > 0 {
		return errors.New(strings.Join(absent, "; "))
	}
	args, err := MoveFetch{PID: l.TaskPID, CPU: l.TaskCPU, OnRQ: l.TaskOnRQ, ExecStart: es, RQs: rqs, RQ: l.RQ}.Args()
	if err != nil {
		return err
	}
	probes := machine.NewUndo(io.Discard)
	if err := tfs.AddTracedKprobe(probes, inst, MoveEvent, MoveFunc, args); err != nil {
		return err
	}
	u.Push("kprobe "+machine.ProbeGroup+"/"+MoveEvent+" (traced)", probes.Run)
	return nil
}

// wakeFetch is where the wake record reads (WakeFetch): task_struct's
// and sched_domain_shared's offsets from BTF, each cpu's struct rq and
// sd_llc_shared pointer (their per-cpu addresses, __per_cpu_offset[cpu]
// read through /proc/kcore) and each cpu's sd_llc_id, read there once.
func wakeFetch(in Input, cpus []int) (*WakeFetch, error) {
	l := in.Layout
	if l == nil || len(cpus) == 0 || in.Mem == nil {
		return nil, errors.New("no BTF layout, no kernel memory or no cpus")
	}
	if s, _, ok := in.Syms.Func(WakeFunc); !ok || s.Name != WakeFunc {
		return nil, errors.New("kallsyms has no " + WakeFunc)
	}
	var addr [4]uint64
	for i, name := range []string{"runqueues", "__per_cpu_offset", "sd_llc_id", "sd_llc_shared"} {
		s, ok := in.Syms.Lookup(name)
		if !ok {
			return nil, errors.New("kallsyms has no " + name)
		}
		addr[i] = s.Addr
	}
	rqs, offsets, llcID, shared := addr[0], addr[1], addr[2], addr[3]
	f := &WakeFetch{PID: l.TaskPID, RecentUsedCPU: l.TaskRecentUsedCPU, RQ: l.RQ, NrIdleScan: l.SDSNrIdleScan}
	mem := &words{m: in.Mem}
	for cpu := range slices.Max(cpus) + 1 {
		off := mem.at(offsets + 8*uint64(cpu))
		f.RQs = append(f.RQs, rqs+off)
		// A cpu with no LLC domain has a NULL sd_llc_shared, whose
		// field a fetch would read as whatever the buffer held: none
		// is read for it (0), and its records have no budget.
		ptr := shared + off
		if mem.at(ptr) == 0 {
			ptr = 0
		}
		f.LLCShared = append(f.LLCShared, ptr)
		f.LLC = append(f.LLC, int(int32(mem.at(llcID+off)))) // an int: the word's low half
	}
	if mem.err != nil {
		return nil, mem.err
	}
	return f, nil
}

// read sums the instance's records of tids' wakeups, saving them to
// save where set; a save that fails is saveErr, and the sum stands.
func (w *wakeTracing) read(tids []int, save string) (t *WakeTrace, saveErr, err error) {
	raw, saveErr, err := readTrace(w.inst, save, "-wake-trace")
	if err != nil {
		return nil, saveErr, err
	}
	recs, err := ParseWakeTrace(bytes.NewReader(raw))
	if err != nil {
		return nil, saveErr, err
	}
	sum := SumWakes(recs, tids, w.llc)
	if sum.Wakes == 0 {
		return nil, saveErr, fmt.Errorf("no wakeup of the workload's %d threads among %d records", len(tids), len(recs))
	}
	sum.Lost = TraceLost(raw)
	if w.moves && sum.Moves == nil {
		sum.Moves = &MoveTrace{ByPath: map[string]int{}} // the probe in, no task moved
	}
	return &sum, saveErr, nil
}

// A WakeTracer is the wake trace of a run other than the count's
// (contend kernel wakeups): set up by TraceWakes, recording between
// Record(true) and Record(false), its records of the workload's threads
// summed by Read. Its probes and instance are on the Undo it was given.
type WakeTracer struct{ w *wakeTracing }

// TraceWakes sets up the wake trace on the kernel under root ("/" live)
// for its online cpus, mounting tracefs where it is not (on u): the
// tracer, or nil and a note saying why there is none, for the run to go
// on without it. A note beside a tracer says what it does without.
func TraceWakes(u *machine.Undo, root string) (*WakeTracer, string) {
	const no = "no wake trace: "
	src, err := Open(root)
	if err != nil {
		return nil, no + err.Error()
	}
	defer src.Close() // the fetch reads the core at setup only
	tfs, err := machine.MountedTracefs(u, root)
	if err != nil {
		return nil, no + err.Error()
	}
	cpus, err := onlineCPUs(root)
	if err != nil {
		return nil, no + err.Error()
	}
	w, note := traceWakes(u, tfs, src.Input, cpus)
	if w == nil {
		return nil, note
	}
	return &WakeTracer{w: w}, note
}

// Record turns the trace's recording on (emptying it first) or off.
func (t *WakeTracer) Record(on bool) error { return t.w.inst.Record(on) }

// Read sums the records of tids' wakeups (WakeTrace, with the records
// the ring buffer lost), saving the raw trace to save where set; a save
// that fails is saveErr, and the sum stands.
func (t *WakeTracer) Read(tids []int, save string) (w *WakeTrace, saveErr, err error) {
	return t.w.read(tids, save)
}
