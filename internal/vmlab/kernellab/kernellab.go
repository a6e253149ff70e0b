// Package kernellab is the kernel oracle's part of the QEMU lab
// (internal/vmlab): the 2-node topology booted on Debian's kernels, 6.1
// and 6.12 in CI and any of 6.16 … 7.3 from trixie-backports by version
// (cmd/vmlab's -debian-kernel, and vmlab history, which boots them in
// turn), the apt fetch of those kernels, and the steps that run contend
// kernel sites and count in the guest (one count, two at once, one
// killed) and judge what came back. It registers its topology and steps with vmlab
// when imported, so cmd/vmlab lists and boots them as vmlab's own.
package kernellab

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/contend/contend/internal/vmlab"
)

type (
	Topology   = vmlab.Topology
	Transcript = vmlab.Transcript
)

var need = vmlab.Need

// The kernel oracle's guests (contend kernel): one 2-node topology booted
// on each of Debian's two kernels that bracket seed 000's patch — 6.1,
// bookworm's own (before "sched/fair: Ratelimit update to tg->load_avg",
// v6.7), and 6.12 (after) — so the same steps on the same topology show
// 6.1 → 6.12. Four vcpus, not eight: TCG on two host cpus runs the counted
// workload several times slower than bare, and a smaller guest keeps the
// pair inside CI's few minutes.
var Kernels = []Topology{
	{
		Name:     "oracle-2n",
		Summary:  "2 sockets × 2 cores (Skylake-Server), 2 nodes: contend kernel sites and count on Debian 6.1 and 6.12 (-debian-kernel)",
		CPUModel: "Skylake-Server", Sockets: 2, Cores: 2, Threads: 1,
		Nodes: []vmlab.Node{{CPUs: []int{0, 1}, MemMiB: 256}, {CPUs: []int{2, 3}, MemMiB: 256}},
		Steps: []string{"kernel-sites", "kernel-count", "kernel-two", "kernel-kill"},
	},
}

// DebianKernels are the series CI boots, from the host's own apt lists
// (bookworm): the apt package pattern of each, newest version taken.
var DebianKernels = map[string]*regexp.Regexp{
	"6.1":  regexp.MustCompile(`^linux-image-6\.1\.0-\d+-amd64$`),
	"6.12": regexp.MustCompile(`^linux-image-6\.12\.\d+\+deb12-amd64$`),
}

func init() {
	vmlab.Kernels = append(vmlab.Kernels, Kernels...)
	vmlab.Steps = append(vmlab.Steps,
		vmlab.Step{Name: "kernel-sites", Summary: "contend kernel sites on the guest's own kernel: every site of its version found, what is absent named", Script: kernelSitesScript, Check: kernelSitesCheck},
		vmlab.Step{Name: "kernel-count", Summary: "contend kernel count, pipe pairs in system.slice/docker-<id>.scope: counts, the two methods on the same sites, nohz's line, everything undone", Script: kernelCountScript, Check: kernelCountCheck},
		vmlab.Step{Name: "kernel-two", Summary: "two contend kernel counts at once: the second refused in one line naming the first, the first's counts complete and undone, the kernel without an Oops", Script: kernelTwoScript, Check: kernelTwoCheck},
		vmlab.Step{Name: "kernel-kill", Summary: "contend kernel count killed mid-run (SIGTERM: it undoes; SIGKILL: the next run removes what is left) with kprobe_events, the cgroup tree and the sysctl checked after each", Script: kernelKillScript, Check: kernelKillCheck},
	)
}

// historySources are the suites every other Debian kernel 6.1 … 7.3 comes
// from: trixie-backports carries 6.16 to 7.3 (vmlinuz in linux-image-V
// to 6.18, in linux-binary-V from 6.19, where linux-image-V is a
// meta-package). They go in a sources list of the lab's own, with its own
// lists and cache directories, so the host's apt configuration is left
// untouched.
const historySources = `deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main
`

