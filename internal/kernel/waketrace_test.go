package kernel

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestWakeFetchArgs: the wakee's pid and recent_used_cpu through the
// task, prev_cpu and wake_flags as they come, and per cpu what
// available_idle_cpu() reads at rq + offset, then its LLC's
// nr_idle_scan behind the per-cpu sd_llc_shared pointer.
func TestWakeFetchArgs(t *testing.T) {
	rq := map[string]int64{"next_balance": 8, "idle_balance": 9, "nr_running": 4, "ttwu_pending": 12, "curr": 16, "idle": 24}
	f := WakeFetch{PID: 0x5d0, RecentUsedCPU: 0x44, RQs: []uint64{0x1000, 0x2000}, RQ: rq, LLCShared: []uint64{0x3000, 0x4000}, NrIdleScan: 12}
	got, err := f.Args()
	want := "pid=+1488($arg1):u32 prev=$arg2:u32 wf=$arg3:u32 ru=+68($arg1):u32" +
		" nr0=@0x1004:u32 tp0=@0x100c:u32 cu0=@0x1010:u64 id0=@0x1018:u64 nr1=@0x2004:u32 tp1=@0x200c:u32 cu1=@0x2010:u64 id1=@0x2018:u64" +
		" ns0=+12(@0x3000):u32 ns1=+12(@0x4000):u32"
	if err != nil || got != want {
		t.Errorf("Args =\n%s, %v\nwant\n%s", got, err, want)
	}
	// A cpu whose sd_llc_shared was NULL: its budget is not read.
	g := f
	g.LLCShared = []uint64{0x3000, 0}
	if got, err := g.Args(); err != nil || !strings.Contains(got, "ns0=") || strings.Contains(got, "ns1=") {
		t.Errorf("Args with cpu 1's sd_llc_shared NULL = %s, %v", got, err)
	}
	// Before SIS_UTIL: no nr_idle_scan, and none read.
	f.NrIdleScan = -1
	if got, err := f.Args(); err != nil || strings.Contains(got, "ns0") {
		t.Errorf("Args without nr_idle_scan = %s, %v", got, err)
	}
	// 31 cpus fit 128 arguments without the budget, 24 with it.
	for _, c := range []struct {
		cpus int
		scan int64
		ok   bool
	}{{31, -1, true}, {32, -1, false}, {24, 12, true}, {25, 12, false}} {
		g := f
		g.NrIdleScan, g.RQs, g.LLCShared = c.scan, make([]uint64, c.cpus), make([]uint64, c.cpus)
		args, err := g.Args()
		if (err == nil) != c.ok || err == nil && strings.Count(args, "=") > maxTraceArgs {
			t.Errorf("%d cpus, nr_idle_scan at %d: %d arguments, %v", c.cpus, c.scan, strings.Count(args, "="), err)
		}
	}
	delete(f.RQ, "ttwu_pending")
	if _, err := f.Args(); err == nil || !strings.Contains(err.Error(), "ttwu_pending") {
		t.Errorf("Args without rq->ttwu_pending: %v, want an error naming it", err)
	}
	f.RQ, f.PID = rq, -1
	if _, err := f.Args(); err == nil || !strings.Contains(err.Error(), "pid") {
		t.Errorf("Args without task_struct.pid: %v", err)
	}
}

// wakeLines are a wake record and its return on cpu: the wakee pid,
// prev_cpu, wake_flags, the four cpus' states ('i' idle, 'b' busy with
// one task, 'B' with two, 'p' idle with a wakeup pending), each LLC's
// nr_idle_scan (cpus 0-1 and 2-3) and the cpu chosen.
func wakeLines(cpu, pid, prev int, wf uint32, cpus string, scan [2]int, to int) string {
	s := fmt.Sprintf("  pinger-1 [%03d] d..2. 50.0: contend_wake: (select_task_rq_fair+0x0/0x540) pid=%d prev=%d wf=%d ru=4294967295", cpu, pid, prev, wf)
	for i, c := range cpus {
		nr, tp, cu := 0, 0, 100+i
		switch c {
		case 'i':
			cu = 200 + i
		case 'p':
			cu, tp = 200+i, 1
		case 'b':
			nr = 1
		case 'B':
			nr = 2
		}
		s += fmt.Sprintf(" nr%d=%d tp%d=%d cu%d=%d id%d=%d", i, nr, i, tp, i, cu, i, 200+i)
	}
	for i := range cpus {
		s += fmt.Sprintf(" ns%d=%d", i, scan[i/2])
	}
	return s + fmt.Sprintf("\n  pinger-1 [%03d] d..2. 50.1: contend_woke: (try_to_wake_up+0x1b4/0x5d0 <- select_task_rq_fair) cpu=%d\n", cpu, to)
}

