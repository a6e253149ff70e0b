package vmlab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/contend/contend/bench"
	_ "github.com/contend/contend/bench/all" // every scenario, for scenarioTests
	"github.com/contend/contend/internal/vmlab/topology"
	"github.com/contend/contend/nodemask"
)

// A Step is one check run in a guest: the shell commands /init runs for it
// (each output sent back with run or emit) and the host's judgement of what
// came back, one line per problem. Every command runs under timeout, so a
// hang costs the step, not the lab.
type Step struct {
	Name    string
	Summary string
	Script  func(t Topology) string
	Check   func(t Topology, tr *Transcript) []string
}

// Steps are every step a topology may name, most valuable first.
var Steps = []Step{
	{"topo", "contend topo -json against the oracle: nodes, cpus, distances, nr_node_ids, packages, SMT, LLCs, offline cpus", topoScript, topoCheck},
	{"sysfs", "the guest's sysfs cpu/ and node/ files the topology reader uses, as a tar (a fixture for affinity's tests), read back on the host against the oracle", sysfsScript, sysfsCheck},
	{"pernode", "loadavg store=pernode spread over every cpu node: every slot node-local (mbind, checked with get_mempolicy)", pernodeScript, pernodeCheck},
	{"cross", "loadavg -place cross: the workers on the two most distant cpu nodes", crossScript, crossCheck},
	{"taskset", "under taskset -c 1-3: topo's allowed cpus, a run's cpus inside the set, 4 workers refused in one line", tasksetScript, tasksetCheck},
	{"tests", "the bench/... scenario test binaries' benchmarks, one variant each, at CONTEND_THREADS=ladder, -test.benchtime=1x: every worker count and placement on real nodes", testsScript, testsCheck},
	{"tests-full", "as tests, every variant (minutes per scenario under TCG: not in CI)", testsFullScript, testsCheck},
	{"sweep", "sweep -quick at 1 run of 10ms: a results file with hypervisor provenance", sweepScript, sweepCheck},
	{"c2c", "c2c -pairs sample at 20 samples: every topology class of the guest measured", c2cScript, c2cCheck},
	{"resume", "SIGINT mid-sweep, then -resume: the first results kept, the rest run once", resumeScript, resumeCheck},
	{"unplug", "cpu 7 put offline mid-sweep: a one-line error and the results so far kept; then mid contend run -count: a one-line error", unplugScript, unplugCheck},
	{"plan", "sweep -full -plan and c2c -list -pairs sample: the full matrix's cpu lists and the c2c plan, nothing run", planScript, planCheck},
	{"reproduce", "reproduce -quick at 10ms runs: the findings table, finding 3 on real nodes", reproduceScript, reproduceCheck},
}

// LookupStep returns the step of that name.
func LookupStep(name string) (Step, error) {
	for _, s := range Steps {
		if s.Name == name {
			return s, nil
		}
	}
	return Step{}, fmt.Errorf("unknown step %q", name)
}

// Need is need for steps declared outside this package (kernellab's).
func Need(tr *Transcript, name string, rc int) (*Output, []string) { return need(tr, name, rc) }

// need returns the named output, or a problem line when it is missing or
// its command exited with a status other than rc (-2: any non-zero).
func need(tr *Transcript, name string, rc int) (*Output, []string) {
	o := tr.Get(name)
	switch {
	case o == nil:
		return nil, []string{fmt.Sprintf("%s: no output came back (the guest died or the step timed out)", name)}
	case rc == -2 && o.RC == 0:
		return o, []string{fmt.Sprintf("%s: exit status 0, want a failure: %s", name, lastLine(o.Data))}
	case rc != -2 && o.RC != rc:
		return o, []string{fmt.Sprintf("%s: exit status %d, want %d: %s", name, o.RC, rc, lastLine(o.Data))}
	}
	return o, nil
}

// lastLine is a command's last non-empty output line, the one an error is on.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func topoScript(Topology) string {
	return "runo topo timeout 60 contend topo -json\nrun topo.text timeout 60 contend topo\n"
}