// kernelPkgRE is a Debian amd64 kernel package that may hold a vmlinuz,
// with its upstream version (6.18.15; 6.1.0-57 for bookworm's ABI names).
var kernelPkgRE = regexp.MustCompile(`^linux-(image|binary)-(\d+\.\d+(?:\.\d+)?(?:-\d+)?)(?:\+deb\d+)?-amd64$`)

// DebianKernel returns a bzImage of a Debian kernel, fetched into the
// cache as Kernel fetches bookworm's own. want is a series (6.1, 6.18,
// 7.3: its newest), an upstream version (6.18.15), a Debian package
// version (6.18.15-1~bpo13+1) or a package name. 6.1 and 6.12 come from
// the host's apt lists where they have them, as in CI; any other from
// historySources.
func DebianKernel(h *vmlab.Host, want string) (string, error) {
	if re, ok := DebianKernels[want]; ok {
		out, err := exec.Command("apt-cache", "pkgnames", "linux-image-").Output()
		if err != nil {
			return "", fmt.Errorf("apt-cache pkgnames: %w (is apt's package list fetched? apt-get update)", err)
		}
		var pkgs []string
		for _, p := range strings.Fields(string(out)) {
			if re.MatchString(p) {
				pkgs = append(pkgs, p)
			}
		}
		// The host's lists may lack the series (6.12 is bookworm-backports'
		// on a host without backports): then the lab's own lists have it.
		if len(pkgs) > 0 {
			sort.Slice(pkgs, func(i, j int) bool { return versionLess(pkgs[i], pkgs[j]) })
			pkg := pkgs[len(pkgs)-1]
			if err := os.MkdirAll(h.Cache, 0o755); err != nil {
				return "", err
			}
			return h.FetchKernel(pkg, pkg)
		}
	}
	opts, err := historyApt(h)
	if err != nil {
		return "", err
	}
	var names []string
	for _, prefix := range []string{"linux-image-", "linux-binary-"} {
		out, err := exec.Command("apt-cache", append(opts, "pkgnames", prefix)...).Output()
		if err != nil {
			return "", fmt.Errorf("apt-cache pkgnames %s: %w", prefix, err)
		}
		names = append(names, strings.Fields(string(out))...)
	}
	pkg, err := pickKernel(names, want)
	if err != nil {
		return "", err
	}
	saved := h.AptOptions
	h.AptOptions = opts
	defer func() { h.AptOptions = saved }()
	return h.FetchKernel(pkg, pkg)
}

