// Package scripts_test tests the shell scripts beside it: their choices of
// perf event, their build cache, and their output, against a fake perf and
// a fake go (testdata/bin) that answer as perf does on a VM without a PMU,
// an Intel hybrid CPU, an Intel CPU with PEBS and an AMD CPU with IBS; and,
// where this machine's real perf cannot record perf c2c, the real refusal.
package scripts_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// script runs bash with the fakes first on PATH and env added, and returns
// its output and exit status.
func script(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin, err := filepath.Abs(filepath.Join("testdata", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", args...)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "TMPDIR="+t.TempDir(),
		"CONTEND_CACHE="+t.TempDir(), "FAKE_PERF_LOG="+filepath.Join(t.TempDir(), "perf.log"))
	cmd.Env = append(cmd.Env, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// lib runs a snippet of bash with lib/perf.sh sourced.
func lib(t *testing.T, env []string, snippet string) (string, string, int) {
	return script(t, env, "-c", "set -euo pipefail; prog=test; . lib/perf.sh; "+snippet)
}

// TestPickSampleEvent: the most precise event that works, and never
// cpu-clock where a PMU counts cycles under another name (hybrid Intel
// CPUs count cpu_core/cycles/ and cpu_atom/cycles/, never "cycles").
func TestPickSampleEvent(t *testing.T) {
	ibs := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ibs, "ibs_op"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode, pmus, want string
	}{
		{"nopmu", t.TempDir(), "cpu-clock|"},
		{"hybrid", t.TempDir(), "cycles|"},
		{"pebs", t.TempDir(), "cycles:pp|"},
		{"ibs", ibs, "ibs_op//|-a"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			out, stderr, code := lib(t, []string{"FAKE_PERF=" + tc.mode, "CONTEND_PMU_DIR=" + tc.pmus},
				`pick_sample_event; echo "$SAMPLE_EVENT|$SAMPLE_SCOPE"; echo "$SAMPLE_WHY" >&2`)
			if code != 0 || strings.TrimSpace(out) != tc.want {
				t.Errorf("pick_sample_event = %q (exit %d, %s), want %s", out, code, stderr, tc.want)
			}
		})
	}
	out, _, _ := lib(t, []string{"FAKE_PERF=hybrid"}, `event_counts cycles && echo counts`)
	if strings.TrimSpace(out) != "counts" {
		t.Errorf("event_counts cycles on a hybrid CPU: %q, want counts", out)
	}
}

// TestContendBinCache: contend is built once per state of the tree; an
// edit to a Go file makes a new build, an edit to a test does not; CONTEND
// names a prebuilt binary and nothing is built.
func TestContendBinCache(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module github.com/contend/contend\n")
	write("cmd/contend/main.go", "package main\n")
	write("cmd/contend/main_test.go", "package main\n")
	cache, log := t.TempDir(), filepath.Join(t.TempDir(), "go.log")
	env := []string{"CONTEND_CACHE=" + cache, "FAKE_GO_LOG=" + log}
	builds := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "go build")
	}
	run := func() string {
		t.Helper()
		out, stderr, code := script(t, env, "-c", `set -euo pipefail; prog=test; . lib/perf.sh; contend_bin "$1"; echo "$CONTEND_BIN"; "$CONTEND_BIN"`, "bash", root)
		if code != 0 {
			t.Fatalf("contend_bin: exit %d: %s", code, stderr)
		}
		return out
	}
	first := run()
	if builds() != 1 || !strings.Contains(first, "built contend") {
		t.Fatalf("first call: %d builds, output %q; want one build", builds(), first)
	}
	if again := run(); again != first || builds() != 1 {
		t.Errorf("second call: %d builds, binary %q; want the cached %q", builds(), again, first)
	}
	write("cmd/contend/main_test.go", "package main // edited\n")
	if run(); builds() != 1 {
		t.Errorf("a test file's edit rebuilt contend (%d builds)", builds())
	}
	write("cmd/contend/main.go", "package main // edited\n")
	if edited := run(); builds() != 2 || edited == first {
		t.Errorf("after an edit: %d builds, binary %q; want a second build under a new key", builds(), edited)
	}
	contend, err := filepath.Abs(filepath.Join("testdata", "bin", "contend"))
	if err != nil {
		t.Fatal(err)
	}
	out, _, code := script(t, append(env, "CONTEND="+contend), "-c", `prog=test; . lib/perf.sh; contend_bin "$1"; echo "$CONTEND_BIN"`, "bash", root)
	if code != 0 || strings.TrimSpace(out) != contend || builds() != 2 {
		t.Errorf("with CONTEND set: %q (exit %d), %d builds; want %s and no build", out, code, builds(), contend)
	}
	_, stderr, code := script(t, append(env, "CONTEND="+root), "-c", `prog=test; . lib/perf.sh; contend_bin "$1"`, "bash", root)
	if code != 1 || !strings.Contains(stderr, "is not an executable file") {
		t.Errorf("CONTEND=a directory: exit %d, %q; want a one-line refusal", code, stderr)
	}
}