func topoCheck(t Topology, tr *Transcript) []string {
	o, bad := need(tr, "topo", 0)
	if o != nil && o.RC == 0 {
		b, err := topology.CheckTopo(t, o.Data)
		if err != nil {
			b = []string{err.Error()}
		}
		for _, l := range b {
			bad = append(bad, "topo: "+l)
		}
	}
	o, b := need(tr, "topo.text", 0)
	bad = append(bad, b...)
	if o != nil && !strings.Contains(string(o.Data), "hypervisor") {
		bad = append(bad, "topo.text: does not say it ran under a hypervisor")
	}
	return bad
}

// sysfsFiles matches the files affinity's reader takes from sysfs (see
// affinity/testdata/sysfs/README.md), and no others: the tar stays small
// and holds nothing a fixture does not need.
const sysfsFiles = `^/(proc/sys/kernel/osrelease|sys/devices/system/(node/(possible|online|has_cpu|has_memory|has_normal_memory|node[0-9]+/(cpulist|cpumap|distance))|cpu/(possible|present|online|offline|kernel_max|cpu[0-9]+/(online|topology/[a-z_]+|cache/index[0-9]+/(level|type|size|id|shared_cpu_list|shared_cpu_map|coherency_line_size)|cpufreq/scaling_governor|regs/identification/midr_el1)))|sys/firmware/devicetree/base/compatible|sys/class/dmi/id/sys_vendor)$`

// sysfsScript copies the files with shell builtins (read and echo; every
// file the reader takes is one line) and makes the directories with one
// mkdir: a fork per file costs TCG about 30 ms, 10 s for a guest's 400
// files. The cpu lists and maps are binary attributes, which read gets
// nothing from: those, and empty files, are copied with cat.
func sysfsScript(Topology) string {
	return `find /sys/devices/system/cpu /sys/devices/system/node /proc/sys/kernel/osrelease /sys/firmware/devicetree/base/compatible /sys/class/dmi/id/sys_vendor -type f 2>/dev/null | grep -E '` + sysfsFiles + `' > /tmp/sysfs.list
sed 's|/[^/]*$||; s|^|/tmp/sysfs|' /tmp/sysfs.list | sort -u | xargs mkdir -p
while read -r f; do
	if read -r line < "$f" 2>/dev/null && [ -n "$line" ]; then echo "$line"; else cat "$f"; fi > "/tmp/sysfs$f" 2>/dev/null
done < /tmp/sysfs.list
(cd /tmp/sysfs && tar czf /tmp/out/sysfs.tgz .)
emit sysfs.tgz /tmp/out/sysfs.tgz $?
`
}

func sysfsCheck(t Topology, tr *Transcript) []string {
	o, bad := need(tr, "sysfs.tgz", 0)
	if o == nil || o.RC != 0 {
		return bad
	}
	dir, err := os.MkdirTemp("", "vmlab-sysfs-")
	if err != nil {
		return append(bad, "sysfs.tgz: "+err.Error())
	}
	defer os.RemoveAll(dir)
	if err := Untar(bytes.NewReader(o.Data), dir); err != nil {
		return append(bad, "sysfs.tgz: "+err.Error())
	}
	b, err := topology.CheckTree(t, dir)
	if err != nil {
		return append(bad, "sysfs tree: "+err.Error())
	}
	for _, l := range b {
		bad = append(bad, "sysfs tree: "+l)
	}
	return bad
}

// cpuNodes is the number of declared nodes with an online cpu.
func cpuNodes(t Topology) int {
	n := 0
	for _, l := range t.Want().NodeCPUs {
		if l != "" {
			n++
		}
	}
	return n
}

func pernodeScript(t Topology) string {
	return fmt.Sprintf("run pernode timeout 120 contend run loadavg -variant store=pernode -threads %d -place spread -duration 200ms\n", cpuNodes(t))
}

// slotsRE matches the placement line contend run prints for each per-node
// storage ("pernode placement: 2/2 slots node-local (mbind ...)", one per
// level where the variant has several: "pernode placement, level 1: ...").
var slotsRE = regexp.MustCompile(`pernode placement(?:, level \d+)?: (\d+)/(\d+) slots node-local`)

