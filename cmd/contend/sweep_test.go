package main

import (
	"bytes"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contend/contend/internal/fixture"
	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/sweep"
	"golang.org/x/perf/benchfmt"
)

// readResults parses a results file as benchstat would and returns its
// results, failing on any syntax error.
func readResultsT(t *testing.T, path string) []*benchfmt.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := benchfmt.NewReader(f, path)
	var rs []*benchfmt.Result
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("%s: %v", path, rec)
		case *benchfmt.Result:
			rs = append(rs, rec.Clone())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestSweepWritesComparableResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, []string{"sweep", "-scenarios", "atomicadd", "-count", "2", "-duration", "10ms", "-o", out})
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, stderr.String())
	}
	// The sweep ends with the summary of its file, which names the file
	// and the command that prints every table.
	var sum bytes.Buffer
	if err := report.SummarizeFile(&sum, out); err != nil || stdout.String() != sum.String() {
		t.Errorf("sweep's summary:\n%s\nwant the file's (%v):\n%s", stdout.String(), err, sum.String())
	}
	if !strings.Contains(stdout.String(), "contend table "+out) {
		t.Errorf("the summary does not say how to get every table:\n%s", stdout.String())
	}
	rs := readResultsT(t, out)
	if len(rs) != 8 { // 2 quick variants × 1 and 2 threads × count 2
		t.Fatalf("got %d results, want 8", len(rs))
	}
	for _, r := range rs {
		for _, key := range []string{"goos", "goarch", "cpu", "kernel", "nodes", "nr_node_ids", "topology", "cacheline", "governor", "go", "contend", "date"} {
			if r.GetConfig(key) == "" {
				t.Errorf("%s: no %q configuration", r.Name, key)
			}
		}
		if _, ok := r.Value("sec/op"); !ok {
			t.Errorf("%s: no ns/op", r.Name)
		}
		// The handoff floor is measured unless the cpus were too busy
		// to ping-pong, which the sweep then says; one worker hands
		// nothing off and has none.
		_, ok := r.Value("handoffs/op")
		switch one := strings.Contains(r.Name.String(), "/threads=1/"); {
		case one && ok:
			t.Errorf("%s: handoffs/op for one worker", r.Name)
		case !one && !ok && !strings.Contains(stderr.String(), "not measured"):
			t.Errorf("%s: no handoffs/op and no word why", r.Name)
		}
		if !strings.HasPrefix(r.Name.String(), "AtomicAdd/line=") || !strings.Contains(r.Name.String(), "/threads=") {
			t.Errorf("unexpected name %q", r.Name)
		}
	}
	if b, _ := os.ReadFile(out); !bytes.Contains(b, []byte("Unit worker-cv-% better=lower")) {
		t.Error("results file has no Unit metadata lines")
	}
	if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("partial file left behind after a complete sweep: %v", err)
	}
}

// An interrupted sweep leaves a valid partial file and an untouched final
// file; -resume continues it without repeating finished runs.
func TestSweepInterruptAndResume(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.txt")
	const old = "previous results, must survive a failed sweep\n"
	if err := os.WriteFile(out, []byte(old), 0o666); err != nil {
		t.Fatal(err)
	}
	args := []string{"sweep", "-scenarios", "atomicadd", "-count", "20", "-duration", "20ms", "-no-table", "-no-floor", "-o", out}
	// Interrupt from inside the sweep, as its third run starts (the
	// first two results are durable by then), and wait for the signal to
	// have been taken before it goes on: where the interrupt lands does not
	// depend on how fast a loaded machine makes results or schedules a
	// watcher.
	var stdout bytes.Buffer
	stderr := &interruptAt{line: "sweep: [3/"}
	err := run(&stdout, stderr, args)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("sweep error = %v, want an interruption", err)
	}
	if b, _ := os.ReadFile(out); string(b) != old {
		t.Fatalf("interrupted sweep touched %s: %q", out, b)
	}
	partial := readResultsT(t, out+".partial")
	if len(partial) < 2 || len(partial) >= 40 {
		t.Fatalf("partial file holds %d results, want some but not all", len(partial))
	}
	// Without -resume the partial file is not silently overwritten.
	if err := run(&stdout, stderr, args); err == nil || !strings.Contains(err.Error(), "-resume") {
		t.Fatalf("second sweep without -resume: error = %v, want one suggesting -resume", err)
	}
	// A torn last line, as a crash might leave, is dropped on resume.
	f, _ := os.OpenFile(out+".partial", os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("BenchmarkAtomicAdd/line=shared/work=0/threads=2/place=compact-2 123 4.5 ns/")
	f.Close()
	resumeArgs := append(args[:len(args):len(args)], "-resume", "-count", "2")
	if err := run(&stdout, stderr, resumeArgs); err != nil {
		t.Fatalf("resume: %v", err)
	}
	final := readResultsT(t, out)
	want := max(len(partial), 8) // 2 quick variants × 1 and 2 threads × count 2
	if len(final) != want {
		t.Errorf("after resume %d results, want %d (the %d kept plus what count 2 still needed)", len(final), want, len(partial))
	}
}

