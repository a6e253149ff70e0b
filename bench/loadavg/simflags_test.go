package loadavg

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/bench/benchtest"
)

func TestSimFlags(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "8", "-duration", "20ms", "-variants", "base,rate")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"8 cpus", "2 levels below the root", "base", "rate", "sum", "updates/5s", "tg_weight err %", "range over the cells"} {
		if !strings.Contains(out, want) {
			t.Errorf("simulate output lacks %q:\n%s", want, out)
		}
	}
	out, err = benchtest.Simulate(SimFlags, "-cpus", "8", "-levels", "1", "-duration", "20ms", "-variants", "base", "-sensitivity=false")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "8 cfs_rqs of one task group") || strings.Contains(out, "range over the cells") {
		t.Errorf("simulate -levels 1 -sensitivity=false: want the one-level table alone:\n%s", out)
	}
	out, err = benchtest.Simulate(SimFlags, "-cpus", "4", "-duration", "10ms", "-variants", "base", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["Name"] != "base" {
		t.Errorf("simulate -json = %v, %v; want one row named base:\n%s", rows, err, out)
	}
}

func TestSimFlagsBadInput(t *testing.T) {
	benchtest.CheckBadArgs(t, SimFlags, []benchtest.BadArgs{
		{Args: []string{"-cpus", "0"}, Want: "-cpus 0: want a positive value"},
		{Args: []string{"-levels", "0"}, Want: "-levels 0: want a positive value"},
		{Args: []string{"-levels", "4"}, Want: "levels 4 out of range [1, 3]"},
		{Args: []string{"-cpus", "100000"}, Want: "cpus 100000 out of range"},
		{Args: []string{"-gap", "0s"}, Want: "-gap 0: want a positive value"},
		{Args: []string{"-sens-duration", "0s"}, Want: "-sens-duration 0: want a positive value"},
		{Args: []string{"-mig", "101"}, Want: `invalid value "101" for flag -mig: mig "101": want a percentage in [0, 100]`},
		{Args: []string{"-mig", "-1"}, Want: `invalid value "-1" for flag -mig`},
		{Args: []string{"-hz", "300"}, Want: "hz 300"},
		{Args: []string{"-variants", "nosuch"}, Want: "nosuch"},
		{Args: []string{"-duration", "2h"}, Want: "duration"},
	})
}

// -mig hands the library its own value: no -mig is the seed's 79%, 0 is
// none (the command no longer turns 0 into -1), a count is that share.
func TestSimFlagsMig(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "mig=79%"},
		{[]string{"-mig", "0"}, "mig=0%"},
		{[]string{"-mig", "50"}, "mig=50%"},
		{[]string{"-mig", "79"}, "mig=79%"},
	} {
		args := append([]string{"-cpus", "4", "-duration", "10ms", "-sens-duration", "10ms", "-variants", "base"}, tt.args...)
		out, err := benchtest.Simulate(SimFlags, args...)
		if err != nil || !strings.Contains(out, tt.want) {
			t.Errorf("simulate loadavg %v: %v; want %q in:\n%s", args, err, tt.want, out)
		}
		if tt.want == "mig=0%" && !strings.Contains(out, "migrations (0%)") {
			t.Errorf("simulate loadavg %v: want no migrations:\n%s", args, out)
		}
	}
}

// TestSimFlagsGolden holds contend simulate loadavg's whole output, the
// seed's table and the sensitivity table after it, to a file the command
// wrote before its flags moved here from cmd/contend (sim_test.go's
// goldens hold the seed's table alone); go test -run Golden -update
// rewrites it.
func TestSimFlagsGolden(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "4", "-duration", "20ms", "-sens-duration", "10ms")
	if err != nil {
		t.Fatal(err)
	}
	benchtest.CheckGolden(t, filepath.Join("testdata", "simflags-4cpus.golden"), out, *update)
}
