package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/contend/contend/internal/reproduce"
)

func TestReproduceTable(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two cpus")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.txt")
	stdout, stderr, err := runContend("reproduce", "-count", "2", "-duration", "5ms", "-fake-nodes", "2", "-o", out)
	if err != nil {
		t.Fatalf("reproduce: %v\n%s", err, stderr)
	}
	for i := 1; i <= reproduce.NumFindings(); i++ {
		if !strings.Contains(stdout, "\n"+string(rune('0'+i))+". ") {
			t.Errorf("table lacks finding %d:\n%s", i, stdout)
		}
	}
	if !strings.Contains(stdout, "topology fake-2") {
		t.Errorf("a run on fake nodes must say so:\n%s", stdout)
	}
	// Finding 3 needs two nodes: on fake ones it runs and says they are fake.
	if strings.Contains(stdout, "one NUMA node here") {
		t.Errorf("finding 3 did not run on fake nodes:\n%s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(dir, "r.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(md), "\n| "); n != reproduce.NumFindings()+1 {
		t.Errorf("Markdown table has %d rows, want %d:\n%s", n, reproduce.NumFindings()+1, md)
	}
	readResultsT(t, out) // raw results parse as benchmark format
}

func TestReproduceBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", "-count", "0"}, "-count 0"},
		{[]string{"reproduce", "-quick", "-full"}, "exclude"},
		{[]string{"reproduce", "-fake-nodes", "0"}, "at least 1 node"},
		{[]string{"reproduce", "x"}, "unexpected argument"},
	} {
		_, _, err := runContend(tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("contend %v: error = %v, want %q", tt.args, err, tt.want)
		}
	}
}
