package kernellab

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/internal/kernel"
	"github.com/contend/contend/internal/kernel/wakeups"
	"github.com/contend/contend/internal/vmlab"
)

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		less bool
	}{
		{"linux-image-6.12.99+deb12-amd64", "linux-image-6.12.117+deb12-amd64", true},
		{"linux-image-6.1.0-9-amd64", "linux-image-6.1.0-57-amd64", true},
		{"linux-image-6.1.0-57-amd64", "linux-image-6.1.0-57-amd64", false},
	} {
		if got := versionLess(c.a, c.b); got != c.less {
			t.Errorf("versionLess(%q, %q) = %v, want %v", c.a, c.b, got, c.less)
		}
	}
	for series, re := range DebianKernels {
		if !re.MatchString(map[string]string{"6.1": "linux-image-6.1.0-57-amd64", "6.12": "linux-image-6.12.117+deb12-amd64"}[series]) {
			t.Errorf("%s's pattern %s misses its package", series, re)
		}
	}
	if DebianKernels["6.1"].MatchString("linux-image-6.1.0-57-cloud-amd64") {
		t.Error("6.1's pattern takes the cloud flavour")
	}
}

// TestKernelSitesCheck holds the check to internal/kernel's fixture
// reports: what the guests printed (the same lines; the fixtures are the
// images those kernels boot).
func TestKernelSitesCheck(t *testing.T) {
	for _, c := range []struct{ release, fixture string }{
		{"6.1.0-57-amd64", "debian-6.1"},
		{"6.12.117+deb12-amd64", "debian-6.12"},
		{"7.3.4+deb13-amd64", "debian-7.3"},
	} {
		b, err := os.ReadFile("../../kernel/testdata/" + c.fixture + ".sites")
		if err != nil {
			t.Fatal(err)
		}
		tr := &Transcript{Outputs: []vmlab.Output{{Name: "kernel-release", Data: []byte(c.release + "\n")}, {Name: "kernel-sites", Data: b}}}
		if bad := kernelSitesCheck(Topology{}, tr); len(bad) > 0 {
			t.Errorf("%s: %v", c.release, bad)
		}
		// The other kernel's report fails this one's check.
		other := map[string]string{"6.1.0-57-amd64": "6.12.117+deb12-amd64", "6.12.117+deb12-amd64": "7.3.4+deb13-amd64", "7.3.4+deb13-amd64": "6.1.0-57-amd64"}[c.release]
		tr.Outputs[0].Data = []byte(other)
		if bad := kernelSitesCheck(Topology{}, tr); len(bad) == 0 {
			t.Errorf("%s's sites pass as %s's", c.release, other)
		}
		// Any other version is held to every kind found or named absent.
		tr.Outputs[0].Data = []byte("6.18.15+deb13-amd64")
		if bad := kernelSitesCheck(Topology{}, tr); len(bad) > 0 {
			t.Errorf("%s's sites as an unlisted version's: %v", c.release, bad)
		}
		unmatched := strings.Replace(string(b), "not in this kernel: the atomic flag", "no instruction of a known form in x; the atomic flag", 1)
		tr.Outputs[1].Data = []byte(unmatched)
		if bad := kernelSitesCheck(Topology{}, tr); c.release != "6.1.0-57-amd64" && len(bad) != 1 {
			t.Errorf("%s: a word neither found nor named absent passes: %v", c.release, bad)
		}
	}
}

func TestLeftCheck(t *testing.T) {
	for _, c := range []struct {
		out string
		ok  bool
	}{
		{"kprobes:\ncgroups:\nschedstats: 0\n", true},
		{"kprobes:\np:contend/contend_enqueue enqueue_task_fair\ncgroups:\nschedstats: 0\n", false},
		{"kprobes:\ncgroups:\n/sys/fs/cgroup/contend-system.slice\nschedstats: 0\n", false},
		{"kprobes:\ncgroups:\nschedstats: 1\n", false},
	} {
		tr := &Transcript{Outputs: []vmlab.Output{{Name: "after", Data: []byte(c.out)}}}
		if bad := leftCheck(tr, "after"); (len(bad) == 0) != c.ok {
			t.Errorf("leftCheck(%q) = %v, want ok=%v", c.out, bad, c.ok)
		}
	}
	if !strings.Contains(afterCount, "kprobe_events") || !strings.Contains(afterCount, "sched_schedstats") {
		t.Error("afterCount does not look at kprobe_events and sched_schedstats")
	}
}