func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-count", "0"}, "-count 0"},
		{[]string{"-scenarios", "nosuch"}, `unknown scenario "nosuch"`},
		{[]string{"-variants", "line=both", "-scenarios", "atomicadd"}, `line="both": unknown value`}, // the old spelling
		{[]string{"-variant", "line=both", "-scenarios", "atomicadd"}, `line="both": unknown value`},
		{[]string{"-variant", "line=shared/work=0"}, "-variant needs exactly one scenario"},
		{[]string{"-threads", "two"}, "not a positive worker count"},
		{[]string{"-place", "sideways"}, "unknown placement"},
		{[]string{"-duration", "-1s"}, "-duration"},
		{[]string{"-quick", "-full"}, "exclude"},
		{[]string{"-fake-nodes", "0"}, "at least 1 node"},
		{[]string{"-o", "/proc/nonexistent/r.txt", "-scenarios", "atomicadd", "-duration", "1ms", "-count", "1"}, "r.txt"},
		{[]string{"-o", filepath.Join(dir, "no", "such", "r.txt"), "-scenarios", "atomicadd", "-duration", "1ms", "-count", "1"},
			"results file " + filepath.Join(dir, "no", "such", "r.txt") + ": directory " + filepath.Join(dir, "no", "such") + " does not exist"},
		{[]string{"-duration", "2h"}, "-duration 2h0m0s: want a duration above 0 and at most 1h"},
		{[]string{"stray"}, "unexpected argument"},
	}
	for _, tt := range tests {
		args := append([]string{"sweep", "-o", filepath.Join(dir, "x.txt")}, tt.args...)
		var stdout, stderr bytes.Buffer
		err := run(&stdout, &stderr, args)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("contend %s: error = %v, want one line containing %q", strings.Join(args, " "), err, tt.want)
		}
	}
}

// -plan prints the matrix and its estimate and runs nothing, also for
// another machine's tree, where a run is refused.
func TestSweepPlan(t *testing.T) {
	out, _, err := runContend("sweep", "-full", "-plan", "-scenarios", "atomicadd", "-sysfs", fixture.Root(fixture.AMD4Sockets))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"64 allowed cpus, 8 nodes", "atomicadd", "cross", "estimated wall time: ", "cpus used 0-63, nodes used 0-7"} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep -plan lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runContend("sweep", "-plan", "-fake-nodes", "2", "-cpus", "0-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "topology fake-2") || !strings.Contains(out, "estimated wall time") {
		t.Errorf("sweep -plan on fake nodes:\n%s", out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "-sysfs", fixture.Root(fixture.AMD4Sockets)}, "-sysfs describes another machine"},
		{[]string{"sweep", "-plan", "-cpus", "0-3,x"}, `-cpus "0-3,x"`},
		{[]string{"sweep", "-plan", "-cpus", "4000"}, "affinity: cpu 4000 is not among the allowed cpus"},
		{[]string{"sweep", "-plan", "-cpus", "4000-4001"}, "affinity: cpus 4000-4001 are not among the allowed cpus"},
		{[]string{"sweep", "-plan", "-scenarios", "wakeup", "-threads", "1"}, "-threads 1: wakeup needs at least 2 workers"},
	} {
		if _, _, err := runContend(tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("contend %v: error = %v, want one line containing %q", tt.args, err, tt.want)
		}
	}
}