// historyApt writes the lab's own sources list under the cache and
// fetches its package lists once, returning the apt options that use
// them.
func historyApt(h *vmlab.Host) ([]string, error) {
	dir := filepath.Join(h.Cache, "apt")
	for _, d := range []string{"lists/partial", "cache/archives/partial"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	list := filepath.Join(dir, "sources.list")
	if err := os.WriteFile(list, []byte(historySources), 0o644); err != nil {
		return nil, err
	}
	opts := []string{
		"-o", "Dir::Etc::SourceList=" + list, "-o", "Dir::Etc::SourceParts=/dev/null",
		"-o", "Dir::State::Lists=" + filepath.Join(dir, "lists"), "-o", "Dir::Cache=" + filepath.Join(dir, "cache"),
	}
	if got, _ := filepath.Glob(filepath.Join(dir, "lists", "*trixie-backports*Packages*")); len(got) == 0 {
		fmt.Fprintf(h.Log, "vmlab: fetching the package lists of bookworm and trixie(-backports) into %s\n", dir)
		cmd := exec.Command("apt-get", append(opts, "update")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("apt-get update (the lab's own sources list %s): %w: %s", list, err, lastLines(out))
		}
	}
	return opts, nil
}

func lastLines(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 500 {
		s = "…" + s[len(s)-500:]
	}
	return s
}

// pickKernel chooses the package holding the vmlinuz of want among apt's
// package names: for each upstream version the linux-binary package where
// there is one (linux-image is then a meta-package), the newest version
// of a series, one exact version, or one package by name.
func pickKernel(names []string, want string) (string, error) {
	if kernelPkgRE.MatchString(want) {
		if slices.Contains(names, want) {
			return want, nil
		}
		return "", fmt.Errorf("-debian-kernel %s: apt knows no such package", want)
	}
	// A Debian package version names its upstream version before the "-".
	if v, _, ok := strings.Cut(want, "-"); ok && strings.ContainsAny(want, "~+") {
		want = v
	}
	byVersion := map[string]string{}
	for _, n := range names {
		m := kernelPkgRE.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		v := m[2]
		series := v[:strings.LastIndexAny(v, ".-")]
		if strings.Contains(v, ".0-") { // bookworm's 6.1.0-57: series 6.1
			series = v[:strings.Index(v, ".0-")]
		}
		if v != want && series != want {
			continue
		}
		// linux-binary over linux-image; of two suites' builds of one
		// version (6.12.117+deb12, +deb13) either boots: keep the first.
		if cur, ok := byVersion[v]; !ok || (m[1] == "binary" && strings.HasPrefix(cur, "linux-image-")) {
			byVersion[v] = n
		}
	}
	if len(byVersion) == 0 {
		return "", fmt.Errorf("-debian-kernel %s: apt knows no linux-image or linux-binary package of it for amd64 (Debian has 6.1, 6.12 and 6.16 … 7.3)", want)
	}
	versions := slices.Collect(maps.Keys(byVersion))
	sort.Slice(versions, func(i, j int) bool { return versionLess(versions[i], versions[j]) })
	return byVersion[versions[len(versions)-1]], nil
}

// versionLess orders package names by their numbers, so that 6.12.117
// comes after 6.12.99.
func versionLess(a, b string) bool {
	num := regexp.MustCompile(`\d+|\D+`)
	pa, pb := num.FindAllString(a, -1), num.FindAllString(b, -1)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] == pb[i] {
			continue
		}
		if len(pa[i]) != len(pb[i]) && pa[i][0] >= '0' && pa[i][0] <= '9' && pb[i][0] >= '0' && pb[i][0] <= '9' {
			return len(pa[i]) < len(pb[i])
		}
		return pa[i] < pb[i]
	}
	return len(pa) < len(pb)
}

func kernelSitesScript(Topology) string {
	return `run kernel-release cat /proc/sys/kernel/osrelease
run kernel-sites timeout 600 contend kernel sites
`
}

// kernelSitesWant are the kinds each series must show (read in the
// images: internal/kernel's fixtures). On any version, every other kind
// must be named as absent with what replaced it ("not in this kernel"),
// never as unmatched.
var kernelSitesWant = map[string][]string{
	"6.1.":  {"tg-load-avg:", "balancing-trylock:", "balancing-unlock:", "nohz-idle-mask:", "nohz-nr-cpus:", "nr-busy-cpus:", "cpupri-count:", "cpupri-mask:"},
	"6.12.": {"tg-load-avg:", "tg-load-avg-limit:", "balance-running:", "balance-running-release:", "nohz-idle-mask:", "nohz-nr-cpus:", "nr-busy-cpus:", "cpupri-count:", "cpupri-mask:"},
	"7.3.":  {"tg-load-avg:", "tg-runnable-avg:", "tg-load-avg-limit:", "balance-running:", "balance-running-release:", "nohz-idle-mask:", "nr-busy-cpus:", "cpupri-count:", "cpupri-mask:"},
}

// kernelSitesAny are the kinds every version 6.1 … 7.3 has in some form.
var kernelSitesAny = []string{"tg-load-avg:", "nohz-idle-mask:", "nr-busy-cpus:", "cpupri-count:", "cpupri-mask:"}