// TestKernelKillCheck: the rerun after a SIGKILL must set as many
// breakpoints as the first count (in a 6.1 guest it once set one of four:
// the killed run's kprobes hid three sites until they were removed).
func TestKernelKillCheck(t *testing.T) {
	clean := []byte("kprobes:\ncgroups:\nschedstats: 0\n")
	tr := func(rerun string) *Transcript {
		return &Transcript{Outputs: []vmlab.Output{
			{Name: "kernel-count", Data: []byte("kernel count: counting: 4 breakpoints, kprobes in /sys/kernel/tracing/contend\n")},
			{Name: "kernel-kill-term", Data: []byte("rc=1\n")},
			{Name: "kernel-kill-term.log", Data: []byte("contend: kernel count: interrupted; every probe\n")},
			{Name: "kernel-kill-term-after", Data: clean},
			{Name: "kernel-kill-9-left", Data: []byte("kprobes:\np:contend/contend_enqueue enqueue_task_fair\ncgroups:\nschedstats: 1\n")},
			{Name: "kernel-kill-rerun", Data: []byte(rerun)},
			{Name: "kernel-kill-rerun-after", Data: clean},
		}}
	}
	ok := "kernel count: stale from an earlier run: kprobe contend/contend_enqueue removed\nkernel count: counting: 4 breakpoints, kprobes\n"
	if bad := kernelKillCheck(Topology{}, tr(ok)); len(bad) > 0 {
		t.Errorf("a good transcript fails: %v", bad)
	}
	hidden := strings.Replace(ok, "4 breakpoints", "1 breakpoints", 1)
	if bad := kernelKillCheck(Topology{}, tr(hidden)); len(bad) != 1 || !strings.Contains(bad[0], "1 breakpoints after removing") {
		t.Errorf("a rerun that lost sites: %v", bad)
	}
	if bad := kernelKillCheck(Topology{}, tr("kernel count: counting: 4 breakpoints\n")); len(bad) != 1 {
		t.Errorf("a rerun that removed nothing stale: %v", bad)
	}
}

// TestKernelCountCheck: the count must print the two methods' verdict,
// and a NO fails the step.
func TestKernelCountCheck(t *testing.T) {
	results := "goos: linux\nkernel: 6.1.0-57-amd64\n\nBenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1 tx/s 4.02 nohz-locked/mask-entry 46 idle-tick-crossed-% 90 newidle-gated-% 0.3 kick-idle-due/kick 75 wake-stacked-%\n"
	tr := func(count string) *Transcript {
		return &Transcript{Outputs: []vmlab.Output{
			{Name: "kernel-count", Data: []byte(count)},
			{Name: "kernel-count.results", Data: []byte(results)},
			{Name: "kernel-count-after", Data: []byte("kprobes:\ncgroups:\nschedstats: 0\n")},
		}}
	}
	ok := "tg->load_avg writes: 4774, 0.506 per enqueue_task_fair\ntwo methods: 4774 writes by the sites' breakpoints and kprobes, 4774 by the watchpoints: watchpoints/sites 1.0000, within 2 %: yes\nundone: every kprobe\n"
	if bad := kernelCountCheck(Topology{}, tr(ok)); len(bad) > 0 {
		t.Errorf("a good count fails: %v", bad)
	}
	no := strings.Replace(ok, "1.0000, within 2 %: yes", "1.0285, within 2 %: NO", 1)
	if bad := kernelCountCheck(Topology{}, tr(no)); len(bad) != 1 || !strings.Contains(bad[0], "disagree") {
		t.Errorf("a count whose methods disagree: %v", bad)
	}
	none := strings.Replace(ok, "two methods", "one method", 1)
	if bad := kernelCountCheck(Topology{}, tr(none)); len(bad) != 1 || !strings.Contains(bad[0], "no two methods line") {
		t.Errorf("a count without the check: %v", bad)
	}
	results = strings.Replace(results, " 4.02 nohz-locked/mask-entry", "", 1)
	if bad := kernelCountCheck(Topology{}, tr(ok)); len(bad) != 1 || !strings.Contains(bad[0], "nohz's line not counted") {
		t.Errorf("a count without nohz's line: %v", bad)
	}
	results = strings.Replace(results, "1 1 tx/s", "1 1 tx/s 4.02 nohz-locked/mask-entry", 1)
	results = strings.Replace(results, " 46 idle-tick-crossed-%", "", 1)
	if bad := kernelCountCheck(Topology{}, tr(ok)); len(bad) != 1 || !strings.Contains(bad[0], "no leaf cfs_rq") {
		t.Errorf("a count without the leaf's ages: %v", bad)
	}
	results = strings.Replace(results, "1 1 tx/s", "1 1 tx/s 46 idle-tick-crossed-%", 1)
	results = strings.Replace(results, " 0.3 kick-idle-due/kick", "", 1)
	if bad := kernelCountCheck(Topology{}, tr(ok)); len(bad) != 1 || !strings.Contains(bad[0], "no kicks") {
		t.Errorf("a count without the kicks: %v", bad)
	}
	results = strings.Replace(results, "1 1 tx/s", "1 1 tx/s 0.3 kick-idle-due/kick", 1)
	// No gate figures: a failure, unless the count says the kernel
	// inlines the walk (6.19 on).
	results = strings.Replace(results, " 90 newidle-gated-%", "", 1)
	if bad := kernelCountCheck(Topology{}, tr(ok)); len(bad) != 1 || !strings.Contains(bad[0], "no newidle-gated-%") {
		t.Errorf("a count without the newidle gate: %v", bad)
	}
	inlined := ok + "note: no newidle walks in the tick trace: kallsyms has none of sched_balance_newidle, newidle_balance (inlined, or only a clone), or there is no BTF layout\n"
	if bad := kernelCountCheck(Topology{}, tr(inlined)); len(bad) != 0 {
		t.Errorf("a count on a kernel that inlines the newidle walk: %v", bad)
	}
	results = strings.Replace(results, " 75 wake-stacked-%", "", 1)
	if bad := kernelCountCheck(Topology{}, tr(inlined)); len(bad) != 1 || !strings.Contains(bad[0], "no wake-stacked-%") {
		t.Errorf("a count without the wake trace: %v", bad)
	}
}