func fakeContend(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "bin", "contend"))
	if err != nil {
		t.Fatal(err)
	}
	return "CONTEND=" + p
}

// TestPerfC2CCannot: where perf c2c cannot record (no memory-access
// sampling, as in a VM without a PMU), the script says so, why, and what to
// use instead, exits 3, runs no contend and leaves no directory behind.
func TestPerfC2CCannot(t *testing.T) {
	tmp := t.TempDir()
	log := filepath.Join(t.TempDir(), "perf.log")
	_, stderr, code := script(t, []string{"FAKE_PERF=nopmu", fakeContend(t), "TMPDIR=" + tmp, "FAKE_PERF_LOG=" + log},
		"perf-c2c.sh", "-d", "1s", "atomicadd", "-threads", "2")
	if code != 3 {
		t.Errorf("exit %d, want 3 (cannot on this machine)", code)
	}
	for _, want := range []string{`this machine cannot record perf c2c: perf says "failed: memory events not supported"`,
		"perf stat counts no hardware cycles here", "scripts/perf-annotate.sh"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if b, _ := os.ReadFile(log); strings.Contains(string(b), " run ") {
		t.Errorf("contend ran although perf c2c cannot record:\n%s", b)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left %v in TMPDIR", ents)
	}
}

// TestPerfC2CThisMachine runs the script with this machine's own perf where
// it cannot record perf c2c (this project's KVM guest cannot): the refusal
// must be the same, with perf's real words.
func TestPerfC2CThisMachine(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	probe := filepath.Join(t.TempDir(), "probe.data")
	if err := exec.Command("perf", "c2c", "record", "-o", probe, "--", "true").Run(); err == nil {
		t.Skip("this machine can record perf c2c")
	}
	// No fakes on PATH: only the contend stand-in, which must not run.
	cmd := exec.Command("bash", "perf-c2c.sh", "-d", "1s", "atomicadd")
	cmd.Env = append(os.Environ(), fakeContend(t), "TMPDIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(stderr.String(), "this machine cannot record perf c2c") {
		t.Errorf("perf-c2c.sh here: %v\n%s\nwant exit 3 and the reason", err, stderr.String())
	}
	t.Logf("%s", stderr.String())
}

// TestPerfC2CReport: where perf c2c records, the summary names each
// contended line and the symbols that touch it.
func TestPerfC2CReport(t *testing.T) {
	report, err := filepath.Abs(filepath.Join("testdata", "c2c-report-6.x.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stdout, stderr, code := script(t, []string{"FAKE_PERF=pebs", fakeContend(t), "FAKE_C2C_REPORT=" + report},
		"perf-c2c.sh", "-o", out, "-d", "1s", "atomicadd", "-threads", "2")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{
		"cache line 0xc000012080: 14702 HITMs (13810 local, 892 remote, 96.0% of all)",
		"github.com/contend/contend/bench/atomicadd.atomicAddLoop  atomicadd.go:112",
		"0x18   [.] github.com/contend/contend/counter.(*CfsRq).calcGroupShares",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "run.txt")); err != nil || !strings.HasPrefix(string(b), "BenchmarkAtomicAdd/") {
		t.Errorf("run.txt = %q, %v; want contend run's output", b, err)
	}
}

// TestSummaries compares the awk summaries of perf's output with golden
// files (go test -update rewrites them): perf c2c reports of two perf
// generations (with and without the Snoop Peer column), and perf annotate of
// two functions of a real run, one whose locked instruction is a lock xadd
// with its samples on the next one (skid), one whose atomic stores are
// xchg with memory (locked without the prefix) beside an xchg %ax,%ax (a
// nop, not locked).
func TestSummaries(t *testing.T) {
	c2c := []string{"-v", "lines=5", "-v", "sites=8", "-f", "lib/c2c-summary.awk"}
	annotate := []string{"-f", "lib/annotate-summary.awk"}
	for _, tc := range []struct {
		name string
		awk  []string
	}{
		{"c2c-report-6.x", c2c},
		{"c2c-report-5.x", c2c},
		{"annotate-xadd", annotate},
		{"annotate-xchg", annotate},
	} {
		name := tc.name
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command("awk", append(tc.awk, filepath.Join("testdata", name+".txt"))...).Output()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("summary differs from %s:\n%s", golden, out)
			}
		})
	}
}

