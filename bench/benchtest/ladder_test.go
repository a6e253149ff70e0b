package benchtest

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/fixture"
	"golang.org/x/perf/benchunit"
)

func TestPlacesByNodes(t *testing.T) {
	t.Setenv("CONTEND_PLACE", "")
	for _, tt := range []struct {
		machine string
		fake    int
		want    string
	}{
		{fixture.NoNUMA, 0, "[compact]"},
		{fixture.NoNUMA, 2, "[compact spread cross]"},
		{fixture.AMD8Nodes, 0, "[compact spread cross]"},
	} {
		topo := fixture.Topology(t, tt.machine)
		if tt.fake > 0 {
			topo = fixture.Fake(t, tt.machine, tt.fake)
		}
		got, err := Places(topo)
		if err != nil || fmt.Sprint(got) != tt.want {
			t.Errorf("Places(%s fake=%d) = %v, %v; want %s", tt.machine, tt.fake, got, err, tt.want)
		}
	}
}

// Configs climbs the ladder from the scenario's least worker count, runs
// one worker once (every policy places it alike) unless compact is not
// asked for, reads the lists in bench/configlist's grammar (tested there)
// and fails on a malformed environment with a one-line error naming it.
func TestConfigs(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD8Nodes) // 16 cpus, 8 nodes of 2
	for _, tt := range []struct {
		threads, place string
		minWorkers     int
		want           string
	}{
		{"1,4", "", 1, "[{1 compact} {4 compact} {4 spread} {4 cross}]"},
		{"", "compact", 2, "[{2 compact} {4 compact} {8 compact} {16 compact}]"},
		{"1,2", "spread", 1, "[{1 spread} {2 spread}]"},
		{"1,2", "cross,spread", 2, "[{2 cross} {2 spread}]"},
		{"max", "compact;0-3", 1, "[{16 compact} {16 cpus:0..3}]"},
		{"1,2", "0-3", 1, "[{1 cpus:0..3} {2 cpus:0..3}]"}, // a cpu list places one worker as it says
		{"1,x", "", 1, `!CONTEND_THREADS="1,x": "x" is not a positive worker count`},
		{"2", "sideways", 1, `!CONTEND_PLACE="sideways": affinity: unknown placement "sideways"`},
	} {
		t.Setenv("CONTEND_THREADS", tt.threads)
		t.Setenv("CONTEND_PLACE", tt.place)
		got, err := configs(topo, tt.minWorkers)
		if want, isErr := strings.CutPrefix(tt.want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("configs(threads %q, place %q) error = %v, want one line containing %q", tt.threads, tt.place, err, want)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tt.want {
			t.Errorf("configs(threads %q, place %q, min %d) = %v, %v; want %s", tt.threads, tt.place, tt.minWorkers, got, err, tt.want)
		}
	}
}

// What go test prints of a time unit reads back, through benchfmt's tidying,
// as the unit and value contend's own files carry.
func TestGoTestValue(t *testing.T) {
	for _, tt := range []struct {
		unit     string
		v        float64
		wantUnit string
		wantV    float64
	}{
		{"hold-sec/op", 3e-9, "hold-ns/op", 3},
		{"p50-sec", 2.5e-8, "p50-ns", 25},
		{"sec/migration", 2e-7, "ns/migration", 200},
		{"cfsrq-writes/kernel-sec", 960, "cfsrq-writes/kernel-sec", 960}, // seconds below the line: not a time
		{"flag-%", 1.5, "flag-%", 1.5},
		{"hold-sec/op", 0, "hold-sec/op", 0},
		{"seconds-ish/op", 1e-9, "seconds-ish/op", 1e-9},
	} {
		v, u := GoTestValue(bench.Metric{Unit: bench.Unit{Name: tt.unit}, Value: tt.v})
		if u != tt.wantUnit || math.Abs(v-tt.wantV) > 1e-9*math.Abs(tt.wantV) {
			t.Errorf("GoTestValue(%v %s) = %v %s, want %v %s", tt.v, tt.unit, v, u, tt.wantV, tt.wantUnit)
		}
		// benchfmt's tidying brings it back to the file's unit.
		if tv, tu := benchunit.Tidy(v, u); tt.v != 0 && (tu != tt.unit || math.Abs(tv-tt.v) > 1e-12*math.Abs(tt.v)) {
			t.Errorf("tidied %v %s = %v %s, want %v %s", v, u, tv, tu, tt.v, tt.unit)
		}
	}
}
