package kernel

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/internal/kernel/machine"
)

// readTicks on an instance's recorded text: the sum, the raw text saved
// where asked, a save that fails a note-worthy error beside a sum that
// stands, a buffer that overwrote records counted, and no records an
// error.
func TestReadTicks(t *testing.T) {
	sample, err := os.ReadFile("testdata/ticktrace/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	inst := &machine.Tracefs{Dir: t.TempDir()}
	trace := filepath.Join(inst.Dir, "trace")
	os.WriteFile(trace, sample, 0o644)

	save := filepath.Join(t.TempDir(), "ticks.txt")
	sum, saveErr, err := readTicks(inst, "sched_balance_trigger", 250, save, nil, nil)
	if err != nil || saveErr != nil || sum.Ticks != 6 || sum.IdleEntries != 2 || sum.Lost != 0 {
		t.Fatalf("readTicks = %+v, %v, %v", sum, saveErr, err)
	}
	if b, _ := os.ReadFile(save); string(b) != string(sample) {
		t.Errorf("saved %d bytes, want the %d recorded", len(b), len(sample))
	}

	sum, saveErr, err = readTicks(inst, "f", 250, filepath.Join(t.TempDir(), "nosuch", "ticks.txt"), nil, nil)
	if err != nil || sum == nil || sum.Ticks != 6 || saveErr == nil || !strings.HasPrefix(saveErr.Error(), "-tick-trace: ") {
		t.Errorf("readTicks saving into a missing directory = %+v, %v, %v; want the sum and a save error", sum, saveErr, err)
	}

	lost := strings.Replace(string(sample), "entries-in-buffer/entries-written: 8/8", "entries-in-buffer/entries-written: 8/20", 1)
	os.WriteFile(trace, []byte(lost), 0o644)
	if sum, _, err := readTicks(inst, "f", 250, "", nil, nil); err != nil || sum.Lost != 12 {
		t.Errorf("readTicks with records overwritten = %+v, %v; want 12 lost", sum, err)
	}

	os.WriteFile(trace, []byte("# tracer: nop\n#\n"), 0o644)
	if _, _, err := readTicks(inst, "f", 250, "", nil, nil); err == nil || err.Error() != "no records" {
		t.Errorf("readTicks of an empty trace = %v, want no records", err)
	}
	os.WriteFile(trace, []byte("x-1 [001] 1.5: contend_tick: (f) j=1\n"), 0o644)
	if _, _, err := readTicks(inst, "f", 250, "", nil, nil); err == nil || !strings.Contains(err.Error(), "tick trace line 1") {
		t.Errorf("readTicks of a broken record = %v", err)
	}
}

// leafFetch says in one note why the tick trace reads no leaf: no BTF
// layout, a member BTF lacks (the fixtures' BTF keeps only the members
// the finder read before the leaf's), no rq->clock_pelt.
func TestLeafFetchNotes(t *testing.T) {
	src, err := Open("testdata/debian-6.1")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	l := *src.Layout
	full := l
	full.Absent = map[string]string{}
	full.RQ = map[string]int64{"next_balance": 8}
	for _, c := range []struct {
		name string
		in   Input
		want string
	}{
		{"no layout", Input{}, "no BTF layout"},
		{"fixture BTF", Input{Layout: &l}, "has no member"},
		{"no clock_pelt", Input{Layout: &full}, "no clock_pelt"},
	} {
		f, note := leafFetch(c.in, nil, 2, []int{0, 1})
		if f != nil || !strings.HasPrefix(note, "no leaf ages in the tick trace: ") || !strings.Contains(note, c.want) || strings.Contains(note, "\n") {
			t.Errorf("%s: %v, %q; want no fetch and a note with %q", c.name, f, note, c.want)
		}
	}
}

// TestReadTicksKicks: a kick record whose rq is its cpu's is summed; one
// whose rq is not is dropped and counted, the rest of the trace standing.
func TestReadTicksKicks(t *testing.T) {
	inst := &machine.Tracefs{Dir: t.TempDir()}
	text := "# entries-in-buffer/entries-written: 2/2   #P:2\n" +
		"          <idle>-0       [000] d.h1.   100.000000: " + kickLine(0x1000, 0b10) + "\n" +
		"          <idle>-0       [001] d.h1.   100.000100: " + kickLine(0x1000, 0b01) + "\n"
	os.WriteFile(filepath.Join(inst.Dir, "trace"), []byte(text), 0o644)
	sum, _, err := readTicks(inst, "f", 250, "", []uint64{0x1000, 0x2000}, nil)
	if err != nil || sum.Kicks != 1 || sum.KickWrongRQ != 1 || sum.KickMasked != 1 {
		t.Errorf("readTicks = %+v, %v; want 1 kick kept (cpu 0's, cpu 1 in the mask), 1 dropped", sum, err)
	}
}

// kickLine is a kick record of two cpus, self its rq, mask the mask's
// word, both cpus idle and due.
func kickLine(self, mask uint64) string {
	return fmt.Sprintf("contend_kick: (nohz_csd_func+0x0/0x60) j=100 self=%d m=%d", self, mask) +
		" nb0=100 nr0=0 tp0=0 cu0=7 id0=7 nb1=99 nr1=0 tp1=0 cu1=9 id1=9"
}

// TestKickFetch: the kick record's addresses through kernel memory, each
// cpu's rq runqueues plus its __per_cpu_offset, the mask behind its
// pointer where cpumask_var_t is one; and a one-line note where a symbol,
// the layout or a read is missing.
func TestKickFetch(t *testing.T) {
	syms, err := ReadKallsyms(strings.NewReader(
		"ffffffff81000000 t nohz_csd_func\nffffffff81000100 T other\n" +
			"ffffffff82000000 b nohz\n0000000000030000 D runqueues\nffffffff82000800 D __per_cpu_offset\n"))
	if err != nil {
		t.Fatal(err)
	}
	mem := &pageMemory{base: 0xffffffff82000000}
	binary.LittleEndian.PutUint64(mem.data[0x10:], 0xffff888000123000)  // nohz.idle_cpus_mask, a pointer
	binary.LittleEndian.PutUint64(mem.data[0x800:], 0xffff888100000000) // __per_cpu_offset[0]
	binary.LittleEndian.PutUint64(mem.data[0x808:], 0xffff888200000000) // [1]
	l := &Layout{NohzIdleCPUsMask: 0x10, CpumaskOffstack: true, RQ: map[string]int64{"curr": 8}, Absent: map[string]string{}}
	f, note := kickFetch(Input{Syms: syms, Layout: l, Mem: mem}, []int{0, 1})
	if note != "" || f == nil || f.Mask != 0xffff888000123000 || len(f.RQs) != 2 || f.RQs[0] != 0xffff888100030000 || f.RQs[1] != 0xffff888200030000 {
		t.Fatalf("kickFetch = %+v, %q", f, note)
	}
	for _, c := range []struct {
		name string
		in   Input
		want string
	}{
		{"no layout", Input{Syms: syms, Mem: mem}, "no BTF layout"},
		{"unmapped", Input{Syms: syms, Layout: l, Mem: &pageMemory{base: 0x1000}}, "unmapped"},
	} {
		f, note := kickFetch(c.in, []int{0, 1})
		if f != nil || !strings.HasPrefix(note, "no kicks in the tick trace: ") || !strings.Contains(note, c.want) || strings.Contains(note, "\n") {
			t.Errorf("%s: %+v, %q; want no fetch and a note with %q", c.name, f, note, c.want)
		}
	}
	bare, _ := ReadKallsyms(strings.NewReader("ffffffff81000100 T other\n"))
	if f, note := kickFetch(Input{Syms: bare, Layout: l, Mem: mem}, []int{0}); f != nil || !strings.Contains(note, "kallsyms has no nohz_csd_func") {
		t.Errorf("no nohz_csd_func: %+v, %q", f, note)
	}
}

// TestTraceWakesWithoutKernel: a root with no kernel to read gives no
// tracer and a note naming what is missing, and changes nothing.
func TestTraceWakesWithoutKernel(t *testing.T) {
	u := machine.NewUndo(io.Discard)
	w, note := TraceWakes(u, t.TempDir())
	if w != nil || !strings.HasPrefix(note, "no wake trace: no BTF") {
		t.Errorf("TraceWakes(empty root) = %v, %q; want none, and a note naming the missing BTF", w, note)
	}
	if err := u.Run(); err != nil {
		t.Errorf("undo: %v", err)
	}
}

// TestGroupTickProbe: the group tick's fetches from the kernel's BTF
// layout, or why there are none: no layout, no task_tick_fair() in
// kallsyms, a member BTF lacks.
func TestGroupTickProbe(t *testing.T) {
	syms, err := ReadKallsyms(strings.NewReader("ffffffff81000000 t task_tick_fair\n"))
	if err != nil {
		t.Fatal(err)
	}
	none, err := ReadKallsyms(strings.NewReader("ffffffff81000000 t other\n"))
	if err != nil {
		t.Fatal(err)
	}
	leaf := LeafFetch{LastUpdate: 0x80, Contrib: 0xb8, ClockPelt: 0xa40, LostIdle: -1}
	layout := &Layout{TaskSE: 0x100, SECfsRq: 0x30}
	if got, err := groupTickProbe(Input{Layout: layout, Syms: syms}, leaf); err != nil || got != "cp=+2624($arg1):u64 q=+304($arg2):u64 u=+128(+304($arg2)):u64 c=+184(+304($arg2)):u32" {
		t.Errorf("groupTickProbe = %q, %v", got, err)
	}
	for _, c := range []struct {
		name string
		in   Input
		want string
	}{
		{"no layout", Input{Syms: syms}, "no BTF layout"},
		{"no function", Input{Layout: layout, Syms: none}, "kallsyms has no task_tick_fair"},
		{"no member", Input{Layout: &Layout{TaskSE: 0x100, SECfsRq: -1}, Syms: syms}, "sched_entity.cfs_rq"},
	} {
		if _, err := groupTickProbe(c.in, leaf); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestReadTicksGroup: readTicks sums the group tick records whose cfs_rq
// is their cpu's leaf, the leaves LeafFetch found; without leaves none.
func TestReadTicksGroup(t *testing.T) {
	inst := &machine.Tracefs{Dir: t.TempDir()}
	text := "# entries-in-buffer/entries-written: 3/3   #P:2\n" +
		"          pinger-9       [001] d.h1.   100.000000: contend_gtick: (task_tick_fair+0x0/0x90) cp=3000000 q=0x2000 u=1000000 c=100\n" +
		"          pinger-9       [001] d.h1.   100.004000: contend_gtick: (task_tick_fair+0x0/0x90) cp=4000000 q=0x3000 u=0 c=0\n" +
		"          pinger-9       [001] d.h1.   100.004010: contend_tick: (f) j=1 nb=9 ib=0 nr=1 tp=0 cu=1 id=2\n"
	os.WriteFile(filepath.Join(inst.Dir, "trace"), []byte(text), 0o644)
	sum, _, err := readTicks(inst, "f", 250, "", nil, []uint64{0x1000, 0x2000})
	if err != nil || sum.GroupTicks != 1 || sum.GroupCrossed != 1 || sum.Ticks != 1 {
		t.Errorf("readTicks = %+v, %v; want 1 group tick, crossed, and 1 tick", sum, err)
	}
	if sum, _, err := readTicks(inst, "f", 250, "", nil, nil); err != nil || sum.GroupTicks != 0 {
		t.Errorf("without leaves: %d group ticks, %v; want none", sum.GroupTicks, err)
	}
}