func pernodeCheck(t Topology, tr *Transcript) []string {
	o, bad := need(tr, "pernode", 0)
	if o == nil {
		return bad
	}
	ms := slotsRE.FindAllStringSubmatch(string(o.Data), -1)
	if ms == nil {
		return append(bad, "pernode: no \"pernode placement: K/N slots node-local\" line")
	}
	for _, m := range ms {
		if m[1] != m[2] {
			bad = append(bad, fmt.Sprintf("pernode: %s, want every slot node-local", m[0]))
		}
		if n, _ := strconv.Atoi(m[2]); n < cpuNodes(t) {
			bad = append(bad, fmt.Sprintf("pernode: %s: fewer slots than the %d cpu nodes", m[0], cpuNodes(t)))
		}
	}
	if strings.Contains(string(o.Data), "(fake") {
		bad = append(bad, "pernode: ran on fake nodes in a real multi-node guest")
	}
	return bad
}

// runJSON is the part of contend run -json's object the steps read.
type runJSON struct {
	Topology string `json:"topology"`
	CPUs     []int  `json:"cpus"`
	Nodes    []int  `json:"nodes"`
}

// crossScript fills two nodes: half the workers on one, half on the node
// farthest from it, as many as the smallest cpu node holds, so a placement
// that took a nearer node (snc-4n's 12 for its 21) shows.
func crossScript(t Topology) string {
	per := t.CPUs()
	for _, l := range t.Want().NodeCPUs {
		if b, _ := nodemask.ParseList(l); l != "" {
			per = min(per, b.Weight())
		}
	}
	return fmt.Sprintf("runo cross timeout 120 contend run loadavg -threads %d -place cross -duration 100ms -json\n", 2*per)
}

func crossCheck(t Topology, tr *Transcript) []string {
	o, bad := need(tr, "cross", 0)
	if o == nil || o.RC != 0 {
		return bad
	}
	var r runJSON
	if err := json.Unmarshal(o.Data, &r); err != nil {
		return append(bad, "cross: reading run -json: "+err.Error())
	}
	nodes := slices.Clone(r.Nodes)
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	if len(nodes) != 2 {
		return append(bad, fmt.Sprintf("cross: workers on nodes %v, want two", r.Nodes))
	}
	if n := len(r.Nodes); slices.Index(r.Nodes, nodes[1]) != n/2 || r.Nodes[n/2-1] != r.Nodes[0] {
		bad = append(bad, fmt.Sprintf("cross: workers on nodes %v, want the first half on one node and the rest on the other", r.Nodes))
	}
	far := 0
	w := t.Want()
	for i := range w.Distance {
		for j := range w.Distance {
			if w.NodeCPUs[i] != "" && w.NodeCPUs[j] != "" {
				far = max(far, w.Distance[i][j])
			}
		}
	}
	if d := w.Distance[nodes[0]][nodes[1]]; d != far {
		bad = append(bad, fmt.Sprintf("cross: nodes %d and %d are at distance %d, the farthest cpu nodes at %d", nodes[0], nodes[1], d, far))
	}
	return bad
}

func tasksetScript(Topology) string {
	return `runo taskset.topo timeout 60 taskset -c 1-3 contend topo -json
runo taskset.run timeout 120 taskset -c 1-3 contend run loadavg -threads 3 -duration 100ms -json
run taskset.over timeout 60 taskset -c 1-3 contend run loadavg -threads 4 -duration 100ms
`
}