// One configuration that fails does not end the sweep: the others complete,
// the failure is reported and kept in the file as a comment line, the exit
// status is an error; -resume does not run it again, -resume -retry-failed
// does.
func TestSweepGoesOnAfterAFailure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	var bad string
	calls := 0
	defer func() { sweep.FailRun = nil }()
	sweep.FailRun = func(name string, round int) error {
		if !strings.Contains(name, "line=private") || !strings.Contains(name, "/threads=1/") {
			return nil
		}
		bad = name
		calls++
		return errors.New("atomicadd: counted 1 adds, runner counted 2 operations")
	}
	args := []string{"sweep", "-scenarios", "atomicadd", "-count", "2", "-duration", "5ms", "-no-floor", "-o", out}
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, args)
	if err == nil || !strings.Contains(err.Error(), "1 configuration failed") || !strings.Contains(err.Error(), out) {
		t.Fatalf("sweep with a failing configuration: error = %v, want one saying it failed and naming %s\n%s", err, out, stderr.String())
	}
	if calls != 1 {
		t.Errorf("the failing configuration ran %d times, want once: a failed configuration runs no further round", calls)
	}
	line := "# failed: " + bad + " round=1: atomicadd: counted 1 adds, runner counted 2 operations"
	if !strings.Contains(stderr.String(), "FAILED "+bad+" (round 1)") || !strings.Contains(stderr.String(), "1 configuration FAILED") {
		t.Errorf("stderr does not report the failure as it happened and at the end:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "AtomicAdd") || !strings.Contains(stdout.String(), "shared") {
		t.Errorf("no summary of the other results:\n%s", stdout.String())
	}
	if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("partial file left behind after a sweep that ran to the end: %v", err)
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), "\n"+line+"\n") {
		t.Errorf("results file has no line %q", line)
	}
	if rs := readResultsT(t, out); len(rs) != 6 { // 3 configurations × count 2
		t.Errorf("%d results, want 6: every other configuration's", len(rs))
	}

	if err := run(&stdout, &stderr, append(args[:len(args):len(args)], "-retry-failed")); err == nil || !strings.Contains(err.Error(), "-retry-failed needs -resume") {
		t.Errorf("-retry-failed without -resume: error = %v", err)
	}
	stderr.Reset()
	if err := run(&stdout, &stderr, append(args[:len(args):len(args)], "-resume")); err == nil || !strings.Contains(err.Error(), "failed") {
		t.Errorf("-resume over a recorded failure: error = %v, want the failure still reported", err)
	}
	if calls != 1 || !strings.Contains(stderr.String(), "were not run again") {
		t.Errorf("-resume: the failed configuration ran %d times in all, want 1 (not again); stderr:\n%s", calls, stderr.String())
	}
	sweep.FailRun = nil
	if err := run(&stdout, &stderr, append(args[:len(args):len(args)], "-resume", "-retry-failed")); err != nil {
		t.Fatalf("-resume -retry-failed: %v", err)
	}
	if rs := readResultsT(t, out); len(rs) != 8 {
		t.Errorf("after -retry-failed %d results, want 8", len(rs))
	}
}