// TestKernelTwoCheck: the second count must be refused in one line, the
// first complete with nothing of its own taken for stale, and no Oops.
func TestKernelTwoCheck(t *testing.T) {
	tr := func(two, a, b, tainted string) *Transcript {
		return &Transcript{Outputs: []vmlab.Output{
			{Name: "kernel-two", Data: []byte(two)},
			{Name: "kernel-two-a.log", Data: []byte(a)},
			{Name: "kernel-two-b.log", Data: []byte(b)},
			{Name: "kernel-two-after", Data: []byte("kprobes:\ncgroups:\nschedstats: 0\n")},
			{Name: "kernel-two-tainted", Data: []byte(tainted)},
		}}
	}
	a := "kernel count: counting: 4 breakpoints\ntg->load_avg writes: 10\nundone: every kprobe\n"
	b := "contend: kernel count: another contend kernel run holds the machine: pid 93 (kernel count), started 2026-12-04T23:10:05Z; one at a time (/run/contend-kernel/lock)\n"
	if bad := kernelTwoCheck(Topology{}, tr("b-rc=1\na-rc=0\n", a, b, "0\n")); len(bad) > 0 {
		t.Errorf("a good transcript fails: %v", bad)
	}
	for name, c := range map[string]struct {
		two, a, b, tainted, want string
	}{
		"second ran":   {"b-rc=0\na-rc=0\n", a, "undone: every kprobe\n", "0\n", "b-rc=1"},
		"first failed": {"b-rc=1\na-rc=1\n", "contend: kernel count: the workload failed\n", b, "0\n", "a-rc=0"},
		"took stale":   {"b-rc=1\na-rc=0\n", "kernel count: stale from an earlier run: kprobe x\n" + a, b, "0\n", "none of its changes"},
		"oops":         {"b-rc=1\na-rc=0\n", a, b, "4224\n", "Oopsed"},
		"two lines":    {"b-rc=1\na-rc=0\n", a, "kernel count: stale from an earlier run: x\n" + b, "0\n", "one line"},
	} {
		bad := kernelTwoCheck(Topology{}, tr(c.two, c.a, c.b, c.tainted))
		if !slices.ContainsFunc(bad, func(s string) bool { return strings.Contains(s, c.want) }) {
			t.Errorf("%s: %v, want a line saying %q", name, bad, c.want)
		}
	}
}