func tasksetCheck(_ Topology, tr *Transcript) []string {
	var bad []string
	if o, b := need(tr, "taskset.topo", 0); o != nil && o.RC == 0 {
		bad = append(bad, b...)
		var g struct {
			AllowedCPUs string `json:"allowed_cpus"`
		}
		if err := json.Unmarshal(o.Data, &g); err != nil || g.AllowedCPUs != "1-3" {
			bad = append(bad, fmt.Sprintf("taskset.topo: allowed_cpus %q, want 1-3 (%v)", g.AllowedCPUs, err))
		}
	} else {
		bad = append(bad, b...)
	}
	if o, b := need(tr, "taskset.run", 0); o != nil && o.RC == 0 {
		var r runJSON
		if err := json.Unmarshal(o.Data, &r); err != nil {
			bad = append(bad, "taskset.run: reading run -json: "+err.Error())
		}
		set := nodemask.BitmapOf(1, 2, 3)
		for _, c := range r.CPUs {
			if !set.Test(c) {
				bad = append(bad, fmt.Sprintf("taskset.run: a worker on cpu %d, outside taskset's 1-3", c))
			}
		}
	} else {
		bad = append(bad, b...)
	}
	if o, b := need(tr, "taskset.over", -2); o != nil {
		bad = append(bad, b...)
		if n := strings.Count(strings.TrimSpace(string(o.Data)), "\n"); o.RC != 0 && n > 0 {
			bad = append(bad, fmt.Sprintf("taskset.over: %d lines, want a one-line error", n+1))
		}
	} else {
		bad = append(bad, b...)
	}
	return bad
}

// scenarioTests are the test binaries whose benchmarks run in a guest, each
// with the one variant the tests step runs at every worker count and
// placement of the ladder: every registered scenario's lab test
// (bench.Spec.Lab, in the registry's order; a scenario without one says why
// in NoLab, and bench/all's TestSpecPieces fails on one that says neither),
// then c2c's, a command's benchmark rather than a scenario. Each
// configuration costs TCG about a second even at -test.benchtime=1x, and
// the whole ladder of every variant about two minutes per scenario on 8
// vcpus (loadavg 105 s, nodemask 120 s, idlemask longer), past CI's budget:
// the tests-full step runs that.
var scenarioTests = labTests()

func labTests() []struct{ name, bench, variant string } {
	var ts []struct{ name, bench, variant string }
	for _, s := range bench.Specs() {
		if s.Lab != nil {
			ts = append(ts, struct{ name, bench, variant string }{strings.TrimSuffix(s.Binary(), ".test"), s.BenchName, s.Lab.Variant})
		}
	}
	return append(ts, struct{ name, bench, variant string }{"c2c", "C2C", ""})
}

// benchPattern is the -test.bench pattern that runs one variant of the
// benchmark: go test matches each "/"-separated level of a sub-benchmark's
// name against its own part of the pattern, and a variant's key=value parts
// are levels.
func benchPattern(bench, variant string) string {
	p := "^Benchmark" + bench + "$"
	if variant != "" {
		p += "/^" + strings.ReplaceAll(variant, "/", "$/^") + "$"
	}
	return p
}

func testsScript(t Topology) string { return testsCommands(t, false) }

func testsFullScript(t Topology) string { return testsCommands(t, true) }

// testedHere reports whether the tests step runs scenario test name in t.
func testedHere(t Topology, name string) bool {
	return t.Tests == nil || slices.Contains(t.Tests, name)
}

func testsCommands(t Topology, full bool) string {
	var b strings.Builder
	b.WriteString("cd /tests\n")
	for _, st := range scenarioTests {
		if !testedHere(t, st.name) && !full {
			continue
		}
		pat, limit := benchPattern(st.bench, st.variant), 120
		if full {
			pat, limit = ".", 900
		}
		fmt.Fprintf(&b, "run tests.%s timeout %d env CONTEND_THREADS=ladder ./%s.test -test.run '^$' -test.bench '%s' -test.benchtime 1x\n", st.name, limit, st.name, pat)
	}
	b.WriteString("cd /tmp\n")
	return b.String()
}

