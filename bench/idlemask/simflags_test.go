package idlemask

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/bench/benchtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestSimFlags(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "32", "-llc", "16", "-duration", "2ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"32 virtual cpus in 2 LLCs", "80 times between two ticks", "v5 + Vincent", "mask writes/s", "probes/wakeup"} {
		if !strings.Contains(out, want) {
			t.Errorf("simulate idlemask lacks %q:\n%s", want, out)
		}
	}
	// -busy 0 and -wake 0 ask for none (SimConfig's -1), not the default.
	out, err = benchtest.Simulate(SimFlags, "-cpus", "8", "-llc", "4", "-duration", "2ms", "-busy", "0", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) == 0 {
		t.Fatalf("simulate idlemask -json = %v, %v; want rows:\n%s", rows, err, out)
	}
	def, err := benchtest.Simulate(SimFlags, "-cpus", "8", "-llc", "4", "-duration", "2ms", "-json")
	if err != nil || def == out {
		t.Errorf("simulate idlemask -busy 0 = the default's rows (%v): 0 read as the default", err)
	}
}

func TestSimFlagsBadInput(t *testing.T) {
	benchtest.CheckBadArgs(t, SimFlags, []benchtest.BadArgs{
		{Args: []string{"-cpus", "0"}, Want: "-cpus 0: want a positive value"},
		{Args: []string{"-entries", "0"}, Want: "-entries 0: want a positive value"},
		{Args: []string{"-llc", "50"}, Want: "llc 50: want a divisor"},
		{Args: []string{"-busy", "-1"}, Want: "-busy -1"},
		{Args: []string{"-wake", "-1"}, Want: "-wake -1"},
		{Args: []string{"-busy", "100"}, Want: "no idle entries"},
		{Args: []string{"-hz", "300"}, Want: "hz 300"},
		{Args: []string{"-probe", "0s"}, Want: "want positive durations"},
		{Args: []string{"-duration", "-1ms"}, Want: "want positive durations"},
	})
}

// TestSimFlagsGolden holds contend simulate idlemask's whole output to a
// file the command wrote before its flags moved here from cmd/contend; go
// test -run Golden -update rewrites it.
func TestSimFlagsGolden(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "48", "-llc", "24", "-duration", "5ms")
	if err != nil {
		t.Fatal(err)
	}
	benchtest.CheckGolden(t, filepath.Join("testdata", "simflags-48cpus.golden"), out, *update)
}
