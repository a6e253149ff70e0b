package affinity

import (
	"strings"
	"testing"

	"github.com/contend/contend/nodemask"
)

func TestWithin(t *testing.T) {
	topo := tree(t, "64amd64-4s2n4ca2co")
	w, err := topo.Within(nodemask.BitmapOf(0, 1, 8, 9))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.AllowedCPUs.String(); got != "0-1,8-9" {
		t.Errorf("Within: allowed %s, want 0-1,8-9", got)
	}
	if topo.AllowedCPUs.Weight() != 64 {
		t.Errorf("Within changed the original: allowed %s", topo.AllowedCPUs)
	}
	cpus, err := Placement{Policy: Spread}.Assign(w, 4, false)
	if err != nil || len(cpus) != 4 {
		t.Fatalf("spread over the restricted set: %v, %v", cpus, err)
	}
	for _, c := range cpus {
		if !w.AllowedCPUs.Test(c) {
			t.Errorf("spread placed a worker on cpu %d, outside %s", c, w.AllowedCPUs)
		}
	}
	if _, err := (Placement{Policy: Compact}).Assign(w, 5, false); err == nil {
		t.Errorf("5 workers on 4 allowed cpus: no error")
	}
	for _, tc := range []struct {
		bad  nodemask.Bitmap
		want string
	}{
		{nodemask.BitmapOf(), "empty"},
		{nodemask.BitmapOf(0, 64), "cpu 64 is not among"}, // one cpu: "cpus 64 are" read wrong
		{nodemask.BitmapOf(0, 64, 65), "cpus 64-65 are not among"},
	} {
		if _, err := topo.Within(tc.bad); err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Within(%s) error = %v, want one line with %q", tc.bad, err, tc.want)
		}
	}
}

func TestUsableNodes(t *testing.T) {
	topo := tree(t, "64amd64-4s2n4ca2co")
	if got := topo.UsableNodes(); got != 8 {
		t.Errorf("UsableNodes() = %d, want 8", got)
	}
	// cpus 0-7 are node 0, 8 is node 1: taskset to those leaves two.
	w, err := topo.Within(nodemask.BitmapOf(0, 1, 8))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.UsableNodes(); got != 2 {
		t.Errorf("UsableNodes() within cpus 0,1,8 = %d, want 2", got)
	}
}