func testsCheck(t Topology, tr *Transcript) []string {
	var bad []string
	for _, st := range scenarioTests {
		n := "tests." + st.name
		if !testedHere(t, st.name) && tr.Get(n) == nil {
			continue
		}
		o, b := need(tr, n, 0)
		bad = append(bad, b...)
		if o == nil || o.RC != 0 {
			continue
		}
		out := string(o.Data)
		if !strings.Contains(out, "\nPASS") {
			bad = append(bad, n+": no PASS line")
		}
		if !benchLine.MatchString(out) {
			bad = append(bad, n+": no benchmark ran")
		}
		if !strings.Contains(out, "hypervisor: ") || strings.Contains(out, "hypervisor: none") {
			bad = append(bad, n+": the header does not name the hypervisor")
		}
		if st.name == "c2c" || cpuNodes(t) < 2 {
			continue
		}
		for _, p := range []string{"compact", "spread", "cross"} {
			if !strings.Contains(out, "/place="+p) {
				bad = append(bad, fmt.Sprintf("%s: no place=%s benchmark on a guest with %d cpu nodes", n, p, cpuNodes(t)))
			}
		}
	}
	return bad
}

func sweepScript(Topology) string {
	return `run sweep timeout 300 contend sweep -quick -count 1 -duration 10ms -no-table -o /tmp/out/sweep.results
emit sweep.results /tmp/out/sweep.results 0
`
}

func sweepCheck(_ Topology, tr *Transcript) []string {
	_, bad := need(tr, "sweep", 0)
	return append(bad, resultsCheck(tr, "sweep.results")...)
}

// resultsCheck checks a results file that came back: benchmark lines, and
// the hypervisor named in its configuration lines.
func resultsCheck(tr *Transcript, name string) []string {
	o := tr.Get(name)
	if o == nil || len(o.Data) == 0 {
		return []string{name + ": the results file did not come back"}
	}
	var bad []string
	s := string(o.Data)
	if !strings.Contains(s, "\nBenchmark") {
		bad = append(bad, name+": no benchmark lines")
	}
	if !strings.Contains(s, "hypervisor: ") || strings.Contains(s, "hypervisor: none") {
		bad = append(bad, name+": no hypervisor configuration line")
	}
	return bad
}

func c2cScript(Topology) string {
	return "run c2c timeout 240 contend c2c -pairs sample -per-class 1 -samples 20 -rounds 100\n"
}

func c2cCheck(t Topology, tr *Transcript) []string {
	o, bad := need(tr, "c2c", 0)
	if o == nil || o.RC != 0 {
		return bad
	}
	s := string(o.Data)
	if !strings.Contains(s, "under") {
		bad = append(bad, "c2c: the report does not say it ran under a hypervisor")
	}
	if t.SMT && !strings.Contains(s, "smt") {
		bad = append(bad, "c2c: no smt class on a guest with SMT siblings")
	}
	return bad
}

// afterFirstResult waits (up to a minute) until the sweep writing partial
// has kept its first result, so the interruption lands mid-sweep however
// fast or slow the guest runs.
func afterFirstResult(partial string) string { return afterFirstMatch(partial, "^Benchmark") }

// afterFirstMatch waits (up to a minute) until file holds a line matching
// the grep pattern re.
func afterFirstMatch(file, re string) string {
	return `i=0; while ! grep -q '` + re + `' ` + file + ` 2>/dev/null && [ $i -lt 300 ]; do sleep 0.2; i=$((i+1)); done
`
}

// interruptedSweep is the sweep the resume and unplug steps interrupt: a
// few loadavg runs, long enough to be caught in the middle.
const interruptedSweep = "contend sweep -quick -scenarios loadavg -threads 2 -place compact -count 3 -duration 500ms -no-table -no-floor"

func resumeScript(Topology) string {
	return `( ` + interruptedSweep + ` -o /tmp/r.results > /tmp/out/resume.first 2>&1; echo "exit status $?" >> /tmp/out/resume.first ) &
` + afterFirstResult("/tmp/r.results.partial") + `kill -INT $(pidof contend); wait
emit resume.first /tmp/out/resume.first 0
cat /tmp/r.results /tmp/r.results.partial > /tmp/out/resume.kept 2>/dev/null
emit resume.kept /tmp/out/resume.kept 0
run resume.second timeout 300 ` + interruptedSweep + ` -o /tmp/r.results -resume
emit resume.results /tmp/r.results 0
`
}

