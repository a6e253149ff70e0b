package vmlab

import (
	"fmt"
	"regexp"
	"strings"
)

// Arm64 are the lab's arm64 guests: QEMU's virt machine with -cpu max
// under TCG, Debian's arm64 kernel, booted only when named (-topology):
// TCG emulating arm64 on an x86 host is about twice as slow as the x86
// guests, which already fill CI's five minutes.
var Arm64 = []Topology{
	{
		Name:     "virt-arm64",
		Summary:  "arm64: virt -cpu max, 2 sockets × 2 cores, 2 nodes (device tree), caches to L1 only; the hang, rseq pinning, sweep and reproduce (not in CI: -topology virt-arm64)",
		Arch:     "arm64",
		CPUModel: "max", Sockets: 2, Cores: 2, Threads: 1,
		Nodes: []Node{{seq(0, 2), 256}, {seq(2, 4), 256}},
		Steps: []string{"topo", "sysfs", "gc", "pinning", "pernode", "cross", "sweep", "reproduce"},
	},
}

func init() {
	Steps = append(Steps,
		Step{"gc", "bench's TestGCMidBarrier: a collection forced while pinned workers spin on the release barrier, and one mid-batches, complete", gcScript, gcCheck},
		Step{"pinning", "contend run atomicadd on every cpu: pinning verified by the fast per-batch probe (rseq cpu_id on arm64)", pinningScript, pinningCheck},
	)
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
	case t.arch().GOARCH == "arm64" && m[2] != "rseq cpu_id":
		bad = append(bad, fmt.Sprintf("pinning: checked by %s, want rseq cpu_id", m[2]))
	case m[2] == "getcpu":
		bad = append(bad, "pinning: checked by getcpu, want a probe without a system call")
	}
	return bad
}