// TestPickKernel: apt's names as trixie-backports and bookworm list them.
func TestPickKernel(t *testing.T) {
	names := []string{
		"linux-image-6.1.0-57-amd64", "linux-image-6.1.0-9-amd64", "linux-image-6.1.0-57-cloud-amd64",
		"linux-image-6.12.117+deb12-amd64", "linux-image-6.12.117+deb12-amd64-unsigned", "linux-image-6.12.118+deb12-amd64",
		"linux-image-6.16.12+deb13-amd64", "linux-image-6.16.3+deb13-amd64",
		"linux-image-6.18.5+deb13-amd64", "linux-image-6.18.15+deb13-amd64", "linux-image-6.18.15+deb13-amd64-dbg",
		"linux-image-6.19.14+deb13-amd64", "linux-binary-6.19.14+deb13-amd64", "linux-binary-6.19.14+deb13-rt-amd64",
		"linux-image-7.3.4+deb13-amd64", "linux-binary-7.3.4+deb13-amd64", "linux-binary-7.3.4+deb13-cloud-amd64",
		"linux-image-amd64",
	}
	for _, c := range []struct{ want, pkg, err string }{
		{"6.1", "linux-image-6.1.0-57-amd64", ""},
		{"6.12", "linux-image-6.12.118+deb12-amd64", ""},
		{"6.16", "linux-image-6.16.12+deb13-amd64", ""},
		{"6.18", "linux-image-6.18.15+deb13-amd64", ""},
		{"6.18.5", "linux-image-6.18.5+deb13-amd64", ""},
		{"6.18.15-1~bpo13+1", "linux-image-6.18.15+deb13-amd64", ""},
		{"6.19", "linux-binary-6.19.14+deb13-amd64", ""}, // linux-image is the meta-package
		{"7.3", "linux-binary-7.3.4+deb13-amd64", ""},
		{"linux-image-6.16.3+deb13-amd64", "linux-image-6.16.3+deb13-amd64", ""},
		{"linux-image-6.17.8+deb13-amd64", "", "no such package"},
		{"7.4", "", "no linux-image or linux-binary package"},
		{"6.1.0", "", "no linux-image"},
	} {
		pkg, err := pickKernel(names, c.want)
		if pkg != c.pkg || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("pickKernel(%q) = %q, %v; want %q, error %q", c.want, pkg, err, c.pkg, c.err)
		}
	}
}

// TestKernelWakeupsCheck: a run of the topology's cpus and LLC on 6.1
// passes only with its wake trace summed (a committed run from before
// the trace fails, naming it), and one of another LLC fails.
func TestKernelWakeupsCheck(t *testing.T) {
	raw, err := os.ReadFile("../../oracle/testdata/wakeups-6.1-llc4.json")
	if err != nil {
		t.Fatal(err)
	}
	raw = raw[bytes.IndexByte(raw, '{'):] // the vmlab header line
	var w wakeups.Run
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	llc4 := WakeupKernels[1]
	clean := []byte("kprobes:\ncgroups:\nschedstats: 0\n")
	check := func(w wakeups.Run, topo Topology) []string {
		b, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		return kernelWakeupsCheck(topo, &Transcript{Outputs: []vmlab.Output{
			{Name: "kernel-wakeups", Data: []byte("kernel 6.1.0-57-amd64\n")},
			{Name: "kernel-wakeups.json", Data: b},
			{Name: "kernel-wakeups-after", Data: clean},
		}})
	}
	w.Notes = []string{"no wake trace: kallsyms has no select_task_rq_fair"}
	if bad := check(w, llc4); len(bad) != 1 || !strings.Contains(bad[0], "no wake trace (no wake trace: kallsyms") {
		t.Errorf("a run without the wake trace: %q, want its note named", bad)
	}
	w.Notes = []string{"no move records: kallsyms has no set_task_cpu"}
	w.Wakes = &kernel.WakeTrace{Wakes: 100, Stacked: 40, LLCKnown: true}
	if bad := check(w, llc4); len(bad) != 1 || !strings.Contains(bad[0], "no move records (no move records: kallsyms") {
		t.Errorf("a run without the move records: %q, want its note named", bad)
	}
	w.Notes = nil
	w.Wakes.Moves = &kernel.MoveTrace{All: 30, Moves: 10}
	if bad := check(w, llc4); len(bad) > 0 {
		t.Errorf("a complete run: %q", bad)
	}
	if bad := check(w, WakeupKernels[0]); len(bad) == 0 {
		t.Error("an LLCs-of-4 run passes as oracle-llc1's")
	}
}
