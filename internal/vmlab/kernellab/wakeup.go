package kernellab

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/contend/contend/internal/kernel/wakeups"
	"github.com/contend/contend/internal/vmlab"
)

// WakeupKernels are the wakeup model's 6.1 check's guests (issue 34), one
// node each, booted with -debian-kernel 6.1:
//   - oracle-llc1: four sockets of one core, so each vCPU is its own
//     package and its own L3 (QEMU's CPUID leaf 4 shares L3 per socket):
//     SMT and MC degenerate, DIE alone is left, sd_llc is NULL and
//     sd_llc_size 1 — seed 004's s390 guest's domains on x86;
//   - oracle-llc4: two sockets of four cores, MC over each socket's L3,
//     DIE over both: the model's llc4.
//
// Each runs half as many client/server pairs as it has cpus, so a pair
// that a sync wakeup co-locates leaves idle cpus beside it, the case the
// policies part on.
var WakeupKernels = []Topology{
	{
		Name:     "oracle-llc1",
		Summary:  "4 sockets × 1 core (Skylake-Server), 1 node: every vCPU its own LLC; contend kernel wakeups on Debian 6.1 (-debian-kernel 6.1)",
		CPUModel: "Skylake-Server", Sockets: 4, Cores: 1, Threads: 1,
		Nodes: []vmlab.Node{{CPUs: []int{0, 1, 2, 3}, MemMiB: 512}},
		Steps: []string{"kernel-wakeups"},
	},
	{
		Name:     "oracle-llc4",
		Summary:  "2 sockets × 4 cores (Skylake-Server), 1 node: LLCs of 4 cpus; contend kernel wakeups on Debian 6.1 (-debian-kernel 6.1)",
		CPUModel: "Skylake-Server", Sockets: 2, Cores: 4, Threads: 1,
		Nodes: []vmlab.Node{{CPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, MemMiB: 512}},
		Steps: []string{"kernel-wakeups"},
	},
}

func init() {
	vmlab.Kernels = append(vmlab.Kernels, WakeupKernels...)
	vmlab.Steps = append(vmlab.Steps, vmlab.Step{Name: "kernel-wakeups",
		Summary: "contend kernel wakeups: the wakeup model's client/server pairs, unpinned, schedstats over 5 s (for contend kernel wakeups-model)",
		Script:  kernelWakeupsScript, Check: kernelWakeupsCheck})
}

func kernelWakeupsScript(t Topology) string {
	pairs := max(t.Sockets*t.Cores*t.Threads/2, 1)
	return fmt.Sprintf(`run kernel-wakeups timeout 300 contend kernel wakeups -clients %d -warmup 2s -duration 5s -o /tmp/out/kernel-wakeups.json
emit kernel-wakeups.json /tmp/out/kernel-wakeups.json 0
run kernel-wakeups-after timeout 60 `+afterCount+`
`, pairs)
}

// kernelWakeupsCheck holds what came back to what the model needs: a
// complete run whose cpus and LLC are the topology's, with schedstats
// counting (some affine attempt), and the sysctl restored.
func kernelWakeupsCheck(t Topology, tr *Transcript) []string {
	_, bad := need(tr, "kernel-wakeups", 0)
	j := tr.Get("kernel-wakeups.json")
	if j == nil {
		return append(bad, "kernel-wakeups.json: no file came back")
	}
	var w wakeups.Run
	if err := json.Unmarshal(j.Data, &w); err != nil {
		return append(bad, "kernel-wakeups.json: "+err.Error())
	}
	if want := t.Sockets * t.Cores * t.Threads; w.CPUs != want {
		bad = append(bad, fmt.Sprintf("kernel-wakeups.json: %d cpus, the topology has %d", w.CPUs, want))
	}
	if w.LLCSize != t.Cores*t.Threads {
		bad = append(bad, fmt.Sprintf("kernel-wakeups.json: LLC of %d cpus, the topology's sockets have %d", w.LLCSize, t.Cores*t.Threads))
	}
	if !strings.HasPrefix(w.Kernel, "6.1.") {
		bad = append(bad, fmt.Sprintf("kernel-wakeups.json: kernel %q, want Debian's 6.1 (-debian-kernel 6.1)", w.Kernel))
	}
	if w.Statements == 0 || w.Client["nr_wakeups"]+w.Server["nr_wakeups"] == 0 {
		bad = append(bad, "kernel-wakeups.json: no statements or no wakeups counted")
	}
	switch {
	case w.Wakes == nil:
		bad = append(bad, "kernel-wakeups.json: no wake trace ("+strings.Join(w.Notes, "; ")+")")
	case w.Wakes.Moves == nil:
		// Every cpu's tasks move some in 5 s (the balancer's, the
		// wakeups'); none recorded is a probe that did not go in.
		bad = append(bad, "kernel-wakeups.json: no move records ("+strings.Join(w.Notes, "; ")+")")
	}
	return append(bad, leftCheck(tr, "kernel-wakeups-after")...)
}
