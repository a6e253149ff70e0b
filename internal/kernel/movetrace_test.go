package kernel

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// moveLine is a move record's line on 4 cpus: comm-pid running on cpu
// with flags, pid moved from to, on_rq or, its exec_start es, and each
// cpu's clock_task ct, curr's pid (0 idle) and nr_running.
func moveLine(comm string, cpu int, flags string, pid, from, to, or int, es uint64, ct uint64, curr [4]int, nr [4]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, " %s [%03d] %s 5.000: contend_move: (set_task_cpu+0x0/0x1c0) pid=%d to=%d from=%d or=%d es=%d", comm, cpu, flags, pid, to, from, or, es)
	for i := range 4 {
		cu := 0x900 + i // the idle task's
		if curr[i] != 0 {
			cu = 0x100 + curr[i]
		}
		fmt.Fprintf(&b, " nr%d=%d cu%d=%d id%d=%d", i, nr[i], i, cu, i, 0x900+i)
	}
	for i := range 4 {
		fmt.Fprintf(&b, " ct%d=%d cp%d=%d", i, ct, i, curr[i])
	}
	return b.String() + "\n"
}

// TestParseMove: each path by the line that recorded it, the wait by the
// old cpu's clock, and what the two cpus ran.
func TestParseMove(t *testing.T) {
	for _, c := range []struct {
		name, line string
		want       MoveRecord
	}{
		{"an idle balance at the tick", moveLine("<idle>-0", 0, "d.s3.", 7, 1, 0, 2, 1_000_000, 1_700_000, [4]int{0, 99, 0, 0}, [4]int{0, 2, 0, 0}),
			MoveRecord{PID: 7, From: 1, To: 0, OnRQ: 2, Wait: 700_000, FromCurr: 99, FromNr: 2, Path: MoveTick}},
		{"the nohz balancer's walk", moveLine("<idle>-0", 2, "..s2.", 7, 1, 0, 2, 1_000_000, 1_100_000, [4]int{0, 99, 0, 0}, [4]int{0, 2, 0, 0}),
			MoveRecord{PID: 7, From: 1, To: 0, OnRQ: 2, Wait: 100_000, FromCurr: 99, FromNr: 2, Path: MoveNohz}},
		{"ksoftirqd's", moveLine("ksoftirqd/0-15", 0, "d..2.", 7, 1, 0, 2, 5, 4, [4]int{15, 99, 0, 0}, [4]int{1, 2, 0, 0}),
			MoveRecord{PID: 7, From: 1, To: 0, OnRQ: 2, Wait: -1, FromCurr: 99, ToCurr: 15, FromNr: 2, ToNr: 1, Path: MoveTick}},
		{"the stopper", moveLine("migration/1-20", 1, "d..2.", 7, 1, 3, 2, 5, 9, [4]int{0, 20, 0, 0}, [4]int{0, 2, 0, 0}),
			MoveRecord{PID: 7, From: 1, To: 3, OnRQ: 2, Wait: 4, FromCurr: 20, FromNr: 2, Path: MoveStopper}},
		{"newidle", moveLine("pinger-8", 0, "d..2.", 7, 1, 0, 2, 5, 9, [4]int{8, 99, 0, 0}, [4]int{0, 2, 0, 0}),
			MoveRecord{PID: 7, From: 1, To: 0, OnRQ: 2, Wait: 4, FromCurr: 99, ToCurr: 8, FromNr: 2, Path: MoveNewidle}},
		{"a wakeup", moveLine("pinger-8", 2, "d..2.", 7, 1, 2, 0, 5, 9, [4]int{0, 0, 8, 0}, [4]int{0, 0, 1, 0}),
			MoveRecord{PID: 7, From: 1, To: 2, Wait: 4, ToCurr: 8, ToNr: 1, Path: MoveWakeup}},
	} {
		recs, err := ParseWakeTrace(strings.NewReader(c.line))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(recs) != 1 || recs[0].Move == nil {
			t.Fatalf("%s: records %+v, want one move", c.name, recs)
		}
		if got := *recs[0].Move; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	for _, bad := range []string{
		" x-1 [000] d.s2. 5.0: contend_move: (f) pid=7 to=0 from=1 or=2 nr0=0\n",       // no es=
		" x-1 [000] d.s2. 5.0: contend_move: (f) pid=7 to=70 from=1 or=2 es=1 nr0=0\n", // not a cpu
	} {
		if _, err := ParseWakeTrace(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestSumMoves: a pair (7, 8) whose wakeups name each other, joined by
// an idle balance that takes 7 from behind an other thread (99) with
// another task waiting there, to the cpu 8 was last woken on, then parted
// by one that takes 8 from behind 7, which it leaves alone; the stopper
// then moves 7 (an affinity change): a move, not the balancer's.
func TestSumMoves(t *testing.T) {
	text := strings.Replace(wakeLines(0, 8, 0, 0x18, "iiii", [2]int{0, 0}, 0), "pinger-1 [000]", "pinger-7 [000]", 1) + // 7 wakes 8 on cpu 0
		strings.Replace(wakeLines(1, 7, 1, 0x18, "iiii", [2]int{1, 1}, 0), "pinger-1 [001]", "pinger-8 [001]", 1) + // 8 wakes 7 on cpu 1
		moveLine("<idle>-0", 0, "d.s3.", 7, 1, 0, 2, 1_000_000, 1_100_000, [4]int{0, 99, 0, 0}, [4]int{0, 2, 0, 0}) +
		moveLine("<idle>-0", 1, "d.s3.", 8, 0, 1, 2, 1_000_000, 2_000_000, [4]int{7, 0, 0, 0}, [4]int{1, 0, 0, 0}) + // 7 alone left running
		moveLine("<idle>-0", 3, "d.s3.", 50, 2, 3, 2, 0, 0, [4]int{}, [4]int{0, 0, 2, 0}) +
		moveLine("migration/1-20", 1, "d..2.", 7, 0, 2, 2, 5, 9, [4]int{0, 20, 0, 0}, [4]int{1, 0, 0, 0}) // an affinity move: the stopper's
	recs, err := ParseWakeTrace(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	got := SumWakes(recs, []int{7, 8}, nil)
	want := MoveTrace{All: 4, Moves: 3, ByPath: map[string]int{MoveTick: 2, MoveStopper: 1}, Balanced: 2, Hot: 1, WaitMedianUs: 1000,
		FromPartner: 1, FromOther: 1, FromWaiting: 1, Joined: 1, Parted: 1}
	if got.Moves == nil || !reflect.DeepEqual(*got.Moves, want) {
		t.Errorf("Moves = %+v, want %+v", got.Moves, want)
	}
	if got.Wakes != 2 {
		t.Errorf("Wakes = %d beside the moves, want 2", got.Wakes)
	}
}

// TestMoveFetchArgs: the move kprobe's fetch arguments read the task's
// offsets off $arg1, new_cpu off $arg2, each cpu's rq fields at its
// address and rq->curr's pid through the pointer; a layout without a
// member, or more cpus than a kprobe takes, is an error naming why.
func TestMoveFetchArgs(t *testing.T) {
	rq := map[string]int64{"nr_running": 4, "curr": 8, "idle": 16, "clock_task": 24, "ttwu_pending": 32}
	f := MoveFetch{PID: 100, CPU: 20, OnRQ: 30, ExecStart: 200, RQs: []uint64{0x1000, 0x2000}, RQ: rq}
	args, err := f.Args()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pid=+100($arg1):u32", "to=$arg2:u32", "from=+20($arg1):u32", "or=+30($arg1):u32", "es=+200($arg1):u64",
		"nr1=@0x2004:u32", "cu0=@0x1008:u64", "id1=@0x2010:u64", "ct0=@0x1018:u64", "cp1=+100(@0x2008):u32"} {
		if !strings.Contains(" "+args+" ", " "+want+" ") {
			t.Errorf("args lack %q: %s", want, args)
		}
	}
	for _, c := range []struct {
		name string
		f    MoveFetch
		want string
	}{
		{"no exec_start", MoveFetch{PID: 100, CPU: 20, OnRQ: 30, ExecStart: -1, RQs: f.RQs, RQ: rq}, "se.exec_start"},
		{"no clock_task", MoveFetch{PID: 100, CPU: 20, OnRQ: 30, ExecStart: 200, RQs: f.RQs, RQ: map[string]int64{"curr": 8}}, "clock_task"},
		{"too many cpus", MoveFetch{PID: 100, CPU: 20, OnRQ: 30, ExecStart: 200, RQs: make([]uint64, 64), RQ: rq}, "MAX_TRACE_ARGS"},
	} {
		if _, err := c.f.Args(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.want)
		}
	}
}
