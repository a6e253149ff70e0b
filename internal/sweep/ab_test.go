package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/internal/results"
)

// fakeSide is an A/B side that runs nothing: it logs each call and returns
// a result of value ns/op, or fails where fail says.
func fakeSide(name string, log *[]string, value float64, fail func(j Job) error) Side {
	return Side{Name: name, Run: func(_ context.Context, j Job, _ time.Duration) (*benchfmt.Result, error) {
		*log = append(*log, name+" "+j.Name)
		if fail != nil {
			if err := fail(j); err != nil {
				return nil, err
			}
		}
		r := &benchfmt.Result{Name: benchfmt.Name("Whatever-2"), Iters: 1000,
			Values: []benchfmt.Value{{Value: value, Unit: "ns/op"}}}
		setFileConfig(r, "goos", "linux")
		return r, nil
	}}
}

func abPlan(t *testing.T, count int) *Plan {
	t.Helper()
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(topo, Matrix{Preset: Quick, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0", "line=private/work=0"},
		Threads: []int{1}, Count: count, Duration: time.Millisecond, Target: NoTarget})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Jobs) != 2 {
		t.Fatalf("jobs %+v, want two", p.Jobs)
	}
	return p
}

// RunAB runs each configuration once a side a round, the side that goes
// first alternating by round and by configuration, and writes whole pairs
// under the configuration's name with the session and side keys, in the
// order they ran.
func TestRunAB(t *testing.T) {
	p := abPlan(t, 4)
	var log []string
	sides := [2]Side{fakeSide("old", &log, 10, nil), fakeSide("new", &log, 11, nil)}
	out := filepath.Join(t.TempDir(), "ab.txt")
	var progress strings.Builder
	o, err := p.RunAB(context.Background(), out, "S1", sides, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if o.Pairs != 8 || len(o.Failed) != 0 || o.Session != "S1" {
		t.Errorf("outcome %+v, want 8 pairs", o)
	}
	a, b := p.Jobs[0].Name, p.Jobs[1].Name
	want := []string{
		"old " + a, "new " + a, "new " + b, "old " + b, // round 1
		"new " + a, "old " + a, "old " + b, "new " + b, // round 2
	}
	if got := log[:8]; strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("runs of rounds 1 and 2:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Results) != 16 {
		t.Fatalf("%d results, want 16", len(rs.Results))
	}
	for i, r := range rs.Results {
		side, _, _ := strings.Cut(log[i], " ")
		if r.Name.String() != strings.TrimPrefix(log[i], side+" ") || r.GetConfig(results.SideKey) != side || r.GetConfig(results.SessionKey) != "S1" || r.GetConfig("goos") != "linux" {
			t.Errorf("result %d: %s side=%q session=%q; want %s", i, r.Name, r.GetConfig(results.SideKey), r.GetConfig(results.SessionKey), log[i])
		}
	}
	if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("partial file left: %v", err)
	}
}

// A side that fails ends its configuration: no half pair is written, the
// failure is a "# failed:" line, and the other configuration goes on.
func TestRunABFailure(t *testing.T) {
	p := abPlan(t, 3)
	var log []string
	bad := p.Jobs[1].Name
	failNew := func(j Job) error {
		if j.Name == bad && len(log) > 4 {
			return errors.New("cpu 1 went offline")
		}
		return nil
	}
	sides := [2]Side{fakeSide("old", &log, 10, nil), fakeSide("new", &log, 11, failNew)}
	out := filepath.Join(t.TempDir(), "ab.txt")
	var progress strings.Builder
	o, err := p.RunAB(context.Background(), out, "S2", sides, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if o.Pairs != 4 || len(o.Failed) != 1 || o.Failed[0].Name != bad || o.Failed[0].Round != 2 || !strings.Contains(o.Failed[0].Msg, "new: cpu 1 went offline") {
		t.Errorf("outcome %+v, want 4 pairs (3 of %s, 1 of %s) and its failure in round 2", o, p.Jobs[0].Name, bad)
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, r := range rs.Results {
		n[r.Name.String()+" "+r.GetConfig(results.SideKey)]++
	}
	for _, side := range []string{"old", "new"} {
		if n[bad+" "+side] != 1 || n[p.Jobs[0].Name+" "+side] != 3 {
			t.Errorf("results by name and side %v: want 1 pair of %s, 3 of the other", n, bad)
		}
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), fmt.Sprintf("# failed: %s round=2: new: cpu 1 went offline", bad)) {
		t.Errorf("file lacks the failure line:\n%s", data)
	}
	if !strings.Contains(progress.String(), "ab: FAILED") {
		t.Errorf("progress %q: want the failure", progress.String())
	}
}

// An interrupt keeps the partial file and says so.
func TestRunABInterrupt(t *testing.T) {
	p := abPlan(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	var log []string
	stop := func(Job) error { cancel(); return ctx.Err() }
	sides := [2]Side{fakeSide("old", &log, 10, nil), fakeSide("new", &log, 11, stop)}
	out := filepath.Join(t.TempDir(), "ab.txt")
	_, err := p.RunAB(ctx, out, "S3", sides, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "interrupted") || !strings.Contains(err.Error(), out+".partial") {
		t.Errorf("error %v, want an interrupt naming the partial file", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("results file written on interrupt: %v", err)
	}
}
