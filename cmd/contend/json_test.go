package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/internal/results"
)

// sweep -json prints one object per result as it is written, and still
// writes the results file, the primary record.
func TestSweepJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, []string{"sweep", "-scenarios", "atomicadd", "-threads", "1", "-count", "2", "-duration", "10ms", "-no-floor", "-json", "-o", out})
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, stderr.String())
	}
	var objs []results.JSON
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var j results.JSON
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			t.Fatalf("sweep -json line %q: %v", sc.Text(), err)
		}
		objs = append(objs, j)
	}
	recs := readResultsT(t, out)
	if len(objs) != 4 || len(recs) != 4 { // 2 quick variants × count 2
		t.Fatalf("%d JSON objects and %d results, want 4 of each", len(objs), len(recs))
	}
	for i, j := range objs {
		if j.Name != recs[i].Name.String() || j.Scenario != "atomicadd" || len(j.Workers) != 1 || j.Workers[0].Ops != j.Ops {
			t.Errorf("object %d: name %q (file: %q), scenario %q, %d workers", i, j.Name, recs[i].Name, j.Scenario, len(j.Workers))
		}
		if v, _ := recs[i].Value("sec/op"); math.Abs(v*1e9-j.NsPerOp) > 1e-9*j.NsPerOp {
			t.Errorf("object %d: ns_per_op %v, file %v", i, j.NsPerOp, v*1e9)
		}
	}
	if strings.Contains(stdout.String(), "sec/op:") {
		t.Errorf("sweep -json printed a table too:\n%s", stdout.String())
	}
}
