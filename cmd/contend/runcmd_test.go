package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/internal/results"
)

// contend run -json prints one object that says what each worker saw.
func TestRunJSON(t *testing.T) {
	out, summary, err := runContend("run", "atomicadd", "-variant", "line=shared", "-threads", "1", "-ops", "200000", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var j results.JSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("run -json printed %q: %v", out, err)
	}
	if strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("run -json printed more than one line:\n%s", out)
	}
	if j.Scenario != "atomicadd" || j.Keys["line"] != "shared" || j.Threads != 1 || len(j.CPUs) != 1 || len(j.Nodes) != 1 ||
		j.Ops != 200000 || len(j.Workers) != 1 || j.Workers[0].Ops != 200000 {
		t.Errorf("run -json = %+v; want atomicadd line=shared, 1 worker of 200000 ops with its cpu and node", j)
	}
	if j.Latency == nil || j.Latency.Samples == 0 || j.Metrics["ns/op"] <= 0 {
		t.Errorf("run -json: latency %+v, metrics %v; want samples and ns/op", j.Latency, j.Metrics)
	}
	if _, ok := j.Metrics[bench.Lost.Name]; !ok && j.Workers[0].Accounted {
		t.Errorf("run -json: no %s among %v", bench.Lost.Name, j.Metrics)
	}
	if !strings.Contains(summary, "latency of one op: p50 ") || !strings.Contains(summary, "pinning verified") {
		t.Errorf("run summary lacks latency or pinning:\n%s", summary)
	}
	if !strings.Contains(summary, "undisturbed: ") && !strings.Contains(summary, "WARNING: worker 0 on cpu ") {
		t.Errorf("run summary says nothing of disturbance:\n%s", summary)
	}
}

// The case: another program busy on a worker's CPU. The run says
// so in one line naming the worker, its CPU and the cause, and records it.
func TestRunWarnsOfBusyCPU(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	cpu := topo.AllowedCPUs.Bits()[0]
	defer affinity.EnsureProcs(3)()
	stop := benchtest.Hog(t, cpu)
	out, summary, err := runContend("run", "atomicadd", "-cpus", fmt.Sprint(cpu), "-duration", "300ms")
	stop()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := results.Parse(strings.NewReader(out), "run")
	if err != nil {
		t.Fatal(err)
	}
	lost, ok := rs.Results[0].Value(bench.Lost.Name)
	if !ok {
		t.Skipf("no %s: no per-thread accounting on this kernel", bench.Lost.Name)
	}
	// How much the busy thread takes is the scheduler's to decide; what
	// the run guarantees is that a loss over the threshold is said.
	if lost <= bench.DisturbedPct {
		t.Skipf("lost-%% = %v: the busy thread took no more than %g%% of cpu %d during the run (the scheduler's doing), so there is no warning to check", lost, bench.DisturbedPct, cpu)
	}
	want := fmt.Sprintf("WARNING: worker 0 on cpu %d lost ", cpu)
	if !strings.Contains(summary, want) || !strings.Contains(summary, fmt.Sprintf("another task ran on cpu %d", cpu)) {
		t.Errorf("run summary lacks %q and its cause:\n%s", want, summary)
	}
}

// -count repeats a run as go test -count does, and -o writes the results to
// a file, whole, instead of stdout.
func TestRunCountAndOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	stdout, _, err := runContend("run", "atomicadd", "-threads", "1", "-count", "3", "-duration", "10ms", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != "" {
		t.Errorf("run -o printed on stdout: %q", stdout)
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Results) != 3 {
		t.Errorf("run -count 3 wrote %d results, want 3", len(rs.Results))
	}
	// One command, one provenance: the runs share their date line.
	for _, r := range rs.Results[1:] {
		if d, d0 := r.GetConfig("date"), rs.Results[0].GetConfig("date"); d != d0 || d == "" {
			t.Errorf("run -count results dated %q and %q, want one date", d0, d)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "atomicadd", "-count", "0"}, "-count 0: want 1 to 1000 runs"},
		{[]string{"run", "atomicadd", "-duration", "10ms", "-o", "/nonexistent/dir/r.txt"}, "run: -o: writing /nonexistent/dir/r.txt"},
	} {
		if _, _, err := runContend(tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("contend %v: error = %v, want %q", tt.args, err, tt.want)
		}
	}
}
