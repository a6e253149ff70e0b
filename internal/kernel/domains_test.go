package kernel

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadDomains reads a fake root laid out as a 6.1 guest's: debugfs's
// names and flags beside /proc/schedstat's spans (the schedstat package's
// 6.1 fixture's lines, laid out for four cpus with two levels, spans 2
// and 4).
func TestReadDomains(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadDomains(root); err == nil || !strings.Contains(err.Error(), "debugfs") {
		t.Errorf("no debugfs: err %v, want one naming debugfs", err)
	}
	b, err := os.ReadFile("schedstat/testdata/schedstat-6.1")
	if err != nil {
		t.Fatal(err)
	}
	var cpuLine, domLine string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "cpu0 ") {
			cpuLine = l
		}
		if strings.HasPrefix(l, "domain0 ") && domLine == "" {
			domLine = strings.Join(strings.Fields(l)[2:], " ")
		}
	}
	st := "version 15\ntimestamp 4295012345\n"
	for cpu, low := range []string{"00000003", "00000003", "0000000c", "0000000c"} {
		st += strings.Replace(cpuLine, "cpu0", "cpu"+string(rune('0'+cpu)), 1) + "\n"
		st += "domain0 " + low + " " + domLine + "\ndomain1 0000000f " + domLine + "\n"
	}
	write("proc/schedstat", st)
	d := "sys/kernel/debug/sched/domains/cpu0/"
	write(d+"domain0/name", "MC\n")
	write(d+"domain0/flags", "SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_PKG_RESOURCES SD_PREFER_SIBLING\n")
	write(d+"domain1/name", "NUMA\n")
	write(d+"domain1/flags", "SD_BALANCE_NEWIDLE SD_SERIALIZE SD_OVERLAP SD_NUMA\n")
	write(d+"domain0/max_newidle_lb_cost", "2100\n")
	write(d+"domain1/max_newidle_lb_cost", "37319030\n")
	got, err := ReadDomains(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []SchedDomain{{"MC", 2, false, 2100}, {"NUMA", 4, true, 37319030}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadDomains = %+v, want %+v", got, want)
	}
	if s := DomainsString(got); s != "MC:2 NUMA:4+serialize" {
		t.Errorf("DomainsString = %q", s)
	}
	if s := NewidleCostsString(got); s != "2100 37319030" {
		t.Errorf("NewidleCostsString = %q", s)
	}
	if s := NewidleCostsString([]SchedDomain{{"MC", 2, false, 0}}); s != "" {
		t.Errorf("NewidleCostsString without costs = %q, want none", s)
	}
	for i := range want {
		want[i].NewidleCostNs = 0 // the config's domains carry no costs
	}
	if back, err := ParseDomains(DomainsString(got)); err != nil || !reflect.DeepEqual(back, want) {
		t.Errorf("ParseDomains(DomainsString) = %+v, %v", back, err)
	}
	for _, bad := range []string{"MC", "MC:x", ":4", "MC:0"} {
		if _, err := ParseDomains(bad); err == nil {
			t.Errorf("ParseDomains(%q) succeeded", bad)
		}
	}
}