var benchLine = regexp.MustCompile(`(?m)^Benchmark\S+`)

func resumeCheck(_ Topology, tr *Transcript) []string {
	var bad []string
	first, b := need(tr, "resume.first", 0)
	bad = append(bad, b...)
	if first != nil && strings.Contains(string(first.Data), "exit status 0\n") {
		bad = append(bad, "resume.first: the sweep was not interrupted (it ended before SIGINT or ignored it)")
	}
	kept := tr.Get("resume.kept")
	_, b = need(tr, "resume.second", 0)
	bad = append(bad, b...)
	bad = append(bad, resultsCheck(tr, "resume.results")...)
	if kept == nil || bad != nil {
		return bad
	}
	k := benchLine.FindAllString(string(kept.Data), -1)
	all := benchLine.FindAllString(string(tr.Get("resume.results").Data), -1)
	if len(k) == 0 {
		bad = append(bad, "resume.kept: no results kept from the interrupted sweep")
	}
	for i, l := range k {
		if i >= len(all) || all[i] != l {
			bad = append(bad, fmt.Sprintf("resume.results: kept result %d (%s) not at the start of the resumed file", i, l))
			break
		}
	}
	if len(all) != 2*3 {
		bad = append(bad, fmt.Sprintf("resume.results: %d results after -resume, want 6 (2 variants × 3 runs)", len(all)))
	}
	return bad
}

// unplugScript unplugs cpu 7 twice: after the sweep's first result, and
// half-way into the second of contend run's four 1 s runs (once the first
// has printed its " ops in " line), not at a fixed time after the start,
// which on a loaded host can come before contend has pinned a worker.
func unplugScript(Topology) string {
	return `( ` + strings.Replace(interruptedSweep, "-threads 2 -place compact", "-threads 4 -cpus 4-7", 1) + ` -o /tmp/u.results > /tmp/out/unplug 2>&1; echo "exit status $?" >> /tmp/out/unplug ) &
` + afterFirstResult("/tmp/u.results.partial") + `echo 0 > /sys/devices/system/cpu/cpu7/online; wait
emit unplug /tmp/out/unplug 0
cat /tmp/u.results /tmp/u.results.partial > /tmp/out/unplug.kept 2>/dev/null
emit unplug.kept /tmp/out/unplug.kept 0
echo 1 > /sys/devices/system/cpu/cpu7/online
( contend run loadavg -threads 4 -cpus 4-7 -count 4 -duration 1s -o /tmp/ur.results > /tmp/out/unplug.run 2>&1; echo "exit status $?" >> /tmp/out/unplug.run ) &
` + afterFirstMatch("/tmp/out/unplug.run", " ops in ") + `sleep 0.5; echo 0 > /sys/devices/system/cpu/cpu7/online; wait
emit unplug.run /tmp/out/unplug.run 0
ls -la /tmp/ur.results* > /tmp/out/unplug.run.files 2>&1; cat /tmp/ur.results* >> /tmp/out/unplug.run.files 2>/dev/null
emit unplug.run.files /tmp/out/unplug.run.files 0
echo 1 > /sys/devices/system/cpu/cpu7/online
`
}

