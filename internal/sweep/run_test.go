package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/internal/results"
)

// The runner must never hand the main thread to a worker (see benchtest).
func init() { runtime.LockOSThread() }

// RunAll runs every job Count times on the CPUs the job carries, measures
// one floor per CPU set whatever the workers' order, writes handoffs/op
// over that floor, and prints one JSON object per result.
func TestRunAll(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	cpus := topo.AllowedCPUs.Bits()
	if len(cpus) < 2 {
		t.Skip("needs 2 cpus")
	}
	a, b := cpus[0], cpus[1]
	defer func(f func(*affinity.Topology, []int, c2c.Config) (*c2c.Floor, error)) { floorOf = f }(floorOf)
	var measured [][]int
	floorOf = func(_ *affinity.Topology, cpus []int, _ c2c.Config) (*c2c.Floor, error) {
		measured = append(measured, cpus)
		return &c2c.Floor{CPUs: cpus, NS: 40, MinNS: 40}, nil
	}
	// Two workers on a and b, then four sharing them: one set.
	p, err := Build(topo, Matrix{Preset: Quick, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0"}, Threads: []int{2, 4},
		Places: placeList(t, fmt.Sprintf("%d,%d", a, b)), Count: 2, Duration: 5 * time.Millisecond, Oversubscribe: true})
	if err != nil {
		t.Fatal(err)
	}
	p.Floor = true
	if len(p.Jobs) != 2 || len(p.Jobs[1].CPUs) != 4 {
		t.Fatalf("jobs %+v, want two, the second of four workers", p.Jobs)
	}
	out := filepath.Join(t.TempDir(), "r.txt")
	var js bytes.Buffer
	o, err := p.RunAll(context.Background(), out, false, &bytes.Buffer{}, &js)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint([][]int{{a, b}, {a, b}}); fmt.Sprint(measured) != want {
		t.Errorf("floors measured on %v, want %s: once before, once after, for the one set", measured, want)
	}
	if o.Ran != 4 || o.Results != 4 || len(o.Floors) != 1 {
		t.Errorf("outcome: %d ran, %d results, floors %+v; want 4, 4, one", o.Ran, o.Results, o.Floors)
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Results) != 4 {
		t.Fatalf("%d results, want 4", len(rs.Results))
	}
	for _, r := range rs.Results {
		sec, _ := r.Value("sec/op")
		h, ok := r.Value("handoffs/op")
		if want := sec * 1e9 / 40; !ok || math.Abs(h-want) > 1e-9*want {
			t.Errorf("%s: handoffs/op %v (%v), want ns/op over the 40 ns floor, %v", r.Name, h, ok, sec*1e9/40)
		}
		if r.GetConfig("pkg") != p.Jobs[0].Spec.Package || r.GetConfig("cpu") == "" {
			t.Errorf("%s: pkg %q, cpu %q: want the scenario's package and the provenance", r.Name, r.GetConfig("pkg"), r.GetConfig("cpu"))
		}
	}
	dec := json.NewDecoder(&js)
	n := 0
	for ; dec.More(); n++ {
		var j results.JSON
		if err := dec.Decode(&j); err != nil {
			t.Fatal(err)
		}
		if _, ok := j.Metrics["handoffs/op"]; !ok || j.Name != p.Jobs[n%2].Name || j.Threads != p.Jobs[n%2].Threads {
			t.Errorf("JSON %d: %s, threads %d, metrics %v; want job %d's, with handoffs/op", n, j.Name, j.Threads, j.Metrics, n%2)
		}
	}
	if n != 4 {
		t.Errorf("%d JSON objects, want 4", n)
	}
}

