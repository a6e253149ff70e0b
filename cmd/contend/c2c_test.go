package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/internal/fixture"
)

// runC2C runs contend c2c with args and returns its stdout.
func runC2C(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, append([]string{"c2c"}, args...))
	return stdout.String(), err
}

// hostPair returns two usable cpus as a -cpus value, skipping when the
// machine has fewer.
func hostPair(t *testing.T) (a, b int, list string) {
	t.Helper()
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	cpus := topo.AllowedCPUs.Bits()
	if len(cpus) < 2 {
		t.Skipf("a ping-pong needs 2 usable cpus, this process has %s", topo.AllowedCPUs)
	}
	return cpus[0], cpus[1], fmt.Sprintf("%d,%d", cpus[0], cpus[1])
}

// c2cQuick keeps real runs to a few milliseconds.
var c2cQuick = []string{"-samples", "5", "-rounds", "20", "-warmup", "1"}

func TestC2CErrors(t *testing.T) {
	tree := fixture.Root(fixture.AMD4Sockets)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "xchg"}, `c2c: -mode: unknown c2c mode "xchg"`},
		{[]string{"-mode", "rw,cas,rw"}, `given twice`},
		{[]string{"-cpus", "0"}, "need at least 2 distinct cpus, got 1 (0)"},
		{[]string{"-cpus", "0,4095"}, "cpu 4095 (position 2): cpu 4095 does not exist"},
		{[]string{"-cpus", "zero"}, `c2c: -cpus "zero"`},
		{[]string{"-home", "third"}, `c2c: -home: unknown c2c home "third"`},
		{[]string{"-samples", "0"}, "c2c: -samples 0"},
		{[]string{"-rounds", "-1"}, "c2c: -rounds -1"},
		{[]string{"-warmup", "-2"}, `c2c: invalid value "-2" for flag -warmup: warm-up "-2": want auto (samples/10), none (0) or a count`},
		{[]string{"-warmup", "-1"}, `invalid value "-1" for flag -warmup`}, // the old flag's default: refused, not read as either meaning
		{[]string{"-preheat", "-1s"}, "c2c: -preheat -1s"},
		{[]string{"-stat", "mean"}, `c2c: invalid value "mean" for flag -stat: unknown statistic "mean"`},
		{[]string{"-json", "-bench"}, "choose one output format"},
		{[]string{"-pairs", "some", "-list"}, `unknown pair selection "some"`},
		{[]string{"-per-class", "0", "-list"}, "pairs per class 0"},
		{[]string{"-sysfs", tree}, "c2c: -sysfs describes another machine"},
		{[]string{"-fake-nodes", "0"}, "c2c: -fake-nodes 0"},
		{[]string{"-nope"}, "c2c: flag provided but not defined: -nope"},
		{[]string{"extra"}, `c2c: unexpected argument "extra"`},
	}
	for _, tt := range tests {
		out, err := runC2C(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("contend c2c %s: error %v, want it to contain %q", strings.Join(tt.args, " "), err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("contend c2c %s: error spans lines: %q", strings.Join(tt.args, " "), err)
		}
		if out != "" {
			t.Errorf("contend c2c %s: failed but printed %q", strings.Join(tt.args, " "), out)
		}
	}
}

func TestC2CHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(&stdout, &stderr, []string{"help", "c2c"}); err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("contend help c2c: %v", err)
	}
	for _, want := range []string{"Usage: contend c2c", "-home node", "-mode mode", "-per-class", "-preheat"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("contend help c2c does not mention %q:\n%s", want, stdout.String())
		}
	}
}

