package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/internal/fixture"
)

// The test binary doubles as contend when CONTEND_TEST_MAIN is set, so tests
// can run the real command in a child process whose affinity they shaped.
func TestMain(m *testing.M) {
	if os.Getenv("CONTEND_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runContend(args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	err = run(&o, &e, args)
	return o.String(), e.String(), err
}

func TestHelpAndUnknownCommands(t *testing.T) {
	out, _, err := runContend("help")
	if err != nil || !strings.Contains(out, "sweep") || !strings.Contains(out, "topo") {
		t.Errorf("contend help = %q, %v; want the command list", out, err)
	}
	out, _, err = runContend("help", "run")
	if err != nil || !strings.Contains(out, "-threads") {
		t.Errorf("contend help run = %q, %v; want run's flags", out, err)
	}
	for _, args := range [][]string{{}, {"nosuch"}, {"help", "nosuch"}} {
		if _, _, err := runContend(args...); err == nil {
			t.Errorf("contend %v succeeded, want an error", args)
		}
	}
}

// fixtures is the directory of the real machines' sysfs trees.
var fixtures = fixture.Root("") + "/"

func TestTopo(t *testing.T) {
	out, _, err := runContend("topo")
	if err != nil || !strings.Contains(out, "topology  real") {
		t.Errorf("contend topo = %q, %v", out, err)
	}
	out, _, err = runContend("topo", "-fake-nodes", "2")
	if runtime.NumCPU() >= 2 && (err != nil || !strings.Contains(out, "fake-2")) {
		t.Errorf("contend topo -fake-nodes 2 = %q, %v; want it labelled fake-2", out, err)
	}
	out, _, err = runContend("topo", "-sysfs", fixtures+"16amd64-8n2c", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		NrNodeIDs int    `json:"nr_node_ids"`
		Topology  string `json:"topology"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.NrNodeIDs != 8 || v.Topology != "real" {
		t.Errorf("topo -json on 16amd64-8n2c = %+v, %v; want nr_node_ids 8, topology real", v, err)
	}
}

// Bad input gets one line naming the problem, never a panic.
func TestBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"topo", "-fake-nodes", "0"}, "at least 1 node"},
		{[]string{"topo", "-fake-nodes", fmt.Sprint(runtime.NumCPU() + 1)}, "fake nodes"},
		{[]string{"topo", "-sysfs", "/nonexistent"}, "/nonexistent"},
		{[]string{"topo", "-sysfs", fixtures + "garbage"}, "garbage"},
		{[]string{"topo", "-fake-nodes", "x"}, "invalid value"},
		{[]string{"topo", "x"}, `topo: unexpected argument "x"`},
		{[]string{"run"}, "want exactly one scenario"},
		{[]string{"run", "nosuch"}, `unknown scenario "nosuch"`},
		{[]string{"run", "atomicadd", "-cpus", "3-1"}, "3-1"},
		{[]string{"run", "atomicadd", "-cpus", "a"}, "unknown placement"},
		{[]string{"run", "atomicadd", "-cpus", "1,,2"}, "1,,2"},
		{[]string{"run", "atomicadd", "-cpus", "-1"}, "-1"},
		{[]string{"run", "atomicadd", "-cpus", "4000"}, "cpu 4000 does not exist"},
		{[]string{"run", "atomicadd", "-threads", fmt.Sprint(runtime.NumCPU() + 1)}, "; pass -oversubscribe to"}, // the flag has one dash (it said --)
		{[]string{"run", "atomicadd", "-threads", "0"}, "run: -threads 0: want at least 1 worker"},               // it ran 2
		{[]string{"run", "atomicadd", "-duration", "0"}, "-duration 0s: want a duration above 0 and at most 24h"},
		{[]string{"run", "atomicadd", "-cpus", "0", "-threads", "0"}, "-threads 0: want at least 1 worker"},
		{[]string{"run", "atomicadd", "-threads", "-2"}, "at least"},
		{[]string{"run", "atomicadd", "-variant", "line=both"}, `line="both": unknown value`},
		{[]string{"run", "atomicadd", "-variant", "color=red"}, "unknown variant key"},
		{[]string{"run", "atomicadd", "-duration", "0s"}, "-duration"},
		{[]string{"run", "atomicadd", "-ops", "-5"}, "-ops"},
		{[]string{"run", "atomicadd", "-place", "sideways"}, "unknown placement"},
		{[]string{"run", "atomicadd", "-sysfs", fixtures + "16amd64-8n2c"}, "another machine"},
		{[]string{"run", "atomicadd", "-place", "cross"}, "cross needs two nodes"},
		{[]string{"list", "nosuch"}, "unknown scenario"},
	}
	for _, tt := range tests {
		_, _, err := runContend(tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("contend %s: error = %v, want one line containing %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
}

func TestRunPrintsBenchmarkLine(t *testing.T) {
	out, summary, err := runContend("run", "atomicadd", "-ops", "20000", "-threads", "1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "\nBenchmarkAtomicAdd/line=shared/work=0/threads=1/place=compact-") || !strings.Contains(out, "topology: real") {
		t.Errorf("run output lacks the benchmark line or its configuration:\n%s", out)
	}
	if !strings.Contains(summary, "pinning verified") {
		t.Errorf("run summary lacks the pinning proof:\n%s", summary)
	}
	if runtime.NumCPU() < 2 {
		return
	}
	out, summary, err = runContend("run", "atomicadd", "-ops", "20000", "-fake-nodes", "2", "-place", "cross")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "topology: fake-2") || !strings.Contains(summary, "fake-2") {
		t.Errorf("a fake-node run must say so:\n%s\n%s", out, summary)
	}
}

// A CPU outside the process's affinity mask (as taskset or a cgroup cpuset
// would leave it) is refused by name. The child inherits the mask of the
// thread that starts it, so the test pins itself to CPU 0 and asks the child
// for CPU 1.
func TestRunRefusesDisallowedCPU(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two cpus")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	undo, err := affinity.Pin(0)
	if err != nil {
		t.Skipf("cannot pin to cpu 0: %v", err)
	}
	cmd := exec.Command(os.Args[0], "run", "atomicadd", "-cpus", "1", "-ops", "1000")
	cmd.Env = append(os.Environ(), "CONTEND_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Start()
	undo()
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	msg := strings.TrimSpace(stderr.String())
	if err == nil || !strings.Contains(msg, "cpu 1 is not in this process's allowed cpus 0") || strings.Count(msg, "\n") > 0 {
		t.Errorf("contend run -cpus 1 under affinity {0}: %v, stderr %q; want one line refusing cpu 1", err, msg)
	}
}