// A run that fails does not end the sweep: the other configurations run
// all their rounds, the failed one no further round, the failure is a
// comment line of the committed file and a JSON object, and RunAll says so
// with a *FailedError. A resumed sweep skips the failed configuration;
// with RetryFailed it runs its missing rounds.
func TestRunAllFailure(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := bench.Lookup("atomicadd")
	if err != nil {
		t.Fatal(err)
	}
	compact, err := affinity.ParsePlacement("compact")
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Topology: topo, Count: 3, Duration: 2 * time.Millisecond}
	for _, v := range []string{"line=shared/work=0", "line=private/work=0"} {
		j, err := NewJob(topo, spec, v, 1, compact, false)
		if err != nil {
			t.Fatal(err)
		}
		p.Jobs = append(p.Jobs, j)
	}
	good, bad := p.Jobs[0].Name, p.Jobs[1].Name
	defer func() { FailRun = nil }()
	FailRun = func(name string, round int) error {
		if name == bad && round == 2 {
			return errors.New("atomicadd: counted 1 adds, runner counted 2 operations\nworker 0: found on cpu 9")
		}
		return nil
	}
	out := filepath.Join(t.TempDir(), "r.txt")
	var js, progress bytes.Buffer
	o, err := p.RunAll(context.Background(), out, false, &progress, &js)
	var fe *FailedError
	if !errors.As(err, &fe) || len(fe.Failures) != 1 || fe.File != out {
		t.Fatalf("RunAll: error %v (%T), want a *FailedError naming one failure and %s", err, err, out)
	}
	want := results.Failure{Name: bad, Round: 2, Msg: "atomicadd: counted 1 adds, runner counted 2 operations; worker 0: found on cpu 9"}
	if len(o.Failed) != 1 || o.Failed[0] != want || o.Ran != 4 || o.Results != 4 {
		t.Errorf("outcome: failed %+v, %d ran, %d results; want [%+v], 4, 4", o.Failed, o.Ran, o.Results, want)
	}
	if !strings.Contains(progress.String(), "sweep: FAILED "+bad+" (round 2): atomicadd: counted 1") {
		t.Errorf("progress does not report the failure as it happens:\n%s", progress.String())
	}
	if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("%s.partial left behind (%v): a sweep that ran to the end commits its file", out, err)
	}
	count := func() map[string]int {
		t.Helper()
		rs, err := results.Read([]string{out})
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, r := range rs.Results {
			n[r.Name.String()]++
		}
		return n
	}
	if n := count(); n[good] != 3 || n[bad] != 1 {
		t.Errorf("results %v: want 3 of %s, 1 of %s (its round before the failure)", n, good, bad)
	}
	b, _ := os.ReadFile(out)
	if line := "\n# failed: " + bad + " round=2: " + want.Msg + "\n"; !strings.Contains(string(b), line) {
		t.Errorf("results file has no line %q:\n%s", line, b)
	}
	var objs []map[string]any
	for dec := json.NewDecoder(&js); dec.More(); {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, m)
	}
	var failures []map[string]any
	for _, m := range objs {
		if m["failed"] == true {
			failures = append(failures, m)
		}
	}
	if len(objs) != 5 || len(failures) != 1 || failures[0]["name"] != bad || failures[0]["round"] != 2.0 ||
		failures[0]["error"] != want.Msg || failures[0]["scenario"] != "atomicadd" || failures[0]["threads"] != 1.0 {
		t.Errorf("JSON: %d objects, failures %v; want 4 results and one failure of %s, round 2", len(objs), failures, bad)
	}
	var notes bytes.Buffer
	o.WriteNotes(&notes, 20)
	if !strings.Contains(notes.String(), "1 configuration FAILED") || !strings.Contains(notes.String(), bad+" (round 2): atomicadd") {
		t.Errorf("notes:\n%s\nwant the failure listed", notes.String())
	}

	// Resumed: the failed configuration is not run again.
	FailRun = nil
	o, err = p.RunAll(context.Background(), out, true, &bytes.Buffer{}, nil)
	if !errors.As(err, &fe) || o.Ran != 0 || len(o.Failed) != 0 || len(o.Skipped) != 1 || o.Skipped[0] != want {
		t.Fatalf("resumed: error %v, %d ran, failed %v, skipped %v; want a *FailedError, 0, none, [%+v]", err, o.Ran, o.Failed, o.Skipped, want)
	}
	notes.Reset()
	o.WriteNotes(&notes, 20)
	if !strings.Contains(notes.String(), "failed in an earlier sweep and were not run again") {
		t.Errorf("resumed notes:\n%s\nwant the skipped failure named", notes.String())
	}
	// Retried: its two missing rounds run, and the sweep succeeds.
	p.RetryFailed = true
	o, err = p.RunAll(context.Background(), out, true, &bytes.Buffer{}, nil)
	if err != nil || o.Ran != 2 || len(o.Skipped) != 0 {
		t.Fatalf("retried: error %v, %d ran, skipped %v; want nil, 2, none", err, o.Ran, o.Skipped)
	}
	if n := count(); n[good] != 3 || n[bad] != 3 {
		t.Errorf("results after the retry %v: want 3 of each", n)
	}
}