// The full sweep of the seeds' 2-socket, 224-cpu box fits an hour even if
// no configuration stops before its last round, and still reaches 1 and
// 224 workers, one node's worth, spread and cross over both nodes; -budget
// trims it further and says what, or refuses a budget it cannot meet.
func TestSweepFullPlan224(t *testing.T) {
	root := t.TempDir()
	for name, f := range fixture.SapphireRapids224.Tree() {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	estimate := func(out string) (lo, hi time.Duration) {
		t.Helper()
		_, rest, ok := strings.Cut(out, "estimated wall time: ")
		f := strings.Fields(rest)
		if !ok || len(f) < 3 || f[1] != "to" {
			t.Fatalf("no estimated range in:\n%s", out)
		}
		lo, err1 := time.ParseDuration(f[0])
		hi, err2 := time.ParseDuration(f[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("estimate %q to %q: %v %v", f[0], f[2], err1, err2)
		}
		return lo, hi
	}
	out, _, err := runContend("sweep", "-full", "-plan", "-sysfs", root)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := estimate(out); hi > time.Hour || lo >= hi {
		t.Errorf("full plan estimated %v to %v, want at most 1h", lo, hi)
	}
	covered := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] == "scenario" {
			continue
		}
		covered[f[2]+"/"+f[3]+"/"+f[4]] = true // threads/place/nodes
	}
	for _, want := range []string{"1/compact/0", "112/compact/0", "224/compact/0-1", "2/spread/0-1", "112/cross/0-1", "224/spread/0-1"} {
		if !covered[want] {
			t.Errorf("full plan has no %s (threads/place/nodes) run", want)
		}
	}
	out, _, err = runContend("sweep", "-full", "-plan", "-sysfs", root, "-budget", "30m")
	if err != nil {
		t.Fatal(err)
	}
	if _, hi := estimate(out); hi > 30*time.Minute || !strings.Contains(out, "trimmed to fit the budget: ") {
		t.Errorf("-budget 30m: estimated up to %v, want at most 30m, and what it trimmed:\n%s", hi, out)
	}
	if _, _, err := runContend("sweep", "-full", "-plan", "-sysfs", root, "-budget", "1m"); err == nil ||
		!strings.Contains(err.Error(), "-budget 1m0s: the plan needs ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("-budget 1m: error %v, want one line saying what the plan needs", err)
	}
	for _, tt := range []struct{ args, want string }{
		{"-ci -1", `invalid value "-1" for flag -ci: want a percentage of 0 or more, such as 5 or 5%`},
		{"-ci 2x", `invalid value "2x" for flag -ci: want a percentage`},
		{"-ci 100", "-ci 100: want a percentage of the median from 0 (off) to below 100"},
		{"-ci 100%", "-ci 100: want a percentage of the median from 0 (off) to below 100"},
		{"-budget -1s", "-budget -1s: want a positive duration"},
	} {
		args := append([]string{"sweep", "-plan"}, strings.Fields(tt.args)...)
		if _, _, err := runContend(args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("contend %v: error %v, want %q", args, err, tt.want)
		}
	}
	// -ci 0: fixed rounds, one estimate; with or without its %.
	for _, ci := range []string{"0", "0%"} {
		out, _, err = runContend("sweep", "-plan", "-ci", ci)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "rounds: 6 of 100ms a configuration\n") || strings.Contains(out, " to ") {
			t.Errorf("-ci %s: want 6 fixed rounds and one estimate:\n%s", ci, out)
		}
	}
	// -ci 5%: the plan's target, as -ci 5.
	pct, _, err := runContend("sweep", "-plan", "-ci", "5%")
	plain, _, err2 := runContend("sweep", "-plan", "-ci", "5")
	if err != nil || err2 != nil || pct != plain || !strings.Contains(plain, "within ±5% (") {
		t.Errorf("-ci 5%% and -ci 5 plan differently (%v, %v):\n%s\n%s", err, err2, pct, plain)
	}
}

// interruptAt is a progress writer that sends this process SIGINT when a
// line it is given starts with line, and returns only once the signal has
// been taken (signal.Notify's channels get it together).
type interruptAt struct {
	bytes.Buffer
	line string
	sent bool
}

func (w *interruptAt) Write(p []byte) (int, error) {
	if !w.sent && bytes.HasPrefix(p, []byte(w.line)) {
		w.sent = true
		taken := make(chan os.Signal, 1)
		signal.Notify(taken, os.Interrupt)
		defer signal.Stop(taken)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-taken
	}
	return w.Buffer.Write(p)
}

// The usage line names every flag the list shows; the older spelling
// -variants parses (TestSweepBadInput) but is not listed beside -variant.
func TestSweepUsageNamesFlags(t *testing.T) {
	out, _, _ := runContend("sweep", "-h")
	usage, list, _ := strings.Cut(out, "\n")
	for _, l := range strings.Split(list, "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(l), "-")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		if !strings.Contains(usage, "-"+name+" ") && !strings.Contains(usage, "-"+name+"]") {
			t.Errorf("usage line lacks -%s: %s", name, usage)
		}
	}
	if strings.Contains(out, "-variants") {
		t.Errorf("sweep -h lists -variants beside -variant:\n%s", out)
	}
}
