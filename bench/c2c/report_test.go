package c2c

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/internal/fixture"
)

// The text report of sampled pairs on a machine of many nodes: the pair
// list, where the lines lived (and a warning for one the kernel put
// elsewhere), the unstable pair, and the hypervisor note; a fake topology's
// homes are said not to be real.
func TestWriteText(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD4Sockets)
	topo.Machine = affinity.Machine{Brand: "Test CPU", Hypervisor: true}
	plan, err := NewPlan(topo, []int{0, 2, 16}, Sample, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Config{Samples: 10, Rounds: 100}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	rs := []Result{
		{CPUA: 0, CPUB: 2, Mode: ReadWrite, Class: ClassLLC, NS: 30, MinNS: 29, MedianNS: 30, Stat: "median", HomeNode: 0, MemNode: 0, Placed: "mbind", Checks: 22, Probe: "rseq cpu_id"},
		{CPUA: 0, CPUB: 16, Mode: ReadWrite, Class: ClassCross, NS: 200, MinNS: 100, MedianNS: 200, Stat: "median", HomeNode: 0, MemNode: 2, Placed: "first-touch", Checks: 22, Probe: "rseq cpu_id + getcpu"},
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, topo, plan, cfg, rs, Summarize(rs, plan.Total)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"Test CPU under a hypervisor",
		"pairs sample",
		"home cpu_a's node (placed by mbind and first-touch, kernel reports node(s) 0,2); WARNING: lines not on their home: 0,16 on node 2",
		"pinning verified: 44 on-cpu checks, after every sample at both ends (rseq cpu_id, rseq cpu_id + getcpu), none off-cpu\n",
		"mode=rw\n",
		"0     16  cross  200.0  100.0   200.0",
		"WARNING: median more than 1.25× min, the pair's latency changed during its samples (a vCPU moved on the host? another load?): rw 0,16 (median 200.0, min 100.0)",
		"NOTE: under a hypervisor",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "WARNING: lines not on their home: 0,2") || strings.Contains(out, "rw 0,2 (") {
		t.Errorf("report warns about pair 0,2, which is on its home and stable:\n%s", out)
	}

	fake := fixture.Fake(t, "nonuma-4cpu", 2)
	if note := homeNote(fake, cfg, rs[:1]); !strings.Contains(note, "NOT REAL on topology fake-2") || !strings.Contains(note, "real node(s) 0") {
		t.Errorf("home note on a fake topology: %q", note)
	}
	if note := homeNote(fixture.Topology(t, "nonuma-4cpu"), cfg, []Result{{MemNode: -1, Placed: "mbind"}}); !strings.Contains(note, "this machine has one node") {
		t.Errorf("home note on one node: %q", note)
	}
	if got := memNodes([]Result{{MemNode: -1}}); got != "unknown (get_mempolicy refused)" {
		t.Errorf("memNodes of an unknown node = %q", got)
	}
	if got := memNodes([]Result{{MemNode: -1}, {MemNode: 1}}); got != "1 (some unknown)" {
		t.Errorf("memNodes of node 1 and an unknown = %q", got)
	}
}

// failWriter fails every write.
type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

// A writer that fails makes every report fail with its error.
func TestReportWriteErrors(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD4Sockets)
	cfg, _ := Config{}.WithDefaults()
	rs := []Result{{CPUA: 0, CPUB: 2, Mode: ReadWrite, Class: ClassLLC, NS: 30, MinNS: 29, MedianNS: 30, Stat: "median", Samples: 1, Rounds: 1}}
	for _, sel := range []Selection{All, Sample} {
		plan, err := NewPlan(topo, []int{0, 2}, sel, 1)
		if err != nil {
			t.Fatal(err)
		}
		for name, write := range map[string]func() error{
			"text":      func() error { return WriteText(failWriter{}, topo, plan, cfg, rs, Summarize(rs, plan.Total)) },
			"json":      func() error { return WriteJSON(failWriter{}, topo, plan, cfg, rs, Summarize(rs, plan.Total), nil) },
			"bench":     func() error { return WriteBench(failWriter{}, topo, cfg, rs, nil) },
			"plan":      func() error { return WritePlan(failWriter{}, topo, plan, cfg, 1, false) },
			"plan json": func() error { return WritePlan(failWriter{}, topo, plan, cfg, 1, true) },
		} {
			if err := write(); !errors.Is(err, errWrite) {
				t.Errorf("%s report (%s pairs) to a failing writer: error %v, want %v", name, sel, err, errWrite)
			}
		}
	}
}

func TestRoundEstimate(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1.4s", "1s"}, {"9m59.6s", "10m0s"}, {"10m29s", "10m0s"}, {"1h2m31s", "1h3m0s"},
	} {
		d, _ := time.ParseDuration(tt.in)
		if got := roundEstimate(d).String(); got != tt.want {
			t.Errorf("roundEstimate(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// The results carry the command line they are given, and the package go
// test names BenchmarkC2C's results by.
func TestWriteBenchProvenance(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD4Sockets)
	cfg, err := Config{Samples: 10, Rounds: 100}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	rs := []Result{{CPUA: 0, CPUB: 2, Mode: ReadWrite, Class: ClassLLC, NS: 30, MinNS: 29, MedianNS: 30, Stat: "median", Samples: 10, Rounds: 100}}
	var b bytes.Buffer
	if err := WriteBench(&b, topo, cfg, rs, []string{"contend", "c2c", "-bench"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"command: contend c2c -bench\n", "pkg: github.com/contend/contend/bench/c2c\n", "c2c-samples: 10\n", "BenchmarkC2C/mode=rw/class=llc/cpu_a=0/cpu_b=2-"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("WriteBench output lacks %q:\n%s", want, b.String())
		}
	}
}