// The failures at the end of a sweep are summarised: one line per message,
// with how many configurations share it, at most max lines.
func TestWriteFailures(t *testing.T) {
	offline := "pinning worker 1 to cpu 7: cpu 7 is offline"
	o := &Outcome{Failed: []results.Failure{
		{Name: "A/x=1/threads=8/place=compact-2", Round: 1, Msg: offline},
		{Name: "B/y=2/threads=4/place=compact-2", Round: 1, Msg: "b: invariant broken"},
		{Name: "A/x=2/threads=8/place=compact-2", Round: 1, Msg: offline},
		{Name: "C/z=3/threads=8/place=compact-2", Round: 3, Msg: offline},
		{Name: "D/w=4/threads=2/place=compact-2", Round: 2, Msg: "d: invariant broken"},
		{Name: "E/w=4/threads=2/place=compact-2", Round: 2, Msg: "d: invariant broken"},
	}}
	var b bytes.Buffer
	o.WriteNotes(&b, 2)
	want := "sweep: 6 configurations FAILED and ran no further round" +
		" (each failure is a \"# failed:\" line in the results file; sweep -resume -retry-failed runs them again):\n" +
		"  A/x=1/threads=8/place=compact-2 (round 1) and 2 more: " + offline + "\n" +
		"  B/y=2/threads=4/place=compact-2 (round 1): b: invariant broken\n" +
		"  ... and 2 more (sweep -json or the file's \"# failed:\" lines show all)\n"
	if b.String() != want {
		t.Errorf("WriteNotes:\n%s\nwant:\n%s", b.String(), want)
	}
}

