package vmlab

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The steps below are the arm64 guests' own (topology.Arm64 declares the
// guests): what an architecture without TSC_AUX or an LLC must still get
// right.
func init() {
	Steps = append(Steps,
		Step{"gc", "bench's TestGCMidBarrier: a collection forced while pinned workers spin on the release barrier, and one mid-batches, complete", gcScript, gcCheck},
		Step{"pinning", "contend run atomicadd on every cpu: pinning verified by the fast per-batch probe (rseq cpu_id on arm64)", pinningScript, pinningCheck},
		Step{"runner", "atomicadd's BenchmarkRunner, 5 rounds of each harness: the runner's cost over a bare testing.B loop (medians) reported, and held to ≤ 1.05× only under -accel kvm", runnerScript, runnerCheck},
	)
}

func runnerScript(Topology) string {
	return "run runner timeout 120 /tests/atomicadd.test -test.run '^$' -test.bench '^BenchmarkRunner$' -test.benchtime 200ms -test.count 5\n"
}

var runnerRE = regexp.MustCompile(`(?m)^BenchmarkRunner/harness=(bare|runner)-\d+\s+\d+\s+([0-9.]+) ns/op`)

// runnerCheck wants 5 results of each harness and compares their medians
// of ns/op, measured in one run of the guest. The ratio is held to ≤ 1.05×
// only under KVM: under TCG it measures the emulator's translation of two
// loops on a host whose other tasks take cpus from the guest's vcpus in
// the middle of a round (1.066× on a loaded CI host), so there it is a
// reported line (tr.Notes), not a verdict.
func runnerCheck(_ Topology, tr *Transcript) []string {
	o, bad := need(tr, "runner", 0)
	if o == nil || o.RC != 0 {
		return bad
	}
	ns := map[string][]float64{}
	for _, m := range runnerRE.FindAllStringSubmatch(string(o.Data), -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		ns[m[1]] = append(ns[m[1]], v)
	}
	if len(ns["bare"]) < 3 || len(ns["runner"]) < 3 {
		return append(bad, fmt.Sprintf("runner: %d bare and %d runner results, want 5 each", len(ns["bare"]), len(ns["runner"])))
	}
	bare, run := median(ns["bare"]), median(ns["runner"])
	r := run / bare
	line := fmt.Sprintf("runner: median %.3g ns/op through the runner, %.3g bare: %.3f×", run, bare, r)
	switch {
	case tr.Accel != "kvm":
		tr.Notef("%s (under %s: reported, not gated; ≤ 1.05× is wanted under -accel kvm)", line, accelName(tr.Accel))
	case r > 1.05:
		bad = append(bad, line+", want ≤ 1.05×")
	default:
		tr.Notef("%s (under kvm: ≤ 1.05×, as wanted)", line)
	}
	return bad
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func gcScript(Topology) string {
	return "run gc timeout 120 /tests/bench.test -test.run '^TestGCMidBarrier$' -test.v -test.count 3\n"
}

func gcCheck(_ Topology, tr *Transcript) []string {
	o, bad := need(tr, "gc", 0)
	if o != nil && strings.Count(string(o.Data), "--- PASS: TestGCMidBarrier") != 3 {
		bad = append(bad, "gc: TestGCMidBarrier did not pass 3 times: "+lastLine(o.Data))
	}
	return bad
}

func pinningScript(t Topology) string {
	return fmt.Sprintf("run pinning timeout 120 contend run atomicadd -variant line=private -threads %d -duration 200ms\n", t.UpCPUs()-len(t.Offline))
}

var pinnedRE = regexp.MustCompile(`pinning verified: ([1-9][0-9]*) on-cpu checks during the run \(([^)]*)\), none off-cpu`)

// pinningCheck wants every batch checked by a probe that makes no system
// call: rseq's cpu_id on arm64, which has no TSC_AUX; TSC_AUX or rseq on x86.
func pinningCheck(t Topology, tr *Transcript) []string {
	o, bad := need(tr, "pinning", 0)
	if o == nil || o.RC != 0 {
		return bad
	}
	m := pinnedRE.FindStringSubmatch(string(o.Data))
	switch {
	case m == nil:
		bad = append(bad, "pinning: no 'pinning verified: N on-cpu checks' line")
	case t.Architecture().GOARCH == "arm64" && m[2] != "rseq cpu_id":
		bad = append(bad, fmt.Sprintf("pinning: checked by %s, want rseq cpu_id", m[2]))
	case m[2] == "getcpu":
		bad = append(bad, "pinning: checked by getcpu, want a probe without a system call")
	}
	return bad
}