// TestPerfAnnotate: perf record of contend run with the event chosen here
// and -d's duration, the top functions, and for each function named the
// summary of its annotation, or a word that it has no samples.
func TestPerfAnnotate(t *testing.T) {
	annotations := t.TempDir()
	xadd, err := os.ReadFile(filepath.Join("testdata", "annotate-xadd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(annotations, "atomicadd.atomicAddLoop.txt"), xadd, 0o644); err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile(filepath.Join("testdata", "annotate-xadd.golden"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	log := filepath.Join(t.TempDir(), "perf.log")
	stdout, stderr, code := script(t, []string{"FAKE_PERF=nopmu", fakeContend(t), "FAKE_ANNOTATE_DIR=" + annotations, "FAKE_PERF_LOG=" + log},
		"perf-annotate.sh", "-o", out, "-d", "2s", "-s", "atomicadd.atomicAddLoop", "-s", "atomicadd.idle", "atomicadd", "-threads", "2")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{
		"== perf report (top functions)\n    93.12%  [.] github.com/contend/contend/bench/atomicadd.atomicAddLoop\n",
		"== github.com/contend/contend/bench/atomicadd.atomicAddLoop\n" + string(summary) + "(full annotation: " + out + "/annotate.atomicadd.atomicAddLoop.txt)\n",
		"== github.com/contend/contend/bench/atomicadd.idle\nno samples in github.com/contend/contend/bench/atomicadd.idle",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "sampling the cpu-clock software event") {
		t.Errorf("stderr does not say what it samples:\n%s", stderr)
	}
	record := "perf record -q --no-buildid-cache -e cpu-clock -F 10000 -o " + out + "/perf.data -- "
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), record) || !strings.Contains(string(b), " run atomicadd -duration 2s -threads 2\n") {
		t.Errorf("perf calls lack %q ... run atomicadd -duration 2s -threads 2:\n%s", record, b)
	}
	if b, err := os.ReadFile(filepath.Join(out, "run.txt")); err != nil || !strings.HasPrefix(string(b), "BenchmarkAtomicAdd/") {
		t.Errorf("run.txt = %q, %v; want contend run's output", b, err)
	}

}

