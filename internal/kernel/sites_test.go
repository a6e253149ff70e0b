package kernel

import (
	"bytes"
	"debug/elf"
	"flag"
	"os"
	"path/filepath"
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
			"balance-running":         "spinlock balancing",
			"balance-running-release": "spinlock balancing",
		},
		layout: Layout{TGLoadAvg: 0x100, CfsRqTG: 0x150, SDShared: 0x128, SDSNrBusyCPUs: 4, NohzNrCPUs: 8, CfsRqLastUpdateTG: -1, CpumaskOffstack: true},
	},
	{
		dir: "testdata/debian-6.12", // linux-image-6.12.117+deb12-amd64 6.12.117-1~deb12u1
		want: map[string]int{
			// update_load_avg, sched_balance_update_blocked_averages (out of
			// line, reached by a jump), attach_entity_cfs_rq,
			// task_change_group_fair, switched_from_fair (detach inlined)
			"tg-load-avg": 5, "tg-load-avg-limit": 5,
			"balance-running": 1, "balance-running-release": 1,
			"nohz-idle-mask": 2, "nohz-nr-cpus": 2, "nr-busy-cpus": 2,
			"cpupri-count": 2, "cpupri-mask": 2,
		},
		absent: map[string]string{
			"balancing-trylock": "replaced the spinlock",
			"balancing-unlock":  "replaced the spinlock",
		},
		layout: Layout{TGLoadAvg: 0x100, CfsRqTG: 0x158, SDShared: 0x120, SDSNrBusyCPUs: 4, NohzNrCPUs: 8, CfsRqLastUpdateTG: 0x100, CpumaskOffstack: true},
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
			if got != k.layout {
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
		{"load_avg offset", []string{"tg-load-avg"}, func(in *Input) { in.Layout.TGLoadAvg += 8 }},
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
		t.Run(c.name, func(t *testing.T) {
			src, err := Open("testdata/debian-6.12")
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			c.edit(&src.Input)
			r, err := Find(src.Input)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range r.Sites {
				for _, k := range c.kinds {
					if s.Kind == k {
						t.Errorf("still found %s at %v", k, s)
					}
				}
			}
		})
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