func kernelSitesCheck(_ Topology, tr *Transcript) []string {
	o, bad := need(tr, "kernel-sites", 0)
	if o == nil {
		return bad
	}
	rel := tr.Get("kernel-release")
	if rel == nil {
		return append(bad, "kernel-release: no output")
	}
	release := strings.TrimSpace(string(rel.Data))
	out := "\n" + string(o.Data)
	want := kernelSitesAny
	for prefix, kinds := range kernelSitesWant {
		if strings.HasPrefix(release, prefix) {
			want = kinds
		}
	}
	for _, k := range want {
		if !strings.Contains(out, "\n"+k) {
			bad = append(bad, fmt.Sprintf("kernel-sites: %s shows no %s site", release, strings.TrimSuffix(k, ":")))
		}
	}
	if !strings.Contains(out, "\nbalance-running:") && !strings.Contains(out, "\nbalancing-trylock:") {
		bad = append(bad, fmt.Sprintf("kernel-sites: %s shows neither the balancer's flag nor its spinlock", release))
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "no instruction of a known form") || strings.Contains(line, "is in kallsyms") {
			bad = append(bad, fmt.Sprintf("kernel-sites: %s: a word neither found nor named absent: %s", release, strings.TrimSpace(line)))
		}
	}
	return bad
}

// afterCount shows what a count could have left: the contend kprobes,
// cgroups named contend-*, and sched_schedstats (0 on Debian's kernels).
const afterCount = `sh -c 'mkdir -p /sys/kernel/tracing /sys/fs/cgroup; mount -t tracefs none /sys/kernel/tracing 2>/dev/null; mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; echo kprobes:; grep contend /sys/kernel/tracing/kprobe_events; echo cgroups:; find /sys/fs/cgroup -name "*contend-*"; echo schedstats: $(cat /proc/sys/kernel/sched_schedstats); umount /sys/kernel/tracing /sys/fs/cgroup'`

func kernelCountScript(Topology) string {
	return `run kernel-count timeout 400 contend kernel count -shape pipe -pairs 2 -levels 2 -duration 2s -o /tmp/out/kernel-count.results
emit kernel-count.results /tmp/out/kernel-count.results 0
run kernel-count-after timeout 60 ` + afterCount + `
`
}

// twoMethodsRE is count's verdict on the two methods.
var twoMethodsRE = regexp.MustCompile(`two methods: .*within 2 %: (yes|NO)`)

// clean is afterCount's output when nothing was left behind.
var clean = regexp.MustCompile(`^kprobes:\ncgroups:\nschedstats: 0\n$`)

// newidleInlined is the count's note where the kernel has no newidle walk
// to probe (internal/kernel's traceNewidle).
const newidleInlined = "no newidle walks in the tick trace: kallsyms has none of"

func kernelCountCheck(_ Topology, tr *Transcript) []string {
	o, bad := need(tr, "kernel-count", 0)
	if o != nil {
		s := string(o.Data)
		for _, want := range []string{"tg->load_avg writes:", "two methods:", "undone:"} {
			if !strings.Contains(s, want) {
				bad = append(bad, "kernel-count: no "+strings.TrimSuffix(want, ":")+" line")
			}
		}
		// The done-when: the sites' breakpoints and kprobes and the
		// watchpoints on each level's load_avg count the same writes.
		if m := twoMethodsRE.FindString(s); m != "" && !strings.HasSuffix(m, "yes") {
			bad = append(bad, "kernel-count: the two methods disagree: "+m)
		}
	}
	if r := tr.Get("kernel-count.results"); r == nil || !strings.Contains(string(r.Data), "BenchmarkKernelCount/") {
		bad = append(bad, "kernel-count.results: no KernelCount benchmark line")
	} else if !strings.Contains(string(r.Data), "\nkernel: ") {
		bad = append(bad, "kernel-count.results: no kernel configuration line")
	} else if !strings.Contains(string(r.Data), " nohz-locked/mask-entry") {
		// Finding 14's real-kernel row: the kprobes on nohz's line.
		bad = append(bad, "kernel-count.results: no nohz-locked/mask-entry (nohz's line not counted)")
	} else if !strings.Contains(string(r.Data), " idle-tick-crossed-%") {
		// The tick trace read the workload's leaf cfs_rq on the real
		// kernel (kernel.LeafFetch: tg->cfs_rq's entries through kcore).
		bad = append(bad, "kernel-count.results: no idle-tick-crossed-% (the tick trace read no leaf cfs_rq)")
	} else if !strings.Contains(string(r.Data), " kick-idle-due/kick") {
		// The kicks read the mask and every cpu's rq
		// (kernel.KickFetch: runqueues plus __per_cpu_offset, each
		// record's own rq checked).
		bad = append(bad, "kernel-count.results: no kick-idle-due/kick (the tick trace read no kicks)")
	} else if !strings.Contains(string(r.Data), " newidle-gated-%") && (o == nil || !strings.Contains(string(o.Data), newidleInlined)) {
		// The newidle walks read their gate, where the kernel has the
		// function to probe: from 6.19 it is inlined into its one
		// caller, and the count says so in a note.
		bad = append(bad, "kernel-count.results: no newidle-gated-% and no note that the kernel inlines the newidle walk (the tick trace read no newidle gate)")
	} else if !strings.Contains(string(r.Data), " wake-stacked-%") {
		// The wake trace read select_task_rq_fair()'s entry and return
		// (kernel.WakeFetch: every cpu's rq, sd_llc_id through kcore).
		bad = append(bad, "kernel-count.results: no wake-stacked-% (the wake trace read no workload wakeup)")
	}
	return append(bad, leftCheck(tr, "kernel-count-after")...)
}