// TestPerfAnnotateHotSymbols: without -s, perf-annotate.sh annotates the
// hot functions each scenario declares, read from the real contend's
// list -json; an unknown scenario is refused with contend's one-line error
// before anything is recorded.
func TestPerfAnnotateHotSymbols(t *testing.T) {
	realBin := buildContend(t)
	out, err := exec.Command(realBin, "list", "-json").Output()
	if err != nil {
		t.Fatalf("contend list -json: %v", err)
	}
	var specs []struct {
		Name       string
		HotSymbols []string `json:"hot_symbols"`
	}
	if err := json.Unmarshal(out, &specs); err != nil || len(specs) == 0 {
		t.Fatalf("contend list -json: %v, %d scenarios", err, len(specs))
	}
	env := func(log string) []string {
		return []string{"FAKE_PERF=nopmu", fakeContend(t), "FAKE_CONTEND_REAL=" + realBin, "FAKE_PERF_LOG=" + log}
	}
	for _, spec := range specs {
		log := filepath.Join(t.TempDir(), "perf.log")
		stdout, stderr, code := script(t, env(log), "perf-annotate.sh", "-d", "1s", spec.Name)
		if code != 0 {
			t.Errorf("%s: exit %d:\n%s", spec.Name, code, stderr)
			continue
		}
		b, _ := os.ReadFile(log)
		for _, sym := range spec.HotSymbols {
			if !strings.Contains(string(b), "perf annotate -i ") || !strings.Contains(string(b), " --stdio --symbol="+sym+"\n") {
				t.Errorf("%s: hot function %s not annotated; perf calls:\n%s", spec.Name, sym, b)
			}
			if !strings.Contains(stdout, "== "+sym+"\n") {
				t.Errorf("%s: output has no section for %s:\n%s", spec.Name, sym, stdout)
			}
		}
		if n := strings.Count(string(b), "perf annotate "); n != len(spec.HotSymbols) {
			t.Errorf("%s: %d annotations for the %d declared hot functions:\n%s", spec.Name, n, len(spec.HotSymbols), b)
		}
	}
	log := filepath.Join(t.TempDir(), "perf.log")
	_, stderr, code := script(t, env(log), "perf-annotate.sh", "nosuch")
	if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
		!strings.HasPrefix(stderr, `perf-annotate: contend: list: unknown scenario "nosuch" (want one of `) {
		t.Errorf("unknown scenario: exit %d, %q; want contend's one-line error", code, stderr)
	}
	if b, _ := os.ReadFile(log); strings.Contains(string(b), "perf record") {
		t.Errorf("unknown scenario: perf recorded anyway:\n%s", b)
	}
}

// buildContend builds this tree's contend with the real go, once per test.
func buildContend(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds contend; skipped in -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go in PATH to build contend with")
	}
	bin := filepath.Join(t.TempDir(), "contend")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/contend")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/contend: %v\n%s", err, out)
	}
	return bin
}

// TestPerfStat: counters in total and per operation; counters the machine
// lacks are named; HITM counters are used where the CPU has them.
func TestPerfStat(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		want    []string
		notWant []string
	}{
		{"nopmu", []string{"(1000 operations)", "task-clock", "1.234 per op", "not counted here", "cache-misses",
			"no hardware counters at all"}, []string{"mem_load_l3_hit_retired.xsnp_fwd   "}},
		{"pebs", []string{"cache-misses", "mem_load_l3_hit_retired.xsnp_fwd", "1.234 per op"}, []string{"no hardware counters", "no HITM-style counter"}},
		{"hybrid", []string{"cycles", "no HITM-style counter known for this CPU"}, []string{"no hardware counters at all"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			stdout, stderr, code := script(t, []string{"FAKE_PERF=" + tc.mode, fakeContend(t)}, "perf-stat.sh", "-d", "1s", "atomicadd")
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(stdout, w) {
					t.Errorf("output has %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestUsage: every script answers --help with its usage, and a bad option
// with one line naming it.
func TestUsage(t *testing.T) {
	for _, s := range []string{"perf-annotate.sh", "perf-c2c.sh", "perf-stat.sh"} {
		out, _, code := script(t, nil, s, "--help")
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "--contend PATH") {
			t.Errorf("%s --help: exit %d, %q", s, code, out)
		}
		for _, tc := range []struct{ arg, want string }{
			{"--bogus", "unknown option --bogus"},
			{"-d", "-d needs a duration"},
			{"--out", "--out needs a directory"},
		} {
			_, stderr, code := script(t, []string{"FAKE_PERF=nopmu"}, s, tc.arg)
			if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s %s: exit %d, %q; want one line containing %q", s, tc.arg, code, stderr, tc.want)
			}
		}
	}
}

// TestShellcheck lints every script where shellcheck is installed.
func TestShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck not installed (apt-get install shellcheck)")
	}
	// From the repository root, where the scripts' "source=" directives
	// point.
	var files []string
	for _, glob := range []string{"*.sh", "lib/*.sh", "testdata/bin/*"} {
		m, _ := filepath.Glob(glob)
		for _, f := range m {
			files = append(files, filepath.Join("scripts", f))
		}
	}
	cmd := exec.Command("shellcheck", append([]string{"-x"}, files...)...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}