// -list works on another machine's sysfs tree and measures nothing.
func TestC2CList(t *testing.T) {
	tree := fixture.Root(fixture.AMD4Sockets)
	out, err := runC2C(t, "-list", "-sysfs", tree, "-pairs", "sample", "-per-class", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pairs sample: 8 to measure", "smt      32     0,1 32,33", "cross    1536"} {
		if !strings.Contains(out, want) {
			t.Errorf("contend c2c -list: no %q in\n%s", want, out)
		}
	}
	out, err = runC2C(t, "-list", "-json", "-sysfs", tree, "-cpus", "0-3,16")
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Selection string         `json:"selection"`
		Total     map[string]int `json:"total_pairs"`
		Pairs     []struct {
			CPUA  int    `json:"cpu_a"`
			CPUB  int    `json:"cpu_b"`
			Class string `json:"class"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("contend c2c -list -json: %v\n%s", err, out)
	}
	if plan.Selection != "all" || len(plan.Pairs) != 10 || plan.Total["smt"] != 2 || plan.Total["llc"] != 4 || plan.Total["cross"] != 4 {
		t.Errorf("plan of cpus 0-3,16: %+v; want all 10 pairs: 2 smt, 4 llc, 4 cross", plan)
	}
	if p := plan.Pairs[len(plan.Pairs)-1]; p.CPUA != 3 || p.CPUB != 16 || p.Class != "cross" {
		t.Errorf("last pair %+v, want 3,16 cross", p)
	}
}

func TestC2CRunText(t *testing.T) {
	a, b, cpus := hostPair(t)
	out, err := runC2C(t, append([]string{"-cpus", cpus, "-mode", "all"}, c2cQuick...)...)
	if err != nil {
		t.Fatal(err)
	}
	topo, _ := affinity.Host()
	class := c2c.ClassOf(topo, a, b)
	for _, want := range []string{
		"median of 5 samples of 20 round trips",
		"mode=rw: row cpu_b, column cpu_a",
		"mode=cas: row cpu_b, column cpu_a",
		"class summary",
		"home cpu_a's node",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("contend c2c -cpus %s: no %q in\n%s", cpus, want, out)
		}
	}
	for _, mode := range []string{"rw", "cas"} {
		row := regexp.MustCompile(fmt.Sprintf(`(?m)^ *%s +%s +1 +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +%d,%d$`, mode, class, a, b))
		if !row.MatchString(out) {
			t.Errorf("contend c2c -cpus %s: no summary row %s in\n%s", cpus, row, out)
		}
	}
}

func TestC2CRunJSON(t *testing.T) {
	a, b, cpus := hostPair(t)
	out, err := runC2C(t, append([]string{"-cpus", cpus, "-json", "-stat", "min", "-home", "second"}, c2cQuick...)...)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Topology string             `json:"topology"`
		Stat     string             `json:"stat"`
		Home     string             `json:"home"`
		Config   map[string]string  `json:"config"`
		Pairs    []map[string]any   `json:"pairs"`
		Classes  []c2c.ClassSummary `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("contend c2c -json: %v\n%s", err, out)
	}
	if doc.Topology != "real" || doc.Stat != "min" || doc.Home != "second" || doc.Config["cacheline"] == "" || doc.Config["c2c-rounds"] != "20" {
		t.Errorf("document header %+v", doc)
	}
	if len(doc.Pairs) != 1 || len(doc.Classes) != 1 {
		t.Fatalf("%d pairs, %d classes; want 1 and 1:\n%s", len(doc.Pairs), len(doc.Classes), out)
	}
	p := doc.Pairs[0]
	// What a heatmap needs: both cpus, a number and a class.
	if p["cpu_a"] != float64(a) || p["cpu_b"] != float64(b) || p["class"] == "" {
		t.Errorf("pair %v, want cpu_a %d, cpu_b %d and a class", p, a, b)
	}
	if ns, ok := p["ns"].(float64); !ok || ns <= 0 || ns != p["min_ns"] {
		t.Errorf("pair ns %v, want the positive min_ns %v (-stat min)", p["ns"], p["min_ns"])
	}
}

func TestC2CRunBench(t *testing.T) {
	a, b, cpus := hostPair(t)
	out, err := runC2C(t, append([]string{"-cpus", cpus, "-bench", "-mode", "cas"}, c2cQuick...)...)
	if err != nil {
		t.Fatal(err)
	}
	topo, _ := affinity.Host()
	wantName := fmt.Sprintf("C2C/mode=cas/class=%s/cpu_a=%d/cpu_b=%d-", c2c.ClassOf(topo, a, b), a, b)
	rd := benchfmt.NewReader(strings.NewReader(out), "c2c.txt")
	var names []string
	units := 0
	for rd.Scan() {
		switch r := rd.Result().(type) {
		case *benchfmt.Result:
			names = append(names, r.Name.String())
			if r.GetConfig("topology") != "real" || r.GetConfig("c2c-samples") != "5" {
				t.Errorf("result config topology=%q c2c-samples=%q", r.GetConfig("topology"), r.GetConfig("c2c-samples"))
			}
		case *benchfmt.UnitMetadata:
			units++
		case *benchfmt.SyntaxError:
			t.Errorf("contend c2c -bench output: %v", r)
		}
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], wantName) || units != 1 {
		t.Errorf("results %q with %d unit lines, want one named %sN and one unit line:\n%s", names, units, wantName, out)
	}
}

func TestC2CRunFakeAndHome(t *testing.T) {
	_, _, cpus := hostPair(t)
	out, err := runC2C(t, append([]string{"-cpus", cpus, "-fake-nodes", "2"}, c2cQuick...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "NOT REAL on topology fake-2") {
		t.Errorf("fake topology run does not say the home is not real:\n%s", out)
	}
	_, err = runC2C(t, append([]string{"-cpus", cpus, "-home", "1000"}, c2cQuick...)...)
	if err == nil || !strings.Contains(err.Error(), "home node 1000 is not online") {
		t.Errorf("-home 1000: error %v, want it named", err)
	}
}

// -o writes what c2c would print into a file instead.
func TestC2COutputFile(t *testing.T) {
	_, _, list := hostPair(t)
	out := filepath.Join(t.TempDir(), "c2c.txt")
	stdout, err := runC2C(t, "-cpus", list, "-samples", "10", "-rounds", "50", "-bench", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "Benchmark") {
		t.Errorf("c2c -o printed the results on stdout too:\n%s", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "BenchmarkC2C/mode=rw/") || !strings.Contains(string(b), "command: ") {
		t.Errorf("c2c -o file = %q, %v; want benchmark lines with their command", b, err)
	}
}
