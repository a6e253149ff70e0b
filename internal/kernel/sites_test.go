package kernel

import (
	"bytes"
	"debug/elf"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .sites files")

// The Debian kernels that bracket seed 000's patch, with the sites each
// must show: counted in objdump -d of the same images (grep for the lock
// prefix and the offsets BTF gives), not read back from the finder.
var debianKernels = []struct {
	dir    string
	want   map[string]int
	absent map[string]string // kind -> part of why
	layout Layout
	forms  map[string]string // kind -> the start of its form
}{
	{
		dir: "testdata/debian-6.1", // linux-image-6.1.0-57-amd64 6.1.192-3
		want: map[string]int{
			"tg-load-avg":       4, // update_load_avg, update_blocked_averages, attach_entity_cfs_rq, detach_task_cfs_rq
			"balancing-trylock": 1, "balancing-unlock": 1,
			"nohz-idle-mask": 2, "nohz-nr-cpus": 2, "nr-busy-cpus": 2,
			"cpupri-count": 2, "cpupri-mask": 2,
		},
		absent: map[string]string{
			"tg-load-avg-limit":       "no last_update_tg_load_avg",
			"tg-runnable-avg":         "no runnable_avg",
			"balance-running":         "spinlock balancing",
			"balance-running-release": "spinlock balancing",
		},
		layout: Layout{TGLoadAvg: 0x100, CfsRqTG: 0x150, SDShared: 0x128, SDSNrBusyCPUs: 4, NohzNrCPUs: 8, CfsRqLastUpdateTG: -1, CpumaskOffstack: true},
		forms:  map[string]string{"balancing-trylock": "spinlock", "nohz-idle-mask": "counter and mask"},
	},
	{
		dir: "testdata/debian-6.12", // linux-image-6.12.117+deb12-amd64 6.12.117-1~deb12u1
		want: map[string]int{
			// update_load_avg, sched_balance_update_blocked_averages (out of
			// line, reached by a jump), attach_entity_cfs_rq,
			// task_change_group_fair, switched_from_fair (detach inlined),
			// rq_offline_fair (a forced update as a cpu goes offline: no
			// 1 ms test; objdump -d: mov 0x158(%rbx),%rcx; lock add
			// %rdx,0x100(%rcx))
			"tg-load-avg": 6, "tg-load-avg-limit": 5,
			"balance-running": 1, "balance-running-release": 1,
			"nohz-idle-mask": 2, "nohz-nr-cpus": 2, "nr-busy-cpus": 2,
			"cpupri-count": 2, "cpupri-mask": 2,
		},
		absent: map[string]string{
			"balancing-trylock": "replaced the spinlock",
			"balancing-unlock":  "replaced the spinlock",
			"tg-runnable-avg":   "no runnable_avg",
		},
		layout: Layout{TGLoadAvg: 0x100, CfsRqTG: 0x158, SDShared: 0x120, SDSNrBusyCPUs: 4, NohzNrCPUs: 8, CfsRqLastUpdateTG: 0x100, CpumaskOffstack: true},
		forms:  map[string]string{"balance-running": "cmpxchg before the interval test: sched_balance_domains", "nohz-idle-mask": "counter and mask"},
	},
	{
		// linux-binary-7.2.12+deb13-amd64 7.2.12-1~bpo13+1, System.map from
		// its -dbg: load_avg at 0x140, no task_group.runnable_avg yet.
		// update_load_avg is inlined into its callers: lock adds in
		// update_load_avg, __sched_balance_update_blocked_averages (2),
		// attach_entity_cfs_rq, task_change_group_fair, switched_from_fair,
		// propagate_entity_cfs_rq, enqueue_task_fair, dequeue_task_fair,
		// dequeue_entities, task_tick_fair, set_next_task_fair,
		// rq_offline_fair (no 1 ms test: a forced update) and
		// __sched_group_set_shares, as objdump -d of the whole text finds
		// them (a lock add to 0x140(reg) after a load of 0x158, cfs_rq.tg).
		dir: "testdata/debian-7.2",
		want: map[string]int{
			"tg-load-avg": 14, "tg-load-avg-limit": 13,
			"balance-running": 1, "balance-running-release": 1,
			"nohz-idle-mask": 2, "nr-busy-cpus": 2,
			"cpupri-count": 2, "cpupri-mask": 2,
		},
		absent: map[string]string{
			"balancing-trylock": "replaced the spinlock",
			"balancing-unlock":  "replaced the spinlock",
			"nohz-nr-cpus":      "5d86d542f68f",
			"tg-runnable-avg":   "no runnable_avg",
		},
		layout: Layout{TGLoadAvg: 0x140, CfsRqTG: 0x158, SDShared: 0x168, SDSNrBusyCPUs: 4, NohzNrCPUs: -1, CfsRqLastUpdateTG: 0x100, CpumaskOffstack: true},
		forms:  map[string]string{"balance-running": "interval test and should_we_balance() before the cmpxchg: in sched_balance_rq, taken only by the domain's balancing cpu when due, by newidle passes too", "nohz-idle-mask": "mask weight", "nr-busy-cpus": "shares its line with the LLC's util_avg"},
	},
	{
		// linux-binary-7.3.4+deb13-amd64 7.3.4-1~bpo13+1 (trixie-backports),
		// System.map from linux-image-7.3.4+deb13-amd64-dbg. The flag is
		// taken in sched_balance_rq (3324b2180c17), nohz has no nr_cpus
		// (5d86d542f68f) and has_blocked is has_blocked_load.
		dir: "testdata/debian-7.3",
		want: map[string]int{
			// update_load_avg, __sched_balance_update_blocked_averages
			// (two: the cfs_rq walk's and a second loop's, its tg loaded
			// above the 1 ms test), attach_entity_cfs_rq,
			// task_change_group_fair, switched_from_fair,
			// propagate_entity_cfs_rq, and where update_load_avg is inlined:
			// enqueue_task_fair, dequeue_task_fair, __dequeue_task,
			// task_tick_fair, rq_offline_fair (no 1 ms test),
			// __sched_group_set_shares (objdump -d of the whole text)
			"tg-load-avg": 13, "tg-load-avg-limit": 12, "tg-runnable-avg": 13,
			"balance-running": 1, "balance-running-release": 1, // sched_balance_rq
			"nohz-idle-mask": 2, "nr-busy-cpus": 2,
			"cpupri-count": 2, "cpupri-mask": 2,
		},
		absent: map[string]string{
			"balancing-trylock": "replaced the spinlock",
			"balancing-unlock":  "replaced the spinlock",
			"nohz-nr-cpus":      "5d86d542f68f",
		},
		layout: Layout{TGLoadAvg: 0x140, CfsRqTG: 0x160, SDShared: 0x168, SDSNrBusyCPUs: 4, NohzNrCPUs: -1, CfsRqLastUpdateTG: 0x100, CpumaskOffstack: true},
		forms:  map[string]string{"balance-running": "interval test and should_we_balance() before the cmpxchg: in sched_balance_rq, taken only by the domain's balancing cpu when due, by newidle passes too", "nohz-idle-mask": "mask weight", "tg-runnable-avg": "on load_avg's line", "nr-busy-cpus": "shares its line with the LLC's util_avg"},
	},
}

func TestFindDebian(t *testing.T) {
	for _, k := range debianKernels {
		t.Run(filepath.Base(k.dir), func(t *testing.T) {
			src, err := Open(k.dir)
			if err != nil {
				t.Fatalf("Open(%q): %v", k.dir, err)
			}
			defer src.Close()
			l := src.Layout
			got := Layout{TGLoadAvg: l.TGLoadAvg, CfsRqTG: l.CfsRqTG, SDShared: l.SDShared, SDSNrBusyCPUs: l.SDSNrBusyCPUs,
				NohzNrCPUs: l.NohzNrCPUs, CfsRqLastUpdateTG: l.CfsRqLastUpdateTG, CpumaskOffstack: l.CpumaskOffstack}
			if !reflect.DeepEqual(got, k.layout) {
				t.Errorf("layout = %+v, want %+v", got, k.layout)
			}
			r, err := Find(src.Input)
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			n := map[string]int{}
			for _, s := range r.Sites {
				n[s.Kind]++
			}
			for _, kind := range Kinds {
				if n[kind.Name] != k.want[kind.Name] {
					t.Errorf("%s: %d sites, want %d", kind.Name, n[kind.Name], k.want[kind.Name])
				}
			}
			why := map[string]string{}
			for _, m := range r.Missing {
				why[m.Kind] = m.Why
			}
			if len(why) != len(k.absent) {
				t.Errorf("missing %v, want just %v", why, k.absent)
			}
			for kind, part := range k.absent {
				if !strings.Contains(why[kind], part) {
					t.Errorf("%s missing because %q, want it to say %q", kind, why[kind], part)
				}
			}
			if len(r.Forms) != len(k.forms) {
				t.Errorf("forms %v, want %v", r.Forms, k.forms)
			}
			for kind, start := range k.forms {
				if !strings.HasPrefix(r.Forms[kind], start) {
					t.Errorf("%s's form %q, want it to start %q", kind, r.Forms[kind], start)
				}
			}
			if len(r.Undecoded) > 0 {
				t.Errorf("undecoded bytes: %v", r.Undecoded)
			}
			var buf bytes.Buffer
			if err := r.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			golden := k.dir + ".sites"
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if buf.String() != string(want) {
				t.Errorf("report differs from %s:\n%s", golden, buf.String())
			}
		})
	}
}

// TestFindRejects moves one offset or address the match depends on and
// checks the sites that depend on it vanish: the finder matches what BTF
// and kallsyms say, not a pattern that would match anything.
func TestFindRejects(t *testing.T) {
	cases := []struct {
		name  string
		kinds []string
		edit  func(*Input)
	}{
		// Not += 8: 7.3's runnable_avg lies 8 bytes on, added to the same way.
		{"load_avg offset", []string{"tg-load-avg"}, func(in *Input) { in.Layout.TGLoadAvg += 0x40 }},
		{"runnable_avg offset", []string{"tg-runnable-avg"}, func(in *Input) { in.Layout.TGRunnableAvg += 0x40 }},
		{"cfs_rq.tg offset, runnable_avg", []string{"tg-runnable-avg"}, func(in *Input) { in.Layout.CfsRqTG += 8 }},
		{"cfs_rq.tg offset", []string{"tg-load-avg"}, func(in *Input) { in.Layout.CfsRqTG += 8 }},
		{"last_update offset", []string{"tg-load-avg-limit"}, func(in *Input) { in.Layout.CfsRqLastUpdateTG += 8 }},
		{"nr_busy_cpus offset", []string{"nr-busy-cpus"}, func(in *Input) { in.Layout.SDSNrBusyCPUs += 4 }},
		{"sd.shared offset", []string{"nr-busy-cpus"}, func(in *Input) { in.Layout.SDShared += 8 }},
		{"nohz.nr_cpus offset", []string{"nohz-nr-cpus"}, func(in *Input) { in.Layout.NohzNrCPUs += 4 }},
		{"mask in place", []string{"nohz-idle-mask", "cpupri-mask"}, func(in *Input) { in.Layout.CpumaskOffstack = false }},
		{"nohz address", []string{"nohz-idle-mask", "nohz-nr-cpus"}, func(in *Input) { moveSym(in.Syms, "nohz", 64) }},
		{"flag address", []string{"balance-running", "balance-running-release"}, func(in *Input) { moveSym(in.Syms, "sched_balance_running", 4) }},
	}
	for _, c := range cases {
		for _, dir := range []string{"testdata/debian-6.12", "testdata/debian-7.2", "testdata/debian-7.3"} {
			t.Run(c.name+"/"+filepath.Base(dir), func(t *testing.T) {
				rejects(t, dir, c.kinds, c.edit)
			})
		}
	}
}

// rejects opens the kernel under dir, checks each of kinds is found there,
// edits the input and checks none of them is found any more.
func rejects(t *testing.T, dir string, kinds []string, edit func(*Input)) {
	t.Helper()
	before := findIn(t, dir)
	for _, k := range kinds {
		if !slices.ContainsFunc(before.Sites, func(s Site) bool { return s.Kind == k }) {
			t.Skipf("%s has no %s site to lose", dir, k)
		}
	}
	src, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	edit(&src.Input)
	r, err := Find(src.Input)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Sites {
		for _, k := range kinds {
			if s.Kind == k {
				t.Errorf("still found %s at %v", k, s)
			}
		}
	}
}

func moveSym(s *Symbols, name string, by uint64) {
	s.sorted[s.byName[name]].Addr += by
}

func TestBreakpointOrder(t *testing.T) {
	r := findIn(t, "testdata/debian-6.12")
	var got []string
	for _, i := range breakpointOrder(r.Sites)[:4] {
		got = append(got, r.Sites[i].Kind+" "+r.Sites[i].Func)
	}
	want := []string{
		"tg-load-avg update_load_avg", "tg-load-avg-limit update_load_avg",
		"tg-load-avg sched_balance_update_blocked_averages", "tg-load-avg-limit sched_balance_update_blocked_averages",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("breakpointOrder = %q, want %q", got, want)
	}
}

// TestFindPatched arms a kprobe's int3 over update_load_avg's lock add:
// that site vanishes and the report says where the text was patched.
func TestFindPatched(t *testing.T) {
	root := fakeRoot(t, func(r string) {
		b, _ := os.ReadFile(filepath.Join(r, kcorePath))
		f, _ := elf.NewFile(bytes.NewReader(b))
		for _, p := range f.Progs {
			if p.Vaddr == 0xffffffff81120a70 { // update_load_avg
				b[p.Off+0x3fc] = 0xcc
			}
		}
		os.WriteFile(filepath.Join(r, kcorePath), b, 0o644)
	})
	r := findIn(t, root)
	for _, s := range r.Sites {
		if s.Func == "update_load_avg" && s.Kind == "tg-load-avg" {
			t.Errorf("found %v under an int3", s)
		}
	}
	if len(r.Patched) != 1 || r.Patched[0] != "update_load_avg+0x3fc" {
		t.Errorf("Patched = %v, want [update_load_avg+0x3fc]", r.Patched)
	}
	var buf bytes.Buffer
	r.WriteText(&buf)
	if !strings.Contains(buf.String(), "note: int3 at update_load_avg+0x3fc") {
		t.Errorf("report does not name the int3:\n%s", buf.String())
	}
}

// TestSiteNext: each site's straight-line successor, where it has one,
// is the next instruction, and the 6.12 blocked-load write (an out-of-line
// block: lock add, then the jump back) has one.
func TestSiteNext(t *testing.T) {
	r := findIn(t, "testdata/debian-6.12")
	for _, s := range r.Sites {
		if s.Next != 0 && (s.Next <= s.Addr || s.Next > s.Addr+15) {
			t.Errorf("%v: Next %#x is not the next instruction", s, s.Next)
		}
		if s.Func == "sched_balance_update_blocked_averages" && s.Kind == "tg-load-avg" && s.Next != s.Addr+8 {
			t.Errorf("%v: Next = %#x, want the instruction 8 bytes on", s, s.Next)
		}
	}
}

// TestBalanceFormGuard reads which passes take sched_balance_running
// from the tests guarding its cmpxchg in sched_balance_rq. Debian 7.2.12's
// and 7.3.4's guard is "!need_unlock && (sd->flags & SD_SERIALIZE)"
// (522fb20fbdbe; their linux-source's fair.c says the same): objdump -d,
// 7.3.4 sched_balance_rq+0x272..0x28b:
//
//	cmpb  $0x0,0x53(%rsp)        need_unlock
//	jne   ...
//	mov   0x48(%rsp),%rax        sd
//	testb $0x4,0x3d(%rax)        sd->flags & SD_SERIALIZE (0x400)
//	je    ...
//	xor   %eax,%eax; mov $0x1,%edx
//	lock cmpxchg %edx,sched_balance_running
//
// A compare of the idle argument's stack copy with CPU_NEWLY_IDLE written
// over the load of sd (5 bytes each) is 3324b2180c17's guard before
// 522fb20fbdbe: periodic passes only. A compare with CPU_IDLE is not,
// nor is should_we_balance()'s own CPU_NEWLY_IDLE test before the guard
// (cmpl $0x2,0xd4(%rsp) at 7.3.4's sched_balance_rq+0x152). addr2line -i
// on 7.3.4's -dbg vmlinux: the guard's tests are fair.c:13784, the
// cmpxchg 13786, the compare at +0x152 should_we_balance()'s 13662.
func TestBalanceFormGuard(t *testing.T) {
	const newidle, periodic = "by newidle passes too", "by periodic passes only"
	fixtures := []struct {
		dir       string
		load      uint64 // offset of mov 0xNN(%rsp),%rax, sd for the SD_SERIALIZE test
		idleSlot  byte   // a stack slot holding idle
		wantGuard string
	}{
		{"testdata/debian-7.2", 0x256, 0x60, "sched_balance_rq+0x256"}, // idle: mov %ebp,0x60(%rsp) at +0x135,
		{"testdata/debian-7.3", 0x279, 0x54, "sched_balance_rq+0x279"}, // idle: mov %ecx,0x54(%rsp) at +0x38,
	}
	cases := []struct {
		name  string
		patch func(slot byte) []byte // nil: the image as shipped
		want  string
	}{
		{"as shipped", nil, newidle},
		{"idle != CPU_NEWLY_IDLE", func(slot byte) []byte { return []byte{0x83, 0x7c, 0x24, slot, 0x02} }, periodic},
		{"idle != CPU_IDLE", func(slot byte) []byte { return []byte{0x83, 0x7c, 0x24, slot, 0x01} }, newidle},
	}
	for _, fx := range fixtures {
		for _, c := range cases {
			t.Run(filepath.Base(fx.dir)+"/"+c.name, func(t *testing.T) {
				src, err := Open(fx.dir)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				rq, _, ok := src.Syms.Func("sched_balance_rq")
				if !ok {
					t.Fatal("no sched_balance_rq in the fixture's kallsyms")
				}
				orig := make([]byte, 5)
				if err := src.Mem.ReadAt(orig, rq.Addr+fx.load); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(orig[:4], []byte{0x48, 0x8b, 0x44, 0x24}) {
					t.Fatalf("sched_balance_rq+%#x is % x, not mov 0xNN(%%rsp),%%rax", fx.load, orig)
				}
				if c.patch != nil {
					src.Mem = patchMem{src.Mem, rq.Addr + fx.load, c.patch(fx.idleSlot)}
				}
				r, err := Find(src.Input)
				if err != nil {
					t.Fatal(err)
				}
				form := r.Forms["balance-running"]
				if !strings.Contains(form, c.want) {
					t.Errorf("form %q, want it to say %q", form, c.want)
				}
				if c.want == periodic && !strings.Contains(form, fx.wantGuard) {
					t.Errorf("form %q does not name the guard at %s", form, fx.wantGuard)
				}
			})
		}
	}
}

// patchMem is kernel memory with bytes written over it at one address.
type patchMem struct {
	Memory
	at uint64
	b  []byte
}

func (m patchMem) ReadAt(p []byte, vaddr uint64) error {
	if err := m.Memory.ReadAt(p, vaddr); err != nil {
		return err
	}
	for k, c := range m.b {
		if a := m.at + uint64(k); a >= vaddr && a-vaddr < uint64(len(p)) {
			p[a-vaddr] = c
		}
	}
	return nil
}

// findIn opens the kernel under root and finds its sites.
func findIn(t *testing.T, root string) *Report {
	t.Helper()
	src, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	r, err := Find(src.Input)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNrBusyForm: 7.2's nr_busy_cpus shares its line with the LLC's
// util_avg; moved a line on (or absent, as in 6.12) there is no such form.
func TestNrBusyForm(t *testing.T) {
	for _, c := range []struct {
		dir  string
		move int64
		want bool
	}{
		{"testdata/debian-7.2", 0, true},
		{"testdata/debian-7.2", 64, false},
		{"testdata/debian-6.12", 0, false},
	} {
		src, err := Open(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		if src.Layout.SDSUtilAvg >= 0 {
			src.Layout.SDSUtilAvg += c.move
		}
		r, err := Find(src.Input)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.HasPrefix(r.Forms["nr-busy-cpus"], "shares its line"); got != c.want {
			t.Errorf("%s, util_avg moved %d: form %q", c.dir, c.move, r.Forms["nr-busy-cpus"])
		}
	}
}

// TestRQGroups: struct rq's pick fields share the lock's line before
// 89951fc1f820 (6.12: nr_running and the NUMA counts at +4..+12, __lock at
// +0) and have a line of their own after (7.3: +0..+32, __lock at +72);
// moving the lock onto their line says so.
func TestRQGroups(t *testing.T) {
	for _, c := range []struct {
		dir, pick, clock string
		moveLock         int64
	}{
		{"testdata/debian-6.12", "spread over several lines, 3 of them on __lock's line (nr_running, nr_numa_running, nr_preferred_running)", "spread over several lines, apart from __lock", 0},
		{"testdata/debian-7.3", "on one line, apart from __lock", "on one line, apart from __lock", 0},
		{"testdata/debian-7.3", "on one line, 7 of them on __lock's line (nr_running, nr_numa_running, nr_preferred_running, ttwu_pending, cpu_capacity, curr, idle)", "on one line, apart from __lock", -72},
	} {
		src, err := Open(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		src.Layout.RQ["__lock"] += c.moveLock
		r, err := Find(src.Input)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.RQ) != 2 || r.RQ[0].Form != c.pick || r.RQ[1].Form != c.clock {
			t.Errorf("%s, lock moved %d: %+v\nwant %q and %q", c.dir, c.moveLock, r.RQ, c.pick, c.clock)
		}
	}
}

// TestInlinedULA: the tg->load_avg writes and 1 ms tests the finder puts
// in update_load_avg()'s body inlined into a caller (Site.Via) are those
// whose DWARF inline chain in Debian's -dbg vmlinux runs through
// update_load_avg (addr2line -i), and no others: not
// __update_blocked_fair()'s own update_tg_load_avg(), the attach and
// detach paths, nor clear_tg_load_avg(). 6.1 and 6.12 inline none.
func TestInlinedULA(t *testing.T) {
	for _, k := range []struct {
		dir string
		ula []string // SYMBOL+0xOFF of the sites in update_load_avg's inlined body
	}{
		{"testdata/debian-6.1", nil},
		{"testdata/debian-6.12", nil},
		{"testdata/debian-7.2", []string{
			"__sched_balance_update_blocked_averages+0x37e", "propagate_entity_cfs_rq+0x213", "enqueue_task_fair+0x7c9",
			"dequeue_entities+0x8de", "task_tick_fair+0x155", "set_next_task_fair+0x1c3", "__sched_group_set_shares+0x1fc",
			"__sched_balance_update_blocked_averages+0x343", "propagate_entity_cfs_rq+0x1e0", "enqueue_task_fair+0x796",
			"dequeue_entities+0x8ab", "task_tick_fair+0x122", "set_next_task_fair+0x190", "__sched_group_set_shares+0x1c9"}},
		{"testdata/debian-7.3", []string{
			"__sched_balance_update_blocked_averages+0x3b2", "propagate_entity_cfs_rq+0x330", "enqueue_task_fair+0x39b",
			"__dequeue_task+0x449", "task_tick_fair+0x183", "__sched_group_set_shares+0x229",
			"__sched_balance_update_blocked_averages+0x366", "propagate_entity_cfs_rq+0x1e0", "enqueue_task_fair+0x353",
			"__dequeue_task+0x329", "task_tick_fair+0x13b", "__sched_group_set_shares+0x1ce"}},
	} {
		t.Run(k.dir, func(t *testing.T) {
			src, err := Open(k.dir)
			if err != nil {
				t.Fatalf("Open(%q): %v", k.dir, err)
			}
			defer src.Close()
			r, err := Find(src.Input)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range r.Sites {
				if s.Via == "update_load_avg" {
					got = append(got, s.Func+"+0x"+strconv.FormatUint(s.Off, 16))
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(k.ula))
			if !slices.Equal(got, want) {
				t.Errorf("inlined update_load_avg sites %v, want %v", got, want)
			}
		})
	}
}