// saysCPU7Offline reports whether an error line names cpu 7's unplug. Where
// the unplug lands is up to the guest's scheduler: during a run, a worker
// finds itself moved ("cpu 7 went offline during the run"); between two runs,
// the next run's pin is refused ("cpu 7 is not online"), or a topology
// read after it says "cpu 7 is offline". Each is the right one-line error,
// so any passes.
func saysCPU7Offline(line string) bool {
	for _, s := range []string{"cpu 7 went offline", "cpu 7 is not online", "cpu 7 is offline"} {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

func unplugCheck(_ Topology, tr *Transcript) []string {
	o, bad := need(tr, "unplug", 0)
	if o == nil {
		return bad
	}
	s := strings.TrimSpace(string(o.Data))
	if strings.HasSuffix(s, "exit status 0") {
		return append(bad, "unplug: the sweep succeeded with cpu 7 unplugged under it")
	}
	lines := strings.Split(s, "\n")
	if len(lines) < 2 || !saysCPU7Offline(lines[len(lines)-2]) {
		bad = append(bad, fmt.Sprintf("unplug: the error does not say cpu 7 went offline: %q", lines[max(0, len(lines)-2)]))
	}
	if k := tr.Get("unplug.kept"); k == nil || len(benchLine.FindAllString(string(k.Data), -1)) == 0 {
		bad = append(bad, "unplug.kept: no results kept from before the unplug")
	}
	// contend run -count writes its -o file once every run is done; a
	// run that fails keeps the completed ones in FILE.partial and says so.
	r, b := need(tr, "unplug.run", 0)
	bad = append(bad, b...)
	if r != nil {
		s := strings.TrimSpace(string(r.Data))
		lines := strings.Split(s, "\n")
		last := lines[max(0, len(lines)-2)]
		switch {
		case strings.HasSuffix(s, "exit status 0"):
			bad = append(bad, "unplug.run: contend run succeeded with cpu 7 unplugged under it")
		case len(lines) < 2 || !strings.HasPrefix(last, "contend: ") || !saysCPU7Offline(last):
			bad = append(bad, fmt.Sprintf("unplug.run: no one-line error saying cpu 7 went offline: %q", last))
		case strings.Contains(last, "kept in /tmp/ur.results.partial"):
			if f := tr.Get("unplug.run.files"); f == nil || len(benchLine.FindAllString(string(f.Data), -1)) == 0 {
				bad = append(bad, "unplug.run: the error says the completed runs are kept, but ur.results.partial holds none")
			}
		}
	}
	return bad
}

// reproduceScript runs the findings' pinned runs on the guest's topology
// and none of their simulations at the seeds' sizes (-sim-share 0): those
// model the seed's machine, not the guest's, and under TCG they were most
// of the step (143 s of memonly-3n's guest time for 0.4 s of runs).
func reproduceScript(Topology) string {
	return "run reproduce timeout 300 contend reproduce -v -quick -count 1 -duration 10ms -sim-share 0 -o /tmp/out/reproduce.results\n"
}

var findingRE = regexp.MustCompile(`(?m)^3\. .*\n(?:   .*\n)*   holds: `)

func reproduceCheck(t Topology, tr *Transcript) []string {
	o, bad := need(tr, "reproduce", 0)
	if o == nil || o.RC != 0 {
		return bad
	}
	s := string(o.Data)
	if want := fmt.Sprintf("%d node(s) (topology real)", len(t.Nodes)); !strings.Contains(s, want) {
		bad = append(bad, fmt.Sprintf("reproduce: the table's heading does not say %q", want))
	}
	if !strings.Contains(s, "under ") {
		bad = append(bad, "reproduce: the table's heading does not name the hypervisor")
	}
	if !findingRE.MatchString(s) {
		bad = append(bad, "reproduce: no finding 3 with a holds line")
	}
	return bad
}

func planScript(Topology) string {
	return "run plan.sweep timeout 120 contend sweep -full -plan\nrun plan.c2c timeout 120 contend c2c -list -pairs sample\n"
}

func planCheck(t Topology, tr *Transcript) []string {
	o, bad := need(tr, "plan.sweep", 0)
	every := regexp.MustCompile(fmt.Sprintf(`(?m)\s%d\s+compact\s+%s\s+\S+$`, t.CPUs(), regexp.QuoteMeta(t.Want().CPUNodes)))
	if o != nil && o.RC == 0 && !every.Match(o.Data) {
		bad = append(bad, fmt.Sprintf("plan.sweep: no %d-worker compact row over nodes %s", t.CPUs(), t.Want().CPUNodes))
	}
	o, b := need(tr, "plan.c2c", 0)
	bad = append(bad, b...)
	if o != nil && o.RC == 0 && t.SMT && !strings.Contains(string(o.Data), "smt") {
		bad = append(bad, "plan.c2c: no smt class on a guest with SMT siblings")
	}
	return bad
}