// TestSumWakes: each of the workload's wakeups by where it went and, of
// those stacked on the waking cpu, by what the tests found.
func TestSumWakes(t *testing.T) {
	const sync, ttwu = 0x10, 0x08
	llc := []int{0, 0, 2, 2}
	text := wakeLines(0, 7, 0, ttwu|sync, "biii", [2]int{0, 1}, 0) + // a pair on one cpu stays: alone, no budget, cpu 1 idle beside it
		wakeLines(0, 7, 2, ttwu|sync, "bbii", [2]int{0, 1}, 0) + // prev idle in the other LLC: joined
		wakeLines(0, 8, 1, ttwu|sync, "Biii", [2]int{1, 1}, 1) + // prev idle in the LLC: taken
		wakeLines(1, 8, 3, ttwu, "bbbb", [2]int{1, 1}, 2) + // elsewhere
		wakeLines(2, 7, 2, ttwu|sync, "iibi", [2]int{0, 1}, 3) + // a pair on one cpu parts: a budget and cpu 3 idle
		wakeLines(1, 9, 1, ttwu|sync, "ibii", [2]int{0, 0}, 1) + // not the workload's
		wakeLines(1, 7, 1, 0x04, "ibii", [2]int{0, 0}, 1) + // a fork's placement
		strings.Replace(wakeLines(2, 8, 2, ttwu|sync, "iibi", [2]int{0, 0}, 3), "ru=4294967295", "ru=3", 1) + // parts to its idle recent_used_cpu, no budget
		strings.SplitAfter(wakeLines(1, 7, 1, ttwu|sync, "ibii", [2]int{0, 0}, 1), "\n")[0] + // an entry whose return never came
		wakeLines(1, 7, 1, ttwu|sync, "ibii", [2]int{0, 0}, 1) + // the next on that cpu: stays
		wakeLines(1, 7, 1, ttwu|sync, "pbii", [2]int{1, 1}, 1) + // stays: a budget, cpu 0 beside idle but for a wakeup queued to it
		"  pinger-1 [002] d..2. 50.1: contend_woke: (try_to_wake_up+0x1b4/0x5d0 <- select_task_rq_fair) cpu=2\n" + // a return with no entry
		"  pinger-1 [003] d..2. 50.0: contend_wake: (select_task_rq_fair+0x0/0x540) pid=8 prev=3 wf=24 ru=3 nr0=0 tp0=0 cu0=1 id0=1\n" // no return
	recs, err := ParseWakeTrace(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	got := SumWakes(recs, []int{7, 8}, llc)
	want := WakeTrace{Wakes: 8, Unpaired: 2, Sync: 7, Local: 4, AtPrev: 1, Scanned: 8, NoScan: 4,
		Stacked: 5, StackedParted: 2, StackedNoScan: 3, StackedIdleMate: 4, StackedScanIdle: 1, StackedScanFinds: 1, StackedByRule: 2, StackedRecentIdle: 1, StackedMatePending: 1, PendingSpells: 1,
		Joined: 1, JoinedAlone: 1, JoinedPrevIdle: 1, JoinedPrevFar: 1, LLCKnown: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SumWakes =\n%+v, want\n%+v", got, want)
	}
	// Without the LLCs, their shares go unsummed.
	if got := SumWakes(recs, []int{7, 8}, nil); got.LLCKnown || got.JoinedPrevFar != 0 || got.StackedIdleMate != 0 || got.StackedScanIdle != 0 || got.StackedRecentIdle != 0 || got.StackedMatePending != 0 || got.Stacked != 5 {
		t.Errorf("SumWakes without sd_llc_id = %+v", got)
	}
}

// TestPendingSpells: a cpu's spell idle with a wakeup queued to it runs
// from the first record that finds it so to the first that does not,
// cpu by cpu; the quantiles are the 2.5th ... 97.5th percentiles.
func TestPendingSpells(t *testing.T) {
	var p pendingSpells
	at := 0.0
	see := func(pending uint64) {
		p.see(&WakeRecord{Time: at, RQs: 2, PendingCPUs: pending})
		at += 10e-6
	}
	// cpu 0 pending for 1, 2, ... 40 records of 10 µs; cpu 1 pending
	// throughout, its spell never ending.
	for n := 1; n <= 40; n++ {
		for range n {
			see(0b11)
		}
		see(0b10)
	}
	if len(p.us) != 40 {
		t.Fatalf("%d spells, want 40", len(p.us))
	}
	q := p.us.quantiles()
	if len(q) != PendingQuantiles || math.Abs(q[0]-20) > 1e-6 || math.Abs(q[19]-400) > 1e-6 || !slices.IsSorted(q) {
		t.Errorf("quantiles %v, want 20 µs to 400 µs in steps of 20", q)
	}
	if m, p95 := p.us.at(0.5), p.us.at(0.95); math.Abs(m-210) > 1e-6 || math.Abs(p95-390) > 1e-6 {
		t.Errorf("median %v, 95th percentile %v; want 210 µs and 390 µs", m, p95)
	}
	if p.us[:19].quantiles() != nil {
		t.Error("quantiles of 19 spells, want none")
	}
}

// TestScanFinds: select_idle_cpu()'s budget probes the LLC's cpus from
// the target's next up, wrapping, so an idle cpu past the budget is missed.
func TestScanFinds(t *testing.T) {
	const llc4 = 0b1111 // cpus 0-3 of 8
	for _, c := range []struct {
		idle           uint64
		target, budget int
		finds          bool
	}{
		{1 << 3, 0, 1, false},
		{1 << 3, 0, 2, false},
		{1 << 3, 0, 3, true},
		{1 << 1, 2, 2, false}, // probes 3, then 0
		{1 << 1, 2, 3, true},  // 3, 0, 1
		{1 << 3, 2, 1, true},
		{1 << 5, 0, 8, false}, // idle, but in the other LLC
		{1 << 3, 0, 0, false},
	} {
		mates := uint64(llc4) &^ (1 << c.target)
		if got := scanFinds(c.idle, mates, c.target, 8, c.budget); got != c.finds {
			t.Errorf("scanFinds(idle %b, target %d, budget %d) = %v, want %v", c.idle, c.target, c.budget, got, c.finds)
		}
	}
}

func TestParseWakeBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x-1 [001] 1.5: contend_wake: (f) pid=1 prev=1 wf=8 ru=1\n", "no nr0="},
		{"x-1 [001] 1.5: contend_wake: (f) pid=1 prev=1 wf=8 ru=1 nr0=0 tp0=0 cu0=1\n", "no id0="},
		{"x-1 [001] 1.5: contend_wake: (f) pid=1 prev=4294967295 wf=8 ru=1 nr0=0 tp0=0 cu0=1 id0=1\n", "not a cpu"},
		{"x-1 [001] 1.5: contend_woke: (f <- g)\n", "no cpu="},
		{"x-1 [001] 1.5: contend_woke: (f <- g) cpu=4294967295\n", "not a cpu"},
		{"x-1 [001] 1.5: contend_tick: (f) j=1 nb=2 ib=0 nr=0 tp=0 cu=1 id=1\n", "none of contend_wake, contend_woke and contend_move"},
		{"x-1 001 1.5: contend_woke: (f <- g) cpu=1\n", "line 1: no [cpu]"},
	} {
		if _, err := ParseWakeTrace(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseWakeTrace(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestWakeBufferKB(t *testing.T) {
	for _, c := range []struct{ cpus, kb int }{{1, 8192}, {4, 8192}, {8, 8192}, {16, 4096}, {224, 1024}, {0, 8192}} {
		if got := wakeBufferKB(c.cpus); got != c.kb {
			t.Errorf("wakeBufferKB(%d) = %d, want %d", c.cpus, got, c.kb)
		}
	}
}

// TestSumWakesMateWork: a stacked wakeup whose LLC's other cpu runs one
// of the workload's tasks, known as such from a record its thread made;
// an unknown task there is not the workload's.
func TestSumWakesMateWork(t *testing.T) {
	// pinger 8 wakes 7 from cpu 1 (its task_struct 0x101 current there);
	// then pinger 9 wakes 10 on cpu 0, the pair stacked, cpu 1 running
	// 0x101 (8); then again with cpu 1 running 0x999, never a waker.
	text := strings.Replace(wakeLines(1, 7, 0, 0x18, "bbii", [2]int{0, 0}, 0), "pinger-1 [001]", "pinger-8 [001]", 1) +
		strings.Replace(wakeLines(0, 10, 0, 0x18, "bbii", [2]int{0, 0}, 0), "pinger-1 [000]", "pinger-9 [000]", 1) +
		strings.Replace(strings.Replace(wakeLines(0, 10, 0, 0x18, "bbii", [2]int{0, 0}, 0), "pinger-1 [000]", "pinger-9 [000]", 1), "cu1=101", "cu1=2457", 1)
	recs, err := ParseWakeTrace(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].WakerPID != 8 || recs[2].WakerPID != 9 || len(recs[0].Curr) != 4 || recs[0].Curr[1] != 101 {
		t.Fatalf("records = %+v", recs[:3])
	}
	// tracefs's record-tgid option puts "(TGID)" before the cpu.
	if h, err := splitTraceLine("  pinger-8   (   7) [001] d..2. 50.0: contend_woke: (f <- g) cpu=1"); err != nil || h.PID != 8 || h.CPU != 1 {
		t.Errorf("a record-tgid line: %+v, %v", h, err)
	}
	if h, err := splitTraceLine("  <idle>-0 [003] d.h3. 7.9: contend_woke: (f <- g) cpu=3"); err != nil || h.PID != 0 {
		t.Errorf("the idle task's line: %+v, %v", h, err)
	}
	for _, line := range []string{"(7) [001] d..2. 50.0: contend_woke: (f <- g) cpu=1", "[001] d..2. 50.0: contend_woke: (f <- g) cpu=1", "7) [001] 50.0: contend_woke: cpu=1"} {
		if h, err := splitTraceLine(line); err != nil || h.PID != -1 {
			t.Errorf("%q, no task before the cpu: %+v, %v", line, h, err)
		}
	}
	got := SumWakes(recs, []int{7, 8, 9, 10}, []int{0, 0, 2, 2})
	if got.Stacked != 2 || got.StackedMateWork != 1 {
		t.Errorf("SumWakes = %+v, want 2 stacked, 1 with the workload beside", got)
	}
}

func TestIdleCPUArgsUnknownKey(t *testing.T) {
	if _, err := idleCPUArgs([]uint64{0x1000}, map[string]int64{"nr_running": 4}, []string{"zz"}); err == nil || !strings.Contains(err.Error(), "zz") {
		t.Errorf("idleCPUArgs with an unknown key: %v", err)
	}
}

func FuzzParseWakeTrace(f *testing.F) {
	b, err := os.ReadFile("testdata/waketrace/sample.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := ParseWakeTrace(strings.NewReader(s))
		if err != nil {
			if recs != nil || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q with %d records", err, len(recs))
			}
			return
		}
		for _, tids := range [][]int{nil, {201, 202, 203}} {
			w := SumWakes(recs, tids, []int{0, 0, 2, 2})
			if w.Wakes > len(recs)/2 || w.Local+w.AtPrev > w.Wakes || w.Sync > w.Wakes || w.NoScan > w.Scanned || w.Scanned > w.Wakes || w.Stacked+w.Joined > w.Wakes || w.Joined > w.Local ||
				w.StackedParted > w.Stacked || w.StackedNoScan > w.Stacked || w.StackedScanIdle > w.StackedIdleMate || w.StackedIdleMate > w.Stacked || w.StackedRecentIdle > w.Stacked || w.StackedMateWork > w.Stacked ||
				w.StackedScanFinds > w.StackedScanIdle || w.StackedMatePending > w.Stacked ||
				w.StackedByRule < max(w.StackedScanFinds, w.StackedRecentIdle) || w.StackedByRule > w.StackedScanFinds+w.StackedRecentIdle ||
				w.JoinedAlone > w.Joined || w.JoinedPrevFar > w.JoinedPrevIdle || w.JoinedPrevIdle > w.Joined ||
				tids == nil && !reflect.DeepEqual(w, WakeTrace{LLCKnown: true, PendingUs: w.PendingUs, PendingSpells: w.PendingSpells, Moves: w.Moves,
					OtherRunUs: w.OtherRunUs, OtherRunMedianUs: w.OtherRunMedianUs, OtherRunP99Us: w.OtherRunP99Us, OtherRuns: w.OtherRuns}) ||
				!slices.IsSorted(w.OtherRunUs) || !slices.IsSorted(w.WorkRunUs) ||
				w.OtherRunMedianUs > w.OtherRunP99Us || w.WorkRunMedianUs > w.WorkRunP99Us || w.OtherRunMedianUs < 0 || w.WorkRunMedianUs < 0 ||
				badMoves(w.Moves, tids == nil) ||
				!slices.IsSorted(w.PendingUs) || len(w.PendingUs) > 0 && w.PendingUs[0] < 0 {
				t.Errorf("SumWakes(%v) = %+v of %d records", tids, w, len(recs))
			}
		}
	})
}

// badMoves is whether a move sum breaks what every sum keeps: parts
// within their wholes, and nothing of the workload's with no workload.
func badMoves(m *MoveTrace, none bool) bool {
	if m == nil {
		return false
	}
	paths := 0
	for _, n := range m.ByPath {
		paths += n
	}
	return m.Moves > m.All || paths != m.Moves || m.Balanced > m.Moves || m.Cold() < 0 || m.FromWaiting > m.Balanced ||
		m.FromPartner+m.FromWorkload+m.FromOther+m.FromIdle != m.Balanced || m.Joined > m.Moves || m.Parted > m.Moves ||
		m.WaitMedianUs < 0 || none && m.Moves != 0
}

// TestParseWakeSample: 80 of a 6.1 guest's records (pipe, 2 pairs;
// pingers 143-146 on 4 cpus in 2 LLCs) parse and pair.
func TestParseWakeSample(t *testing.T) {
	f, err := os.Open("testdata/waketrace/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ParseWakeTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	// A stretch with both pairs stacked in one LLC, each beside the
	// other, and the LLC's budget 0 throughout.
	w := SumWakes(recs, []int{143, 144, 145, 146}, []int{0, 0, 2, 2})
	// Each pinger current on its cpu for a turn of the ping-pong.
	if w.WorkRuns != 37 || math.Abs(w.WorkRunMedianUs-53) > 1e-3 || math.Abs(w.WorkRunP99Us-58) > 1e-3 || w.OtherRuns != 0 {
		t.Errorf("runs: the workload's %d, median %v µs, 99th percentile %v µs; others' %d; want 37, 53, 58 and none",
			w.WorkRuns, w.WorkRunMedianUs, w.WorkRunP99Us, w.OtherRuns)
	}
	if len(w.WorkRunUs) != PendingQuantiles {
		t.Errorf("the workload's runs' quantiles: %v", w.WorkRunUs)
	}
	w.WorkRuns, w.WorkRunMedianUs, w.WorkRunP99Us, w.WorkRunUs = 0, 0, 0, nil
	want := WakeTrace{Wakes: 40, Sync: 40, Local: 40, Scanned: 40, NoScan: 40, Stacked: 40, StackedNoScan: 40, StackedMateWork: 40, LLCKnown: true}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("SumWakes = %+v of %d records, want %+v", w, len(recs), want)
	}
}