// Adaptive rounds: a configuration whose samples already agree stops at
// MinRounds without another run; one whose samples span a factor of 1000
// runs every round and is recorded as not converged. Each gets its
// "# rounds:" line, which results.Set reads back per file and name.
func TestRunAllAdaptive(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(topo, Matrix{Preset: Quick, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0", "line=private/work=0"},
		Threads: []int{1}, Count: 8, Duration: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if p.Target != 0.02 || len(p.Jobs) != 2 {
		t.Fatalf("target %v, %d jobs; want the quick preset's 0.02 and 2 jobs", p.Target, len(p.Jobs))
	}
	// An earlier sweep's six rounds of each: the first all 5 ns/op, the
	// second between 1 and 1000.
	var b strings.Builder
	for i := range MinRounds {
		fmt.Fprintf(&b, "Benchmark%s\t1000\t5 ns/op\n", p.Jobs[0].Name)
		fmt.Fprintf(&b, "Benchmark%s\t1000\t%d ns/op\n", p.Jobs[1].Name, []int{1, 1000, 5, 6, 7, 8}[i])
	}
	out := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(out+".partial", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := p.RunAll(context.Background(), out, true, &bytes.Buffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Ran != 2 {
		t.Errorf("%d runs, want 2: the second configuration's rounds 7 and 8 only", o.Ran)
	}
	want := []results.Convergence{
		{Name: p.Jobs[0].Name, Rounds: 6, CI: 0, Target: 0.02, Converged: true},
		{Name: p.Jobs[1].Name, Rounds: 8, CI: o.Rounds[len(o.Rounds)-1].CI, Target: 0.02},
	}
	if fmt.Sprint(o.Rounds) != fmt.Sprint(want) || want[1].CI < 0.5 {
		t.Errorf("rounds %+v, want %+v with a ci over 50%%", o.Rounds, want)
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs.Results {
		c, ok := rs.Convergence(r)
		if !ok || c.Converged != (r.Name.String() == p.Jobs[0].Name) {
			t.Errorf("%s: convergence %+v, %v", r.Name, c, ok)
		}
	}
	var notes bytes.Buffer
	o.WriteNotes(&notes, 5)
	for _, want := range []string{"1 of 2 runs", "within ±2% of the median (95% confidence): 1 after 6 rounds",
		"1 NOT within ±2% after their last round", p.Jobs[1].Name + ": ±", "after 8 rounds", "the plan estimated "} {
		if !strings.Contains(notes.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, notes.String())
		}
	}
}

// A configuration sharing another's run is recorded under its own name
// with the same values, after one "# shared:" line; its JSON objects carry
// its own name and placement.
func TestRunAllShared(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	// compact's one worker is on the first allowed cpu, as the list's.
	list := fmt.Sprint(topo.AllowedCPUs.First())
	p, err := Build(topo, Matrix{Preset: Quick, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0"},
		Threads: []int{1}, Places: placeList(t, "compact;"+list), Count: 2, Duration: 5 * time.Millisecond, Target: NoTarget})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Jobs) != 1 || len(p.Jobs[0].Also) != 1 {
		t.Fatalf("jobs %+v: want one, shared by the cpu list", p.Jobs)
	}
	out := filepath.Join(t.TempDir(), "r.txt")
	var js bytes.Buffer
	o, err := p.RunAll(context.Background(), out, false, &bytes.Buffer{}, &js)
	if err != nil {
		t.Fatal(err)
	}
	if o.Ran != 2 || o.Results != 4 || len(o.Rounds) != 0 {
		t.Errorf("%d runs, %d results, rounds %v; want 2 runs, 4 results, no rounds lines (fixed rounds)", o.Ran, o.Results, o.Rounds)
	}
	text, _ := os.ReadFile(out)
	if n := strings.Count(string(text), "# shared: "+p.Jobs[0].Name+" also="+p.Jobs[0].Also[0].Name+"\n"); n != 1 {
		t.Errorf("%d shared lines, want 1:\n%s", n, text)
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]float64{}
	for _, r := range rs.Results {
		v, _ := r.Value("sec/op")
		by[r.Name.String()] = append(by[r.Name.String()], v)
	}
	if a, b := by[p.Jobs[0].Name], by[p.Jobs[0].Also[0].Name]; len(a) != 2 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("values %v and %v: want the same two", a, b)
	}
	if got := rs.Shared[results.FileName{File: out, Name: p.Jobs[0].Also[0].Name}]; got != p.Jobs[0].Name {
		t.Errorf("Set.Shared = %q, want %q", got, p.Jobs[0].Name)
	}
	if n := strings.Count(js.String(), `"place":"cpus:`+list+`"`); n != 2 {
		t.Errorf("%d JSON objects placed on cpus:%s, want 2:\n%s", n, list, js.String())
	}
}

// A resumed sweep that runs more rounds than the one that wrote a
// configuration's "# rounds:" line (a larger -count) writes a new line
// saying how far it got now: the stale one would say 6 rounds where the
// file holds 8.
func TestRunAllResumeRoundsLine(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(topo, Matrix{Preset: Quick, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0"},
		Threads: []int{1}, Count: 8, Duration: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	name := p.Jobs[0].Name
	var b strings.Builder
	for i := range MinRounds {
		fmt.Fprintf(&b, "Benchmark%s\t1000\t%d ns/op\n", name, []int{1, 1000, 5, 6, 7, 8}[i])
	}
	fmt.Fprintf(&b, "# rounds: %s rounds=6 ci=19900.00%% target=2.00%% not-converged\n", name)
	out := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(out+".partial", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := p.RunAll(context.Background(), out, true, &bytes.Buffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Ran != 2 || len(o.Rounds) != 1 || o.Rounds[0].Rounds != 8 {
		t.Errorf("%d runs, rounds %+v; want 2 runs and one rounds line of 8", o.Ran, o.Rounds)
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := rs.Convergence(rs.Results[0]); !ok || c.Rounds != 8 {
		t.Errorf("file's rounds line %+v, %v; want rounds=8", c, ok)
	}
}

// resumeFrom resumes p's sweep from a partial results file holding text,
// in a directory of its own, and returns the results file and the outcome.
func resumeFrom(t *testing.T, p *Plan, text string) (string, *Outcome) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(out+".partial", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := p.RunAll(context.Background(), out, true, &bytes.Buffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out, o
}

// sharedPlan is a one-worker plan whose cpu-list placement shares
// compact's run: one job, one configuration in its Also.
func sharedPlan(t *testing.T, count int, target float64) *Plan {
	t.Helper()
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	list := fmt.Sprint(topo.AllowedCPUs.First())
	p, err := Build(topo, Matrix{Preset: Quick, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0"},
		Threads: []int{1}, Places: placeList(t, "compact;"+list), Count: count, Duration: 2 * time.Millisecond, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Jobs) != 1 || len(p.Jobs[0].Also) != 1 {
		t.Fatalf("jobs %+v: want one, shared by the cpu list", p.Jobs)
	}
	return p
}

// Resuming an adaptive sweep with -ci 0 (no target) runs the rounds the
// adaptive one had stopped short of; the configuration's "# rounds:" line
// must then say how far it got, not the 6 rounds the file said before,
// judged against the target the file was swept at (this sweep has none).
func TestRunAllResumeNoTargetRoundsLine(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(topo, Matrix{Preset: Quick, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0"},
		Threads: []int{1}, Count: 8, Duration: 2 * time.Millisecond, Target: NoTarget})
	if err != nil {
		t.Fatal(err)
	}
	name := p.Jobs[0].Name
	var b strings.Builder
	for range MinRounds {
		fmt.Fprintf(&b, "Benchmark%s\t1000\t5 ns/op\n", name)
	}
	fmt.Fprintf(&b, "# rounds: %s rounds=6 ci=0.00%% target=2.00%% converged\n", name)
	out, o := resumeFrom(t, p, b.String())
	if o.Ran != 2 {
		t.Errorf("%d runs, want 2: rounds 7 and 8, which -ci 0 asks for", o.Ran)
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := rs.Convergence(rs.Results[0])
	if !ok || c.Rounds != 8 || c.Target != 0.02 {
		t.Errorf("file's rounds line %+v, %v; want rounds=8 against the file's target of 2%%", c, ok)
	}
	var notes bytes.Buffer
	o.WriteNotes(&notes, 5)
	if strings.Contains(notes.String(), "±0%") || !strings.Contains(notes.String(), "1 of the runs an earlier adaptive sweep had stopped went further") {
		t.Errorf("notes:\n%s\nwant the updated rounds line said, and no ±0%% target", notes.String())
	}
}

// A failed run that configurations share fails each of them: the file has
// a failure line for each, and the total counts each, as it counts
// configurations; the runs made count the run once. Resumed, every one is
// a skipped configuration.
func TestRunAllSharedFailure(t *testing.T) {
	p := sharedPlan(t, 2, NoTarget)
	j := p.Jobs[0]
	defer func() { FailRun = nil }()
	FailRun = func(name string, round int) error {
		if round == 2 {
			return errors.New("atomicadd: invariant broken")
		}
		return nil
	}
	out := filepath.Join(t.TempDir(), "r.txt")
	o, err := p.RunAll(context.Background(), out, false, &bytes.Buffer{}, nil)
	var fe *FailedError
	if !errors.As(err, &fe) || len(fe.Failures) != 2 || !strings.HasPrefix(err.Error(), "2 configurations failed") {
		t.Fatalf("RunAll: error %v, want a *FailedError of 2 configurations", err)
	}
	if len(o.Failed) != 2 || o.Failed[0].Name != j.Name || o.Failed[1].Name != j.Also[0].Name || o.FailedRuns != 1 {
		t.Errorf("failed %+v, %d runs; want %s and %s, one run", o.Failed, o.FailedRuns, j.Name, j.Also[0].Name)
	}
	var notes bytes.Buffer
	o.WriteNotes(&notes, 5)
	if !strings.Contains(notes.String(), "2 configurations FAILED") || !strings.Contains(notes.String(), "for the 2 runs made") {
		t.Errorf("notes:\n%s\nwant 2 configurations failed, and 2 runs made (one that failed)", notes.String())
	}
	FailRun = nil
	o, err = p.RunAll(context.Background(), out, true, &bytes.Buffer{}, nil)
	if !errors.As(err, &fe) || len(o.Skipped) != 2 || o.Ran != 0 {
		t.Errorf("resumed: error %v, skipped %+v, %d ran; want both configurations skipped", err, o.Skipped, o.Ran)
	}
}

// Resuming a file that an earlier plan wrote without sharing (each
// configuration its own run, or only one of them) under a plan that now
// shares the run writes the "# shared:" line before the first copy, and a
// second resume does not write it again.
func TestRunAllResumeSharedLine(t *testing.T) {
	p := sharedPlan(t, 4, NoTarget)
	j := p.Jobs[0]
	var b strings.Builder
	for range 2 {
		fmt.Fprintf(&b, "Benchmark%s\t1000\t5 ns/op\n", j.Name)
	}
	out, _ := resumeFrom(t, p, b.String())
	line := "# shared: " + j.Name + " also=" + j.Also[0].Name + "\n"
	text, _ := os.ReadFile(out)
	first := strings.Index(string(text), "Benchmark"+j.Also[0].Name)
	if at := strings.Index(string(text), line); at < 0 || first < 0 || at > first {
		t.Fatalf("shared line at %d, first copy at %d: want the line before it:\n%s", at, first, text)
	}
	p.Count = 6
	if _, err := p.RunAll(context.Background(), out, true, &bytes.Buffer{}, nil); err != nil {
		t.Fatal(err)
	}
	text, _ = os.ReadFile(out)
	if n := strings.Count(string(text), line); n != 1 {
		t.Errorf("%d shared lines after a second resume, want 1:\n%s", n, text)
	}
}
