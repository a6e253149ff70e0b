package wakeup

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contend/contend/bench/benchtest"
)

func TestSimFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"-cpus", "4", "-threads", "4", "-duration", "50ms", "-warmup", "0"},
			[]string{"s390 guest, HZ 100", "~27K", "~2K", "llcstats", "basic", "v6.1", "migrations/5s", "wake_affine", "newidle", "nohz", "active", "4 cpus: migrations llcstats/basic"}},
		{[]string{"-cpus", "8", "-topo", "llc4", "-threads", "8", "-duration", "100ms", "-warmup", "100ms", "-io", "200us", "-irq", "local"},
			[]string{"llc4 guest, HZ 250", "commit flush 200µs (irq local)", "select_idle_sibling"}},
	} {
		out, err := benchtest.Simulate(SimFlags, tt.args...)
		if err != nil {
			t.Fatalf("simulate wakeup %v: %v", tt.args, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("simulate wakeup %v lacks %q:\n%s", tt.args, w, out)
			}
		}
	}
	out, err := benchtest.Simulate(SimFlags, "-cpus", "2", "-duration", "10ms", "-warmup", "0", "-policies", "basic", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["Policy"] != "basic" {
		t.Errorf("simulate wakeup -json = %v, %v; want one row for basic:\n%s", rows, err, out)
	}
}

func TestSimFlagsBadInput(t *testing.T) {
	benchtest.CheckBadArgs(t, SimFlags, []benchtest.BadArgs{
		{Args: []string{"-cpus", "1"}, Want: "cpus 1 out of range"},
		{Args: []string{"-cpus", "0"}, Want: "cpus 0 out of range"},
		{Args: []string{"-cpus", "8,x"}, Want: `"x" is not a whole number`},
		{Args: []string{"-topo", "llc3", "-cpus", "8"}, Want: "do not nest"},
		{Args: []string{"-topo", "numa"}, Want: `topology "numa"`},
		{Args: []string{"-threads", "0"}, Want: "-threads 0: want a positive value"},
		{Args: []string{"-hz", "200"}, Want: "hz 200"},
		{Args: []string{"-servers", "0"}, Want: "-servers 0: want a positive value"},
		{Args: []string{"-threads", "4", "-servers", "5"}, Want: "servers 5 out of range [1, threads 4]"},
		{Args: []string{"-think", "0s"}, Want: "-think 0s: want a positive duration"},
		{Args: []string{"-duration", "-1s"}, Want: "-duration -1s"},
		{Args: []string{"-io", "-1ms"}, Want: "-io -1ms"},
		{Args: []string{"-warmup", "-1s"}, Want: "-warmup -1s"},
		{Args: []string{"-irq", "msi"}, Want: `irq "msi"`},
		{Args: []string{"-policies", "fancy"}, Want: `policy "fancy"`},
		{Args: []string{"-test", "cpu"}, Want: `test "cpu"`},
		{Args: []string{"-locks", "0"}, Want: "-locks 0: want a positive value"},
		{Args: []string{"-yield", "0s"}, Want: "-yield 0s: want a positive duration"},
		{Args: []string{"-figures", "-chip", "1"}, Want: "chip 1 out of range"},
		{Args: []string{"-figures", "-ivb-cores", "15,x"}, Want: `"x" is not a whole number`},
		{Args: []string{"-figures", "-ivb-cores", "40"}, Want: "ivb-ex cores 40 out of range"},
	})
}