func leftCheck(tr *Transcript, name string) []string {
	a, bad := need(tr, name, 0)
	if a != nil && !clean.Match(a.Data) {
		bad = append(bad, fmt.Sprintf("%s: the count left something behind: %q", name, a.Data))
	}
	return bad
}

func kernelKillScript(Topology) string {
	// Killed once the counted run has begun: every kind of change is made.
	// (Each kill starts from an empty log: the SIGTERM run's would
	// satisfy the SIGKILL run's wait at once.)
	start := `rm -f /tmp/out/kill.log; contend kernel count -shape pipe -pairs 2 -levels 2 -duration 30s > /tmp/out/kill.log 2>&1 & pid=$!; ` +
		`i=0; until grep -q "kernel count: counting" /tmp/out/kill.log || [ $i -ge 200 ]; do sleep 1; i=$((i+1)); done; sleep 2;`
	return `sh -c '` + start + ` kill -TERM $pid; wait $pid; echo rc=$?' > /tmp/out/kernel-kill-term 2>&1
emit kernel-kill-term /tmp/out/kernel-kill-term 0
emit kernel-kill-term.log /tmp/out/kill.log 0
run kernel-kill-term-after timeout 60 ` + afterCount + `
sh -c '` + start + ` kill -KILL $pid; wait $pid; echo rc=$?' > /tmp/out/kernel-kill-9 2>&1
emit kernel-kill-9 /tmp/out/kernel-kill-9 0
run kernel-kill-9-left timeout 60 ` + afterCount + `
run kernel-kill-rerun timeout 400 contend kernel count -shape pipe -pairs 1 -levels 2 -duration 1s
run kernel-kill-rerun-after timeout 60 ` + afterCount + `
`
}

var breakpointsRE = regexp.MustCompile(`kernel count: counting: (\d+) breakpoints`)

// breakpointsSet is how many breakpoints a count says it set.
func breakpointsSet(out []byte) string {
	if m := breakpointsRE.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return "no"
}

func kernelKillCheck(_ Topology, tr *Transcript) []string {
	var bad []string
	if o := tr.Get("kernel-kill-term"); o == nil || !strings.Contains(string(o.Data), "rc=1") {
		bad = append(bad, "kernel-kill-term: want the count to exit 1 on SIGTERM")
	}
	if o := tr.Get("kernel-kill-term.log"); o == nil || !strings.Contains(string(o.Data), "interrupted") {
		bad = append(bad, "kernel-kill-term.log: want the one-line interrupted error")
	}
	bad = append(bad, leftCheck(tr, "kernel-kill-term-after")...)
	if o := tr.Get("kernel-kill-9-left"); o == nil || clean.Match(o.Data) {
		bad = append(bad, "kernel-kill-9-left: a count killed with SIGKILL left nothing: the stale path is untested")
	}
	if o, b := need(tr, "kernel-kill-rerun", 0); o == nil {
		bad = append(bad, b...)
	} else if !strings.Contains(string(o.Data), "stale from an earlier run") {
		bad = append(bad, "kernel-kill-rerun: the next run did not say it removed the stale probes, cgroups or sysctl")
	} else if first := tr.Get("kernel-count"); first != nil && breakpointsSet(first.Data) != breakpointsSet(o.Data) {
		// A stale kprobe's int3 over a site hides it from the finder, so
		// the stale ones must go before the text is read.
		bad = append(bad, fmt.Sprintf("kernel-kill-rerun: %s breakpoints after removing the stale probes, %s in kernel-count",
			breakpointsSet(o.Data), breakpointsSet(first.Data)))
	}
	return append(bad, leftCheck(tr, "kernel-kill-rerun-after")...)
}

