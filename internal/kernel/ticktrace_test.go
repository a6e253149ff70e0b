package kernel

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseTickTrace(t *testing.T) {
	f, err := os.Open("testdata/ticktrace/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ParseTickTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8 (6 ticks, 2 idle entries)", len(recs))
	}
	if n := recs[2]; !n.IdleEntry || n.CPU != 1 || n.Time != 100.002 || recs[3].IdleEntry {
		t.Errorf("idle entry records = %+v, %+v", n, recs[3])
	}
	r := recs[1]
	ticks := slices.DeleteFunc(slices.Clone(recs), func(r TickRecord) bool { return r.IdleEntry })
	if r.CPU != 1 || r.Time != 100.0001 || r.Jiffies != 4295000000 || r.NextBalance != 4295000005 || r.IdleBalance || r.NrRunning != 1 || r.IdleTask || r.Due() {
		t.Errorf("record 2 = %+v (due %v)", r, r.Due())
	}
	if !ticks[0].IdleTask || !ticks[0].IdleBalance || !ticks[0].Due() || !ticks[4].TTWUPending {
		t.Errorf("ticks 1 and 5 = %+v, %+v", ticks[0], ticks[4])
	}

	// At HZ 250: cpu 0's ticks at 0, 4 and 8 ms read jiffies +0 then
	// +2; cpu 1's at 0.1 and 4.1 ms read +1, its 20.1 ms tick is no
	// slot's (the tick stopped between).
	got := SumTicks("sched_balance_trigger", recs, 250)
	// Its pairs: cpu 0 idle, idle, idle; cpu 1 busy then idle, with an
	// idle entry between, which BusyEntry leaves out (a busy tick whose
	// next is idle went idle between; the other entry, after cpu 0's
	// last tick, is no pair's).
	want := TickTrace{Func: "sched_balance_trigger", Ticks: 6, Idle: 4, IdleNotIdle: 2, IdleQueued: 1, IdlePending: 1, IdleDue: 2, BusyDue: 1, Slots: [3]int{1, 1, 1},
		States: [2][2]int{{0, 1}, {0, 2}}, IdleEntries: 2}
	if got != want {
		t.Errorf("SumTicks =\n%+v, want\n%+v", got, want)
	}
	for _, c := range []struct {
		states [2][2]int
		want   float64
	}{{[2][2]int{{0, 1}, {0, 2}}, 0}, {[2][2]int{{3, 1}, {1, 3}}, 0.5}, {[2][2]int{{5, 0}, {0, 5}}, 1}, {[2][2]int{{1, 1}, {1, 1}}, 0}} {
		if got := (TickTrace{States: c.states}).BusyCorr(); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("BusyCorr(%v) = %g, want %g", c.states, got, c.want)
		}
	}
}

func TestParseTickTraceBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x-1 001 1.5: e: j=1\n", "line 1: no [cpu]"},
		{"# h\nx-1 [001] e: j=1\n", "line 2: no timestamp"},
		{"x-1 [001] 1.5: e: (f) j=1 nb=2 ib=0 nr=0 tp=0 cu=1\n", "no id="},
		{"x-1 [001] 1.5: e: (f) j=1 nb=-2 ib=0 nr=0 tp=0 cu=1 id=1\n", `nb="-2": not a number`},
		{"x-1 [001] contend_idle: (f)\n", "no timestamp"},
		{"x-1 [001] 1.5: e: (f) j=1 nb=2 ib=0 nr=4294967296 tp=0 cu=1 id=1\n", "nr=4294967296: over 32 bits"},
	} {
		if _, err := ParseTickTrace(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseTickTrace(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParseTickTrace(f *testing.F) {
	b, err := os.ReadFile("testdata/ticktrace/sample.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := ParseTickTrace(strings.NewReader(s))
		if err != nil {
			if recs != nil || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q with %d records", err, len(recs))
			}
			return
		}
		for _, hz := range []int{0, 100, 250, 1000} {
			tt := SumTicks("f", recs, hz)
			if tt.Ticks+tt.IdleEntries+tt.Kicks+tt.Newidles != len(recs) || tt.KickIdleDue > tt.KickIdle || tt.KickIdle > tt.KickMasked || tt.KickSelfDue > tt.Kicks || tt.NewidleNotOverloaded+tt.NewidleUnderCost > tt.Newidles || tt.KickBalance > tt.KickWalks || tt.KickWalks > tt.KickFlagged || tt.KickFlagged > tt.Kicks || tt.BusyEntry[0]+tt.BusyEntry[1] != tt.States[0][0] || hz == 0 && tt.States != [2][2]int{} || tt.IdleNotIdle > tt.Idle || tt.IdleQueued+tt.IdlePending > tt.IdleNotIdle || tt.IdleDue > tt.Idle || tt.BusyDue > tt.Ticks-tt.Idle || tt.Slots[0]+tt.Slots[1]+tt.Slots[2] >= max(tt.Ticks, 1) ||
				tt.States[0][0]+tt.States[0][1]+tt.States[1][0]+tt.States[1][1] != tt.Slots[0]+tt.Slots[1]+tt.Slots[2] || math.Abs(tt.BusyCorr()) > 1 ||
				tt.QueuedCrossed > tt.QueuedLeaf || tt.IdleCrossed > tt.IdleLeaf || tt.QueuedLeaf+tt.IdleLeaf > tt.Idle {
				t.Errorf("SumTicks(%d) = %+v of %d records", hz, tt, len(recs))
			}
		}
	})
}

// The record's arguments come from each Debian kernel's own BTF.
func TestTickProbeArgs(t *testing.T) {
	for _, dir := range []string{"testdata/debian-6.1", "testdata/debian-6.12", "testdata/debian-7.2", "testdata/debian-7.3"} {
		src, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		args, err := TickProbeArgs(src.Layout.RQ, "jiffies_64")
		src.Close()
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		for _, k := range []string{"j=@jiffies_64:u64 ", "nb=+", "($arg1):u64", "ib=+", "($arg1):u8", "nr=+", "tp=+", "cu=+", "id=+"} {
			if !strings.Contains(args, k) {
				t.Errorf("%s: args %q lack %q", dir, args, k)
			}
		}
	}
	if _, err := TickProbeArgs(map[string]int64{"next_balance": 8}, "jiffies_64"); err == nil || !strings.Contains(err.Error(), "no idle_balance") {
		t.Errorf("TickProbeArgs without idle_balance = %v", err)
	}
	if _, err := TickProbeArgs(nil, ""); err == nil || !strings.Contains(err.Error(), "jiffies_64") {
		t.Errorf("TickProbeArgs without jiffies = %v", err)
	}
}

// A busy pair with an idle entry between counts in BusyEntry[1], one
// without in [0]; with HZ unknown no ticks pair. A task's name with a
// bracketed number does not pass for the cpu.
func TestSumTicksBusyEntry(t *testing.T) {
	in := `  x-1 [001] d.h1. 1.000: contend_tick: (f) j=1 nb=9 ib=0 nr=1 tp=0 cu=1 id=2
  x-1 [001] d..2. 1.001: contend_idle: (nohz_run_idle_balance+0x0/0x80)
  x-1 [001] d.h1. 1.004: contend_tick: (f) j=2 nb=9 ib=0 nr=1 tp=0 cu=1 id=2
  w [3] x-7 [001] d.h1. 1.008: contend_tick: (f) j=3 nb=9 ib=0 nr=1 tp=0 cu=1 id=2
  x-7 [001] d.h1. 1.0141: contend_tick: (f) j=4 nb=9 ib=0 nr=1 tp=0 cu=1 id=2
`
	recs, err := ParseTickTrace(strings.NewReader(in))
	if err != nil || len(recs) != 5 || recs[3].CPU != 1 || recs[3].Time != 1.008 {
		t.Fatalf("ParseTickTrace = %+v, %v", recs, err)
	}
	// The last tick came 6.1 ms after the one before on a cpu that ran
	// throughout: late, and too far apart to pair.
	if got := SumTicks("f", recs, 250); got.BusyEntry != [2]int{1, 1} || got.States[0][0] != 2 || got.BusyRun != [2]int{1, 1} {
		t.Errorf("SumTicks(250) = %+v, want BusyEntry {1 1} over 2 busy pairs, BusyRun {1 1}", got)
	}
	if got := SumTicks("f", recs, 0); got.States != [2][2]int{} || got.BusyEntry != [2]int{} || got.BusyRun != [2]int{} || got.Ticks != 4 {
		t.Errorf("SumTicks(0) = %+v, want no pairs", got)
	}
}

func TestTraceLost(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"# tracer: nop\n#\n# entries-in-buffer/entries-written: 6/6   #P:2\n", 0},
		{"# entries-in-buffer/entries-written: 1000/1450   #P:4\n x\n", 450},
		{"# entries-in-buffer/entries-written: x/y\n", 0},
		{"no header\n", 0},
	} {
		if got := TraceLost([]byte(c.text)); got != c.want {
			t.Errorf("TraceLost(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

// TestTickLateness: ticks at a fixed phase of a 4 ms period, most on
// time (a few µs either side) and some late; the phase is found from
// the on-time cluster, whatever the period count, and a tick just early
// is on time.
func TestTickLateness(t *testing.T) {
	const p = 0.004
	phase := 0.0013
	var times, want []float64
	for k := range 40 {
		late := 0.0
		switch k % 4 {
		case 1:
			late = 300e-6
		case 3:
			late = 2.5e-3
		}
		if k%8 == 6 {
			late = -3e-6 // early: on time
		}
		times = append(times, 10+float64(k)*p+phase+late)
		want = append(want, max(late, 0))
	}
	got := TickLateness(times, p)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 4e-6 {
			t.Fatalf("tick %d: lateness %.1f µs, want %.1f", i, got[i]*1e6, want[i]*1e6)
		}
	}
	if TickLateness(nil, p) != nil || TickLateness(times, 0) != nil {
		t.Error("no ticks or no period: want nil")
	}
	// SumTicks takes the busy ticks' median and their mean lateness in
	// PELT periods (capped at one), the idle ticks' median apart.
	var recs []TickRecord
	for i, tm := range times {
		recs = append(recs, TickRecord{CPU: 1, Time: tm, Jiffies: uint64(i), IdleTask: i%4 == 0})
	}
	tt := SumTicks("f", recs, 250)
	if math.Abs(tt.BusyLateUs-300) > 4 || tt.IdleLateUs > 4 {
		t.Errorf("medians busy %.1f µs, idle %.1f µs; want 300 and 0", tt.BusyLateUs, tt.IdleLateUs)
	}
	// Busy: 10 at 300 µs, 10 at 2.5 ms (capped at one period), 10 on time.
	if want := (10*300e-6/peltPeriod + 10) / 30; math.Abs(tt.BusyLatePeriod-want) > 0.01 {
		t.Errorf("BusyLatePeriod %.3f, want %.3f", tt.BusyLatePeriod, want)
	}
}

// The leaf's fetches read every cpu's cfs_rq at its address; a record
// keeps its own cpu's.
func TestLeafFetchArgs(t *testing.T) {
	f := LeafFetch{Leaves: []uint64{0xffff888001000100, 0xffff888002000100}, LastUpdate: 0x80 + 0x0, Contrib: 0x80 + 0x38, ClockPelt: 0xa40, LostIdle: 0xa48}
	want := "cp=+2624($arg1):u64 li=+2632($arg1):u64 u0=@0xffff888001000180:u64 c0=@0xffff8880010001b8:u32 u1=@0xffff888002000180:u64 c1=@0xffff8880020001b8:u32"
	if got := f.Args(); got != want {
		t.Errorf("Args() =\n%s\nwant\n%s", got, want)
	}
	f.LostIdle = -1 // a kernel without lost_idle_time
	if got := f.Args(); strings.Contains(got, "li=") {
		t.Errorf("Args() without lost_idle_time = %s", got)
	}
}

// A queued idle tick's leaf is past a period boundary where its age in
// 1024 ns units and the period's summed part reach 1024
// (accumulate_sum()); the records' crossings and ages sum by kind.
func TestTickLeaf(t *testing.T) {
	const head = "x-1 [001] d.h1. "
	in := head + "1.000: contend_tick: (f) j=1 nb=9 ib=0 nr=1 tp=0 cu=2 id=2 cp=2000000 u0=5 c0=1 u1=1000000 c1=40\n" + // age 1e6 ns: 976 + 40 < 1024
		head + "1.004: contend_tick: (f) j=2 nb=9 ib=0 nr=1 tp=0 cu=2 id=2 cp=3500000 li=500000 u1=1000000 c1=100 u0=0 c0=0\n" + // age 3.5e6 - 0.5e6 lost - 1e6: crossed
		head + "1.008: contend_tick: (f) j=3 nb=9 ib=1 nr=0 tp=0 cu=2 id=2 cp=3000000 u1=2000000 c1=50 u0=0 c0=0\n" + // nothing queued: 976 + 50 crossed
		head + "1.012: contend_tick: (f) j=4 nb=9 ib=0 nr=1 tp=0 cu=2 id=2 cp=100 u1=200 c1=0\n" + // updated after the clock read: age -1
		head + "1.016: contend_tick: (f) j=5 nb=9 ib=0 nr=1 tp=0 cu=1 id=2 cp=9000000 u1=0 c1=0\n" + // busy: not counted
		head + "1.020: contend_tick: (f) j=6 nb=9 ib=0 nr=1 tp=0 cu=2 id=2\n" // no leaf
	recs, err := ParseTickTrace(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		leaf    bool
		age     int64
		crossed bool
	}{{true, 1000000, false}, {true, 2000000, true}, {true, 1000000, true}, {true, -1, false}, {true, 9000000, true}, {false, 0, false}} {
		if r := recs[i]; r.Leaf != want.leaf || r.LeafAge != want.age || r.LeafCrossed() != want.crossed {
			t.Errorf("record %d: leaf %v age %d crossed %v, want %+v", i, r.Leaf, r.LeafAge, r.LeafCrossed(), want)
		}
	}
	tt := SumTicks("f", recs, 250)
	// The median of the queued ticks' ages leaves the -1 out: of 1000
	// and 2000 µs, the upper.
	if tt.QueuedLeaf != 3 || tt.QueuedCrossed != 1 || tt.IdleLeaf != 1 || tt.IdleCrossed != 1 || tt.QueuedAgeUs != 2000 {
		t.Errorf("SumTicks: queued %d crossed %d age %.0f µs, idle %d crossed %d; want 3, 1, 2000, 1, 1", tt.QueuedLeaf, tt.QueuedCrossed, tt.QueuedAgeUs, tt.IdleLeaf, tt.IdleCrossed)
	}
	if _, err := ParseTickTrace(strings.NewReader(head + "1.0: contend_tick: (f) j=1 nb=9 ib=0 nr=1 tp=0 cu=2 id=2 cp=1 u1=0 c1=1024\n")); err == nil || !strings.Contains(err.Error(), "period_contrib") {
		t.Errorf("period_contrib 1024: %v, want an error naming it", err)
	}
}

// TestGroupTick: the group tick record reads the running task's cfs_rq
// through curr->se.cfs_rq before entity_tick() updates it; only the
// records whose cfs_rq is their cpu's leaf are the workload's ticks,
// summed with their crossings and the median age; the tick sums leave
// them out.
func TestGroupTick(t *testing.T) {
	f := LeafFetch{LastUpdate: 0x80, Contrib: 0xb8, ClockPelt: 0xa40, LostIdle: 0xa48}
	got, err := GroupTickArgs(f, 0x100, 0x30)
	want := "cp=+2624($arg1):u64 li=+2632($arg1):u64 q=+304($arg2):u64 u=+128(+304($arg2)):u64 c=+184(+304($arg2)):u32"
	if err != nil || got != want {
		t.Errorf("GroupTickArgs = %q, %v; want %q", got, err, want)
	}
	if _, err := GroupTickArgs(f, -1, 0x30); err == nil {
		t.Error("GroupTickArgs without task_struct.se: no error")
	}
	const head = "x-1 [001] d.h1. "
	in := head + "1.000: contend_gtick: (task_tick_fair+0x0/0x90) cp=3000000 q=0x2000 u=1000000 c=100\n" + // the leaf, 1953 + 100: crossed
		head + "1.004: contend_gtick: (task_tick_fair+0x0/0x90) cp=3000000 li=0 q=0x2000 u=2800000 c=10\n" + // the leaf, 195 + 10: not
		head + "1.008: contend_gtick: (task_tick_fair+0x0/0x90) cp=9000000 q=0x3000 u=0 c=0\n" + // another cfs_rq: not the workload's
		head + "1.012: contend_tick: (f) j=1 nb=9 ib=0 nr=1 tp=0 cu=1 id=2\n"
	recs, err := ParseTickTrace(strings.NewReader(in))
	if err != nil || len(recs) != 4 {
		t.Fatalf("ParseTickTrace = %+v, %v", recs, err)
	}
	tt := SumTicks("f", recs, 250)
	tt.SumGroupTicks(recs, []uint64{0x1000, 0x2000})
	if tt.Ticks != 1 || tt.GroupTicks != 2 || tt.GroupCrossed != 1 || tt.GroupAgeUs != 2000 {
		t.Errorf("sums: ticks %d, group ticks %d crossed %d age %.0f µs; want 1, 2, 1, 2000", tt.Ticks, tt.GroupTicks, tt.GroupCrossed, tt.GroupAgeUs)
	}
	if _, err := ParseTickTrace(strings.NewReader(head + "1.0: contend_gtick: (f) cp=1 q=2 u=0\n")); err == nil || !strings.Contains(err.Error(), "no c=") {
		t.Errorf("a group tick without c=: %v, want an error naming it", err)
	}
}

// TestKickRecord: a kick record's cpus by what the walk after it reads:
// in the mask, idle (idle_cpu(): the idle task current, none queued, no
// wakeup pending) and due (jiffies at or past rq->next_balance); the
// sums count the other cpus, and the kick's own where it is all three.
func TestKickRecord(t *testing.T) {
	line := "<idle>-0 [002] d.h1. 51.000000: contend_kick: (nohz_csd_func+0x0/0x60) j=1000 self=0x3000 m=0xf" +
		" nb0=1001 nr0=0 tp0=0 cu0=5 id0=5" + // idle, not due
		" nb1=1000 nr1=1 tp1=0 cu1=5 id1=6" + // busy
		" nb2=999 nr2=0 tp2=0 cu2=8 id2=8" + // itself: idle and due
		" nb3=900 nr3=0 tp3=1 cu3=9 id3=9" // a wakeup pending: not idle
	recs, err := ParseTickTrace(strings.NewReader(line))
	if err != nil || len(recs) != 1 {
		t.Fatalf("ParseTickTrace = %+v, %v", recs, err)
	}
	r := recs[0]
	if !r.Kick || r.CPU != 2 || r.Self != 0x3000 || r.Masked != 0xf || r.IdleCPUs != 0b0101 || r.DueCPUs != 0b1110 || r.RQs != 4 {
		t.Errorf("record = %+v", r)
	}
	if !KickSelfOK(r, []uint64{0x1000, 0x2000, 0x3000, 0x4000}) || KickSelfOK(r, []uint64{0x1000, 0x2000}) || KickSelfOK(r, []uint64{1, 2, 3, 4}) {
		t.Error("KickSelfOK: want true only where rqs[2] is 0x3000")
	}
	sum := SumTicks("f", recs, 250)
	if sum.Kicks != 1 || sum.KickMasked != 3 || sum.KickIdle != 1 || sum.KickIdleDue != 0 || sum.KickSelfDue != 1 || sum.Ticks != 0 {
		t.Errorf("SumTicks = %+v", sum)
	}
	for _, bad := range []string{
		"<idle>-0 [002] d.h1. 51.0: contend_kick: (nohz_csd_func+0x0/0x60) j=1 m=1 nb0=1 nr0=0 tp0=0 cu0=1 id0=1",  // no self
		"<idle>-0 [002] d.h1. 51.0: contend_kick: (nohz_csd_func+0x0/0x60) j=1 self=1 m=1",                         // no cpu
		"<idle>-0 [002] d.h1. 51.0: contend_kick: (nohz_csd_func+0x0/0x60) j=1 self=1 m=1 nb0=1 nr0=0 cu0=1 id0=1", // no tp0
		"<idle>-0 [002] d.h1. 51.0: contend_kick: (nohz_csd_func+0x0/0x60) j=x self=1 m=1 nb0=1 nr0=0 tp0=0 cu0=1 id0=1",
	} {
		if _, err := ParseTickTrace(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseTickTrace(%q): no error", bad)
		}
	}
}

// TestKickFetchArgs: jiffies, the kick's rq, the mask's word, and per
// cpu the members idle_cpu() and the due test read, at rq + offset.
func TestKickFetchArgs(t *testing.T) {
	f := KickFetch{Mask: 0xff00, RQs: []uint64{0x1000, 0x2000}, RQ: map[string]int64{"next_balance": 8, "idle_balance": 9, "nr_running": 4, "ttwu_pending": 12, "curr": 16, "idle": 24}}
	got, err := f.Args("jiffies_64")
	want := "j=@jiffies_64:u64 self=$arg1:u64 m=@0xff00:u64 nb0=@0x1008:u64 nr0=@0x1004:u32 tp0=@0x100c:u32 cu0=@0x1010:u64 id0=@0x1018:u64 nb1=@0x2008:u64 nr1=@0x2004:u32 tp1=@0x200c:u32 cu1=@0x2010:u64 id1=@0x2018:u64"
	if err != nil || got != want {
		t.Errorf("Args =\n%s, %v\nwant\n%s", got, err, want)
	}
	if _, err := f.Args(""); err == nil {
		t.Error("Args without jiffies_64: no error")
	}
	delete(f.RQ, "curr")
	if _, err := f.Args("jiffies_64"); err == nil || !strings.Contains(err.Error(), "curr") {
		t.Errorf("Args without rq->curr: %v, want an error naming curr", err)
	}
}

// TestNewidleRecord: a newidle walk's record says whether it returned at
// sched_balance_newidle()'s gate, the root domain not overloaded or its
// avg_idle under its lowest domain's cost; a NULL rq->sd leaves only the
// overload test and its mc unread; the sums count and take the medians.
func TestNewidleRecord(t *testing.T) {
	text := "<idle>-0 [001] d..2. 50.0: contend_newidle: (sched_balance_newidle+0x4/0x4e0) ai=200000 sd=0xff00 mc=500000 ov=1\n" + // under the cost: closed
		"<idle>-0 [000] d..2. 50.1: contend_newidle: (sched_balance_newidle+0x4/0x4e0) ai=900000 sd=0xff00 mc=500000 ov=1\n" + // past it: open
		"<idle>-0 [000] d..2. 50.2: contend_newidle: (sched_balance_newidle+0x4/0x4e0) ai=900000 sd=0xff00 mc=500000 ov=0\n" + // not overloaded: closed
		"<idle>-0 [000] d..2. 50.3: contend_newidle: (sched_balance_newidle+0x4/0x4e0) ai=100 sd=0 mc=77777777 ov=1\n" // no domain: mc unread, open
	recs, err := ParseTickTrace(strings.NewReader(text))
	if err != nil || len(recs) != 4 {
		t.Fatalf("ParseTickTrace = %+v, %v", recs, err)
	}
	for i, want := range []bool{true, false, true, false} {
		if r := recs[i]; !r.Newidle || r.GateClosed() != want {
			t.Errorf("record %d %+v: GateClosed %v, want %v", i, r, r.GateClosed(), want)
		}
	}
	if !recs[3].NoDomain || recs[3].NewidleCost != 0 || !recs[0].UnderCost() || recs[2].UnderCost() {
		t.Errorf("records = %+v", recs)
	}
	sum := SumTicks("f", recs, 250)
	if sum.Newidles != 4 || sum.NewidleNotOverloaded != 1 || sum.NewidleUnderCost != 1 || sum.NewidleAvgIdleUs != 900 || sum.NewidleCostUs != 500 || sum.Ticks != 0 {
		t.Errorf("SumTicks = %+v", sum)
	}
	for _, bad := range []string{
		"<idle>-0 [000] d..2. 50.2: contend_newidle: (x) ai=1 sd=1 mc=1\n", // no ov
		"<idle>-0 [000] d..2. 50.2: contend_newidle: (x) ai=z sd=1 mc=1 ov=1\n",
	} {
		if _, err := ParseTickTrace(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseTickTrace(%q): no error", bad)
		}
	}
}

// TestNewidleArgs: every field through the walk's rq, the overload flag
// read at its BTF size, and an error naming what BTF lacks.
func TestNewidleArgs(t *testing.T) {
	rq := map[string]int64{"avg_idle": 0x40, "sd": 0x48, "rd": 0x50}
	for _, tc := range []struct {
		size int64
		want string
	}{
		{1, "ai=+64($arg1):u64 sd=+72($arg1):u64 mc=+48(+72($arg1)):u64 ov=+16(+80($arg1)):u8"},
		{4, "ai=+64($arg1):u64 sd=+72($arg1):u64 mc=+48(+72($arg1)):u64 ov=+16(+80($arg1)):u32"},
	} {
		if got, err := NewidleArgs(rq, 0x30, 0x10, tc.size); err != nil || got != tc.want {
			t.Errorf("size %d: %q, %v; want %q", tc.size, got, err, tc.want)
		}
	}
	if _, err := NewidleArgs(rq, 0x30, 0x10, 2); err == nil {
		t.Error("a 2-byte overloaded: no error")
	}
	if _, err := NewidleArgs(rq, -1, 0x10, 1); err == nil {
		t.Error("no max_newidle_lb_cost: no error")
	}
	delete(rq, "rd")
	if _, err := NewidleArgs(rq, 0x30, 0x10, 1); err == nil || !strings.Contains(err.Error(), "rd") {
		t.Errorf("no rq->rd: %v, want an error naming rd", err)
	}
}

// TestKickFlags: a kick whose own cpu is idle raises the walk, a
// NOHZ_BALANCE_KICK's walk passes, and its passes are the masked cpus
// idle and due, its own included; a kick to a busy cpu raises none.
func TestKickFlags(t *testing.T) {
	text := "<idle>-0 [000] d.h1. 51.0: contend_kick: (nohz_csd_func+0x0/0x60) j=100 self=1 m=0x7 fl=1" +
		" nb0=100 nr0=0 tp0=0 cu0=5 id0=5 nb1=99 nr1=0 tp1=0 cu1=6 id1=6 nb2=101 nr2=0 tp2=0 cu2=7 id2=7\n" + // balance: cpus 0 and 1 pass, 2 not due
		"<idle>-0 [001] d.h1. 51.1: contend_kick: (nohz_csd_func+0x0/0x60) j=100 self=2 m=0x7 fl=2" +
		" nb0=100 nr0=0 tp0=0 cu0=5 id0=5 nb1=99 nr1=0 tp1=0 cu1=6 id1=6 nb2=101 nr2=0 tp2=0 cu2=7 id2=7\n" + // stats only: a walk, no passes
		"x-9 [002] d.h1. 51.2: contend_kick: (nohz_csd_func+0x0/0x60) j=100 self=3 m=0x7 fl=1" +
		" nb0=100 nr0=0 tp0=0 cu0=5 id0=5 nb1=99 nr1=0 tp1=0 cu1=6 id1=6 nb2=99 nr2=1 tp2=0 cu2=8 id2=7\n" // its cpu busy: no walk
	recs, err := ParseTickTrace(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	sum := SumTicks("f", recs, 250)
	if sum.KickFlagged != 3 || sum.KickWalks != 2 || sum.KickBalance != 1 || sum.KickPasses != 2 {
		t.Errorf("SumTicks = %+v", sum)
	}
	f := KickFetch{Mask: 1, RQs: []uint64{0x1000}, RQ: map[string]int64{"next_balance": 8, "nr_running": 4, "ttwu_pending": 12, "curr": 16, "idle": 24, "idle_balance": 9, "nohz_flags": 0x50}}
	if got, _ := f.Args("jiffies_64"); !strings.Contains(got, " fl=+80($arg1):u32 ") {
		t.Errorf("Args = %q, want fl=+80($arg1):u32", got)
	}
}

// TestKickArgsLimit: a machine whose kick record would need more fetch
// arguments than a kprobe takes gets an error saying so, not a refused
// probe.
func TestKickArgsLimit(t *testing.T) {
	f := KickFetch{RQs: make([]uint64, 25), RQ: map[string]int64{"next_balance": 8, "nr_running": 4, "ttwu_pending": 12, "curr": 16, "idle": 24}}
	if _, err := f.Args("jiffies_64"); err == nil || !strings.Contains(err.Error(), "MAX_TRACE_ARGS") {
		t.Errorf("25 cpus: %v, want MAX_TRACE_ARGS", err)
	}
	f.RQs = f.RQs[:24]
	if _, err := f.Args("jiffies_64"); err != nil {
		t.Errorf("24 cpus: %v", err)
	}
}
