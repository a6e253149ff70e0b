package results_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	_ "github.com/contend/contend/bench/atomicadd"
	"github.com/contend/contend/bench/resultfmt"
)

// The runner must never hand the main thread to a worker (see benchtest).
func init() { runtime.LockOSThread() }

// readmeIgnore is the -ignore set the README gives for comparing contend's
// files in plain benchstat: what differs between two runs of the same
// experiment on the same machine by design.
const readmeIgnore = "date,contend,command"

// benchstatTables groups files as plain benchstat does (its defaults: -table
// .config, -row .fullname, -col .file, with -ignore ignore) and returns, per
// unit, the distinct tables and, per table and row, the columns present.
func benchstatTables(t *testing.T, ignore string, paths ...string) map[string]map[string]map[string][]string {
	t.Helper()
	filter, err := benchproc.NewFilter("*")
	if err != nil {
		t.Fatal(err)
	}
	var parser benchproc.ProjectionParser
	tableBy, unitField, err := parser.ParseWithUnit(".config", filter)
	if err != nil {
		t.Fatal(err)
	}
	rowBy, err := parser.Parse(".fullname", filter)
	if err != nil {
		t.Fatal(err)
	}
	colBy, err := parser.Parse(".file", filter)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.Parse(ignore, filter); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]map[string][]string{} // unit → table → row → cols
	files := benchfmt.Files{Paths: paths}
	for files.Scan() {
		switch rec := files.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchstat would warn: %v", rec)
		case *benchfmt.Result:
			row, col := rowBy.Project(rec).String(), colBy.Project(rec).String()
			for _, k := range tableBy.ProjectValues(rec) {
				unit := k.Get(unitField)
				table := k.String()
				if out[unit] == nil {
					out[unit] = map[string]map[string][]string{}
				}
				if out[unit][table] == nil {
					out[unit][table] = map[string][]string{}
				}
				if cols := out[unit][table][row]; len(cols) == 0 || cols[len(cols)-1] != col {
					out[unit][table][row] = append(cols, col)
				}
			}
		}
	}
	if err := files.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGoTestAndSweepGroupTogether runs one configuration of a scenario both
// ways — go test -bench of the scenario's package, and the runner writing
// the records a sweep writes — and checks that plain benchstat, with the
// README's -ignore set, puts both files' results in one table, side by side
// on one row. Before the pkg line, the two landed in separate tables.
func TestGoTestAndSweepGroupTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a scenario's test binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	spec, err := bench.Lookup("atomicadd")
	if err != nil {
		t.Fatal(err)
	}
	const variant, pattern = "line=shared/work=0", "^BenchmarkAtomicAdd$/^line=shared$/^work=0$/^threads=1$/^place=compact$"

	// go test -bench, as a user runs it (built once, then run).
	bin := filepath.Join(dir, "atomicadd.test")
	build := exec.Command(goTool, "test", "-c", "-o", bin, spec.Package)
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c %s: %v\n%s", spec.Package, err, out)
	}
	goTest, err := exec.Command(bin, "-test.run=^$", "-test.bench="+pattern, "-test.benchtime=200x", "-test.count=3").Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, goTest)
	}
	if bytes.Count(goTest, []byte("\nBenchmarkAtomicAdd/")) != 3 {
		t.Fatalf("go test printed no 3 results:\n%s", goTest)
	}
	goTestFile := filepath.Join(dir, "gotest.txt")
	if err := os.WriteFile(goTestFile, goTest, 0o644); err != nil {
		t.Fatal(err)
	}

	// The same configuration through the runner, written as a sweep
	// writes it.
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	cpus, err := affinity.Placement{Policy: affinity.Compact}.Assign(topo, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, withPkg bool) string {
		var buf bytes.Buffer
		w := benchfmt.NewWriter(&buf)
		for _, u := range resultfmt.AllUnits() {
			if err := w.Write(u); err != nil {
				t.Fatal(err)
			}
		}
		cfg := resultfmt.FileConfig(topo, []string{"contend", "sweep", "-scenarios", "atomicadd"})
		if withPkg {
			cfg = resultfmt.WithPackage(cfg, spec.Package)
		}
		for range 3 {
			scen, err := spec.New(variant)
			if err != nil {
				t.Fatal(err)
			}
			res, err := bench.Run(scen, bench.Config{Topology: topo, CPUs: cpus, Ops: 200})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(resultfmt.Record(resultfmt.Name(spec, res.Variant, 1, "compact"), res, cfg)); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sweepFile := write("sweep.txt", true)

	tables := benchstatTables(t, readmeIgnore, goTestFile, sweepFile)["sec/op"]
	if len(tables) != 1 {
		t.Errorf("benchstat -ignore %s splits sec/op into %d tables, want 1:\n%s\n--- go test file:\n%s", readmeIgnore, len(tables), keysOf(tables), goTest)
	}
	for _, rows := range tables {
		for row, cols := range rows {
			if len(cols) != 2 {
				t.Errorf("row %s has columns %v, want the go test file's and the sweep's", row, cols)
			}
		}
	}

	// Without the pkg line the two never meet: the test can tell.
	noPkg := write("nopkg.txt", false)
	if n := len(benchstatTables(t, readmeIgnore, goTestFile, noPkg)["sec/op"]); n != 2 {
		t.Errorf("without a pkg line: %d sec/op tables, want 2 (go test writes pkg:)", n)
	}
}

func keysOf[V any](m map[string]V) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return strings.Join(ks, "\n")
}