func kernelTwoScript(Topology) string {
	// The second starts once the first is counting (every kind of change
	// made, its kprobes firing): in a 6.12 guest that is when the second
	// used to remove them under it and the kernel Oopsed.
	return `sh -c 'rm -f /tmp/out/two-a.log /tmp/out/two-b.log; contend kernel count -shape pipe -pairs 2 -levels 2 -duration 8s -check=false > /tmp/out/two-a.log 2>&1 & a=$!; ` +
		`i=0; until grep -q "kernel count: counting" /tmp/out/two-a.log || [ $i -ge 200 ]; do sleep 1; i=$((i+1)); done; ` +
		`contend kernel count -shape pipe -pairs 2 -levels 2 -duration 2s -check=false > /tmp/out/two-b.log 2>&1; echo b-rc=$?; wait $a; echo a-rc=$?' > /tmp/out/kernel-two 2>&1
emit kernel-two /tmp/out/kernel-two 0
emit kernel-two-a.log /tmp/out/two-a.log 0
emit kernel-two-b.log /tmp/out/two-b.log 0
run kernel-two-after timeout 60 ` + afterCount + `
run kernel-two-tainted cat /proc/sys/kernel/tainted
`
}

// taintDie is /proc/sys/kernel/tainted's D bit: the kernel has Oopsed
// since boot (Documentation/admin-guide/tainted-kernels.rst, bit 7).
const taintDie = 1 << 7

func kernelTwoCheck(_ Topology, tr *Transcript) []string {
	var bad []string
	o, b := need(tr, "kernel-two", 0)
	bad = append(bad, b...)
	if o != nil {
		for _, want := range []string{"b-rc=1", "a-rc=0"} {
			if !strings.Contains(string(o.Data), want) {
				bad = append(bad, fmt.Sprintf("kernel-two: want %s (the second refused, the first complete): %q", want, o.Data))
			}
		}
	}
	if o := tr.Get("kernel-two-b.log"); o == nil || !strings.Contains(string(o.Data), "holds the machine: pid ") || strings.Count(strings.TrimSpace(string(o.Data)), "\n") > 0 {
		bad = append(bad, fmt.Sprintf("kernel-two-b.log: want one line naming the first run's pid: %q", outputData(o)))
	}
	if o := tr.Get("kernel-two-a.log"); o == nil || !strings.Contains(string(o.Data), "undone:") || strings.Contains(string(o.Data), "stale from an earlier run") {
		bad = append(bad, fmt.Sprintf("kernel-two-a.log: want the first count complete, undone, and none of its changes taken as stale: %q", outputData(o)))
	}
	bad = append(bad, leftCheck(tr, "kernel-two-after")...)
	if o, b := need(tr, "kernel-two-tainted", 0); o == nil {
		bad = append(bad, b...)
	} else if t, err := strconv.Atoi(strings.TrimSpace(string(o.Data))); err != nil || t&taintDie != 0 {
		bad = append(bad, fmt.Sprintf("kernel-two-tainted: %q: the kernel Oopsed (taint D)", o.Data))
	}
	return bad
}

func outputData(o *vmlab.Output) string {
	if o == nil {
		return "(no output came back)"
	}
	return string(o.Data)
}
