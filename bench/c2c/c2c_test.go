package c2c

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/bench/resultfmt"
	"github.com/contend/contend/internal/fixture"
)

func TestClassOf(t *testing.T) {
	tests := []struct {
		machine string
		fake    int // split into this many fake nodes first, 0 for none
		a, b    int
		want    Class
	}{
		// 4 sockets, 2 nodes per socket, one L3 per node, 2 threads per core.
		{"64amd64-4s2n4ca2co", 0, 0, 1, ClassSMT},
		{"64amd64-4s2n4ca2co", 0, 1, 0, ClassSMT},
		{"64amd64-4s2n4ca2co", 0, 0, 2, ClassLLC},
		{"64amd64-4s2n4ca2co", 0, 0, 8, ClassPackage},
		{"64amd64-4s2n4ca2co", 0, 0, 16, ClassCross},
		{"64amd64-4s2n4ca2co", 0, 63, 0, ClassCross},
		// One L3 spans two nodes: sharing the cache wins over the node.
		{"fakecpuid1f-64intel64-2p4d2n2c2t", 0, 0, 1, ClassSMT},
		{"fakecpuid1f-64intel64-2p4d2n2c2t", 0, 0, 4, ClassLLC},
		{"fakecpuid1f-64intel64-2p4d2n2c2t", 0, 0, 8, ClassPackage},
		{"fakecpuid1f-64intel64-2p4d2n2c2t", 0, 0, 16, ClassCross},
		// Private L2 per cpu, no L3: cpus of one node share only the node.
		{"16amd64-8n2c", 0, 0, 1, ClassNode},
		{"16amd64-8n2c", 0, 0, 2, ClassCross},
		{"nonuma-4cpu", 0, 0, 1, ClassSMT},
		{"nonuma-4cpu", 0, 1, 2, ClassLLC},
		// arm64 guest: only L1s, no LLC (-1) on any cpu, so no pair is
		// llc: the node decides, then the package.
		{"arm64-virt-max-2n4cpu", 0, 0, 1, ClassNode},
		{"arm64-virt-max-2n4cpu", 0, 1, 3, ClassCross},
		// No cache directories; cpu 3 is offline, its package unknown.
		{"sparse-nodes", 0, 0, 1, ClassNode},
		{"sparse-nodes", 0, 0, 2, ClassCross},
		{"sparse-nodes", 0, 0, 3, ClassUnknown},
		// Fake nodes do not change the hardware's classes.
		{"nonuma-4cpu", 2, 1, 2, ClassLLC},
		{"nonuma-4cpu", 2, 0, 1, ClassSMT},
		// Not a pair.
		{"nonuma-4cpu", 0, 2, 2, ClassUnknown},
		{"nonuma-4cpu", 0, 0, 99, ClassUnknown},
		{"nonuma-4cpu", 0, -1, 0, ClassUnknown},
	}
	for _, tt := range tests {
		topo := fixture.Topology(t, tt.machine)
		if tt.fake > 0 {
			var err error
			if topo, err = topo.Fake(tt.fake); err != nil {
				t.Fatal(err)
			}
		}
		if got := ClassOf(topo, tt.a, tt.b); got != tt.want {
			t.Errorf("ClassOf(%s fake=%d, %d, %d) = %s, want %s", tt.machine, tt.fake, tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNewPlan(t *testing.T) {
	big := fixture.Topology(t, "64amd64-4s2n4ca2co")
	all64 := big.AllowedCPUs.Bits()
	tests := []struct {
		name     string
		topo     *affinity.Topology
		cpus     []int
		sel      Selection
		perClass int
		wantSel  Selection
		want     map[Class]int // chosen pairs per class
		total    map[Class]int
	}{
		{
			name: "sample 64", topo: big, cpus: all64, sel: Sample, perClass: 2, wantSel: Sample,
			want: map[Class]int{ClassSMT: 2, ClassLLC: 2, ClassPackage: 2, ClassCross: 2},
			// 32 cores; 8 per L3 less the SMT pairs; 8×8 across the
			// two nodes of each package; the rest of C(64,2) = 2016.
			total: map[Class]int{ClassSMT: 32, ClassLLC: 8*28 - 32, ClassPackage: 4 * 64, ClassCross: 2016 - 32 - 192 - 256},
		},
		{
			name: "auto 64 samples", topo: big, cpus: all64, sel: Auto, perClass: 1, wantSel: Sample,
			want: map[Class]int{ClassSMT: 1, ClassLLC: 1, ClassPackage: 1, ClassCross: 1},
		},
		{
			name: "auto 16 takes all", topo: big, cpus: all64[:16], sel: Auto, perClass: 1, wantSel: All,
			want: map[Class]int{ClassSMT: 8, ClassLLC: 2*28 - 8, ClassPackage: 64},
		},
		{
			name: "all, duplicates folded", topo: big, cpus: []int{16, 0, 1, 0}, sel: All, perClass: 1, wantSel: All,
			want: map[Class]int{ClassSMT: 1, ClassCross: 2},
		},
		{
			name: "class with fewer pairs than asked", topo: big, cpus: []int{0, 1, 2}, sel: Sample, perClass: 5, wantSel: Sample,
			want: map[Class]int{ClassSMT: 1, ClassLLC: 2},
		},
	}
	for _, tt := range tests {
		p, err := NewPlan(tt.topo, tt.cpus, tt.sel, tt.perClass)
		if err != nil {
			t.Errorf("%s: NewPlan(%v, %s, %d): %v", tt.name, tt.cpus, tt.sel, tt.perClass, err)
			continue
		}
		if p.Selection != tt.wantSel {
			t.Errorf("%s: selection %s, want %s", tt.name, p.Selection, tt.wantSel)
		}
		got := map[Class]int{}
		seen := map[[2]int]bool{}
		for _, pr := range p.Pairs {
			got[pr.Class]++
			if pr.A >= pr.B || seen[[2]int{pr.A, pr.B}] {
				t.Errorf("%s: pair %d,%d out of order or repeated", tt.name, pr.A, pr.B)
			}
			seen[[2]int{pr.A, pr.B}] = true
			if c := ClassOf(tt.topo, pr.A, pr.B); c != pr.Class {
				t.Errorf("%s: pair %d,%d labelled %s, is %s", tt.name, pr.A, pr.B, pr.Class, c)
			}
		}
		if !maps.Equal(got, tt.want) {
			t.Errorf("%s: chosen pairs per class %v, want %v", tt.name, got, tt.want)
		}
		if tt.total != nil && !maps.Equal(p.Total, tt.total) {
			t.Errorf("%s: total pairs per class %v, want %v", tt.name, p.Total, tt.total)
		}
	}
}

// Sampled pairs spread over the class instead of all starting at cpu 0.
func TestNewPlanSpreads(t *testing.T) {
	big := fixture.Topology(t, "64amd64-4s2n4ca2co")
	p, err := NewPlan(big, big.AllowedCPUs.Bits(), Sample, 4)
	if err != nil {
		t.Fatal(err)
	}
	firsts := map[int]bool{}
	for _, pr := range p.Pairs {
		if pr.Class == ClassSMT {
			firsts[pr.A] = true
		}
	}
	if len(firsts) != 4 {
		t.Errorf("smt pairs start at cpus %v, want 4 different cpus", firsts)
	}
}

func TestNewPlanErrors(t *testing.T) {
	sparse := fixture.Topology(t, "sparse-nodes")
	tests := []struct {
		cpus     []int
		sel      Selection
		perClass int
		want     string
	}{
		{nil, Sample, 4, "need at least 2 distinct cpus, got 0"},
		{[]int{0}, All, 1, "need at least 2 distinct cpus, got 1 (0)"},
		{[]int{1, 1}, All, 1, "need at least 2 distinct cpus, got 1 (1)"},
		{[]int{0, 3}, All, 1, "cpu 3 (position 2): cpu 3 is offline"},
		{[]int{0, 9}, All, 1, "cpu 9 (position 2): cpu 9 does not exist"},
		{[]int{-1, 0}, All, 1, "cpu -1 (position 1)"},
		{[]int{0, 1}, Sample, 0, "pairs per class 0"},
		{[]int{0, 1}, "some", 1, `unknown pair selection "some"`},
	}
	for _, tt := range tests {
		_, err := NewPlan(sparse, tt.cpus, tt.sel, tt.perClass)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewPlan(sparse-nodes, %v, %s, %d) error = %v, want it to contain %q", tt.cpus, tt.sel, tt.perClass, err, tt.want)
		}
	}
}

func TestParseModes(t *testing.T) {
	tests := []struct {
		in      string
		want    []Mode
		wantErr string
	}{
		{"rw", []Mode{ReadWrite}, ""},
		{"cas", []Mode{CAS}, ""},
		{"cas,rw", []Mode{CAS, ReadWrite}, ""},
		{"all", []Mode{ReadWrite, CAS}, ""},
		{"", nil, `unknown c2c mode "" at position 1`},
		{"rw,xchg", nil, `unknown c2c mode "xchg" at position 2`},
		{"rw,rw", nil, `c2c mode "rw" given twice`},
		{"RW", nil, `unknown c2c mode "RW"`},
	}
	for _, tt := range tests {
		got, err := ParseModes(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseModes(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseModes(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseHome(t *testing.T) {
	tests := []struct {
		in      string
		want    Home
		wantErr bool
	}{
		{"first", Home{Which: "first", Node: -1}, false},
		{"second", Home{Which: "second", Node: -1}, false},
		{"0", Home{Which: "node", Node: 0}, false},
		{"1023", Home{Which: "node", Node: 1023}, false},
		{"1024", Home{}, true},
		{"-1", Home{}, true},
		{"third", Home{}, true},
		{"", Home{}, true},
		{"0x1", Home{}, true},
	}
	for _, tt := range tests {
		got, err := ParseHome(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseHome(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("ParseHome(%q).String() = %q", tt.in, got.String())
		}
		if err != nil && !strings.Contains(err.Error(), tt.in) {
			t.Errorf("ParseHome(%q) error %q does not name the input", tt.in, err)
		}
	}
}

func FuzzParseHome(f *testing.F) {
	for _, s := range []string{"first", "second", "0", "7", "1023", "1024", "-1", "+3", "", "07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHome(s)
		if err != nil {
			return
		}
		again, err := ParseHome(h.String())
		if err != nil || again != h {
			t.Errorf("ParseHome(%q) = %+v, but its String %q parses to %+v, %v", s, h, h.String(), again, err)
		}
	})
}

func FuzzParseModes(f *testing.F) {
	for _, s := range []string{"rw", "cas", "all", "rw,cas", "cas,rw", "rw,", ",", "rw,rw", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseModes(s)
		if err != nil {
			return
		}
		var parts []string
		for _, m := range ms {
			parts = append(parts, string(m))
		}
		again, err := ParseModes(strings.Join(parts, ","))
		if err != nil || !slices.Equal(again, ms) {
			t.Errorf("ParseModes(%q) = %v, which joined parses to %v, %v", s, ms, again, err)
		}
	})
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Mode: "xchg"}, `unknown mode "xchg"`},
		{Config{Samples: -1}, "samples -1 out of range"},
		{Config{Rounds: -5}, "rounds -5 out of range"},
		{Config{Preheat: -1}, "negative preheat"},
		{Config{Stat: "mean"}, `unknown statistic "mean"`},
	}
	for _, tt := range tests {
		if _, err := tt.cfg.WithDefaults(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.cfg, err, tt.want)
		}
	}
	for _, in := range []Config{{}, {Warmup: -3}, {Samples: 7, Warmup: 2, Stat: "min", Mode: CAS}} {
		once, err := in.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		if twice, err := once.WithDefaults(); err != nil || twice != once {
			t.Errorf("defaults of %+v: once %+v, twice %+v, %v", in, once, twice, err)
		}
	}
	cfg, err := Config{Samples: 50}.WithDefaults()
	if err != nil || cfg.Mode != ReadWrite || cfg.Rounds != defaultRounds || cfg.Warmup != 5 || cfg.Home.Which != "first" || cfg.Stat != "median" {
		t.Errorf("defaults of {Samples: 50} = %+v, %v", cfg, err)
	}
}

// The hot loops' protocol, without pinning: each side steps the counter
// exactly as many times as asked and the answerer leaves on stopValue.
func TestLoops(t *testing.T) {
	if affinity.ProcsAtStart() < 2 {
		t.Skipf("GOMAXPROCS %d: two spinning goroutines need two Ps", affinity.ProcsAtStart())
	}
	for _, mode := range Modes {
		line := new(atomic.Uint64)
		const n, samples = 100, 3
		done := make(chan [2]uint64)
		go func() {
			var v uint64
			var k uint64
			for {
				var ok bool
				if mode == CAS {
					v, ok = answerCAS(line, v, n)
				} else {
					v, ok = answerRW(line, v, n)
				}
				if !ok {
					done <- [2]uint64{v, k}
					return
				}
				k++
			}
		}()
		var v uint64
		for range samples {
			if mode == CAS {
				v = pingCAS(line, v, n)
			} else {
				v = pingRW(line, v, n)
			}
		}
		line.Store(stopValue)
		got := <-done
		if v != 2*n*samples || got[1] != samples {
			t.Errorf("mode %s: pinger ended at %d, answerer did %d batches; want %d and %d", mode, v, got[1], 2*n*samples, samples)
		}
	}
}

// hostLine maps a line on the node of a host cpu for one end's tests, freed
// when the test ends, with a short configuration.
func hostLine(t *testing.T) (*lineMemory, []int, Config) {
	t.Helper()
	topo, cpus := benchtest.HostCPUs(t, 1)
	mem, err := allocLine(topo.NodeOf(cpus[0]), false, cpus[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mem.free)
	cfg, _ := Config{Samples: 3, Rounds: 10}.WithDefaults()
	return mem, cpus, cfg
}

// The pinging end gives up, rather than waiting for ever, when the answering
// end reports it left its cpu.
func TestPingSeesAnswererFail(t *testing.T) {
	mem, cpus, cfg := hostLine(t)
	ready := make(chan error, 1)
	start := make(chan struct{})
	var abort atomic.Bool
	errc := make(chan error)
	go func() {
		_, err := playEnd(cpus[0], "pinging", affinity.Probe(), ready, start, &abort, func(onCPU *affinity.ThreadProbe) (int64, error) {
			return ping(mem, cpus[0], cfg, onCPU, make([]float64, cfg.Samples))
		})
		errc <- err
	}()
	if err := <-ready; err != nil {
		t.Fatal(err)
	}
	close(start)
	if _, ok := answerRW(mem.line, 0, cfg.Rounds); !ok {
		t.Fatal("answerer met stopValue in the first sample")
	}
	mem.flag.Store(failValue)
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "answering end left its cpu") {
		t.Errorf("ping error = %v, want the answerer's failure", err)
	}
}

// onCPUAt is a cpuProbe that always answers one cpu.
type onCPUAt int

func (c onCPUAt) CPU() int { return int(c) }

// An end its check finds off its cpu stops with an error that names the end
// and says why the kernel moved it, and lets the other end go: the answerer
// raises failValue, the pinger writes stopValue. A pinned cpu that is not
// online (4095) reads as unplugged; an online one as moved from outside.
func TestOffCPUEnds(t *testing.T) {
	mem, cpus, cfg := hostLine(t)

	mem.line.Store(0)
	mem.flag.Store(0)
	errc := make(chan error)
	go func() {
		_, err := answer(mem, cpus[0], ReadWrite, cfg.Rounds, onCPUAt(cpus[0]+1))
		errc <- err
	}()
	pingRW(mem.line, 0, cfg.Rounds)
	want := fmt.Sprintf("answering end: found on cpu %d, pinned to cpu %d (its affinity was changed from outside?)", cpus[0]+1, cpus[0])
	if err := <-errc; err == nil || err.Error() != want {
		t.Errorf("answer off its cpu: %v, want %q", err, want)
	}
	if f := mem.flag.Load(); f != failValue {
		t.Errorf("answer off its cpu left flag %d, want failValue", f)
	}

	mem.line.Store(0)
	mem.flag.Store(0)
	go func() {
		_, err := ping(mem, 4095, cfg, onCPUAt(0), make([]float64, cfg.Samples))
		errc <- err
	}()
	if _, ok := answerRW(mem.line, 0, cfg.Rounds); !ok {
		t.Fatal("answerer met stopValue in the first sample")
	}
	mem.flag.Store(1)
	want = "pinging end: cpu 4095 went offline during the run (the kernel moved it to cpu 0)"
	if err := <-errc; err == nil || err.Error() != want {
		t.Errorf("ping off its cpu: %v, want %q", err, want)
	}
	if v := mem.line.Load(); v != stopValue {
		t.Errorf("ping off its cpu left the line at %d, want stopValue", v)
	}
}

func TestMeasure(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	fake, err := topo.Fake(2)
	if err != nil {
		t.Fatal(err)
	}
	a, b := cpus[0], cpus[1]
	tests := []struct {
		name     string
		topo     *affinity.Topology
		cfg      Config
		home     int
		homeReal bool
	}{
		{"rw", topo, Config{Mode: ReadWrite}, topo.NodeOf(a), true},
		{"cas", topo, Config{Mode: CAS}, topo.NodeOf(a), true},
		{"second", topo, Config{Home: Home{Which: "second"}, Stat: "min"}, topo.NodeOf(b), true},
		{"node", topo, Config{Home: Home{Which: "node", Node: topo.Nodes[0].ID}, Preheat: 1}, topo.Nodes[0].ID, true},
		{"fake", fake, Config{Home: Home{Which: "second"}}, fake.NodeOf(b), false},
	}
	for _, tt := range tests {
		cfg := tt.cfg
		cfg.Samples, cfg.Rounds, cfg.Warmup = 10, 50, 2
		r, err := Measure(tt.topo, a, b, cfg)
		if err != nil {
			t.Errorf("%s: Measure(%d, %d): %v", tt.name, a, b, err)
			continue
		}
		wantMode := cmp.Or(tt.cfg.Mode, ReadWrite)
		switch {
		case r.CPUA != a || r.CPUB != b || r.Mode != wantMode || r.Class != ClassOf(topo, a, b):
			t.Errorf("%s: result names %d,%d %s %s, want %d,%d %s %s", tt.name, r.CPUA, r.CPUB, r.Mode, r.Class, a, b, wantMode, ClassOf(topo, a, b))
		case !(r.MinNS > 0 && r.MinNS <= r.MedianNS) || math.IsInf(r.MedianNS, 0):
			t.Errorf("%s: min %v, median %v: want 0 < min ≤ median", tt.name, r.MinNS, r.MedianNS)
		case r.Samples != 10 || r.Rounds != 50:
			t.Errorf("%s: %d samples of %d rounds, want 10 of 50", tt.name, r.Samples, r.Rounds)
		case r.Checks != 2*12:
			t.Errorf("%s: %d on-cpu checks, want one per sample at each end (24)", tt.name, r.Checks)
		case !slices.Contains([]string{"RDTSCP TSC_AUX", "rseq cpu_id", "getcpu", "rseq cpu_id + getcpu", "getcpu + rseq cpu_id"}, r.Probe),
			affinity.Probe().FastPath() && r.Probe != "RDTSCP TSC_AUX":
			t.Errorf("%s: checks by %q (TSC_AUX trusted: %v)", tt.name, r.Probe, affinity.Probe().FastPath())
		case r.HomeNode != tt.home || r.HomeReal != tt.homeReal:
			t.Errorf("%s: home node %d real %v, want %d real %v", tt.name, r.HomeNode, r.HomeReal, tt.home, tt.homeReal)
		case r.Placed != "mbind" && r.Placed != "first-touch":
			t.Errorf("%s: placed by %q", tt.name, r.Placed)
		}
		wantNS := r.MedianNS
		if cfg.Stat == "min" {
			wantNS = r.MinNS
		}
		if r.NS != wantNS || r.Stat != cmp.Or(cfg.Stat, "median") {
			t.Errorf("%s: ns %v stat %q, want %v %q", tt.name, r.NS, r.Stat, wantNS, cmp.Or(cfg.Stat, "median"))
		}
		if tt.homeReal && r.MemNode >= 0 && r.MemNode != r.HomeNode {
			t.Errorf("%s: line on node %d, asked for node %d", tt.name, r.MemNode, r.HomeNode)
		}
	}
}

func TestMeasureBadInput(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 1)
	a := cpus[0]
	tests := []struct {
		b    int
		cfg  Config
		want string
	}{
		{4095, Config{}, "cpu 4095 does not exist"},
		{-1, Config{}, "cpu -1 does not exist"},
		{a, Config{}, "both ends on cpu"},
		{4095, Config{Mode: "xchg"}, `unknown mode "xchg"`},
		{-1, Config{Home: Home{Which: "node", Node: 1000}}, "cpu -1"}, // cpus are checked first
	}
	for _, tt := range tests {
		_, err := Measure(topo, a, tt.b, tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Measure(%d, %d, %+v) error = %v, want %q", a, tt.b, tt.cfg, err, tt.want)
		}
	}
	// A topology that lists a cpu this process cannot use gets past the
	// checks; the answering end's pin fails, and the error names the cpu
	// while the pinging end, already pinned, is released.
	if big := fixture.Topology(t, "64amd64-4s2n4ca2co"); topo.CheckCPU(0) == nil && topo.CheckCPU(63) != nil {
		_, err := Measure(big, 0, 63, Config{Samples: 1, Rounds: 1})
		if err == nil || !strings.Contains(err.Error(), "c2c pair 0,63: answering end: affinity: pinning to cpu 63") {
			t.Errorf("Measure(64-cpu fixture, 0, 63) error = %v, want the answering end's pin failure", err)
		}
	}
	if len(cpus) < 2 {
		return
	}
	_, cpus = benchtest.HostCPUs(t, 2)
	_, err := Measure(topo, cpus[0], cpus[1], Config{Home: Home{Which: "node", Node: 1000}})
	if err == nil || !strings.Contains(err.Error(), "home node 1000 is not online") {
		t.Errorf("home on node 1000: error %v, want it named", err)
	}
}

// A cancelled context stops the measurement after one sample, with the
// context's error and both ends released.
func TestMeasureCancel(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Measure(topo, cpus[0], cpus[1], Config{Samples: 1000, Rounds: 10, Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Measure with a cancelled context: error %v, want context.Canceled", err)
	}
}

func TestMeasureFloor(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	if _, err := MeasureFloor(topo, cpus[:1], Config{}); err == nil {
		t.Errorf("MeasureFloor on one cpu: no error")
	}
	f, err := MeasureFloor(topo, cpus, Config{Samples: 5, Rounds: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Pairs) != 1 || len(f.Classes) != 1 || f.Classes[0].Total != 1 {
		t.Fatalf("floor of 2 cpus: %d pairs, classes %+v; want one pair in one class", len(f.Pairs), f.Classes)
	}
	if f.NS != f.Pairs[0].NS || f.MinNS != f.NS || f.Mode != ReadWrite {
		t.Errorf("floor ns %v min %v mode %s, want the one pair's %v, rw", f.NS, f.MinNS, f.Mode, f.Pairs[0].NS)
	}
	if h := f.Handoffs(3 * f.NS); math.Abs(h-3) > 1e-9 {
		t.Errorf("Handoffs(3×floor) = %v, want 3", h)
	}
}

func TestSummarize(t *testing.T) {
	rs := []Result{
		{CPUA: 0, CPUB: 2, Mode: ReadWrite, Class: ClassLLC, NS: 30, MinNS: 25, Stat: "median"},
		{CPUA: 0, CPUB: 4, Mode: ReadWrite, Class: ClassLLC, NS: 10, MinNS: 9, Stat: "median"},
		{CPUA: 2, CPUB: 4, Mode: ReadWrite, Class: ClassLLC, NS: 20, MinNS: 19, Stat: "median"},
		{CPUA: 0, CPUB: 16, Mode: ReadWrite, Class: ClassCross, NS: 100, MinNS: 90, Stat: "median"},
		{CPUA: 0, CPUB: 1, Mode: CAS, Class: ClassSMT, NS: 8, MinNS: 7, Stat: "median"},
	}
	got := Summarize(rs, map[Class]int{ClassLLC: 10, ClassCross: 5})
	want := []ClassSummary{
		{Mode: ReadWrite, Class: ClassLLC, Pairs: 3, Total: 10, NS: 20, Stat: "median", MinNS: 9, MaxNS: 30, Example: [2]int{0, 2}},
		{Mode: ReadWrite, Class: ClassCross, Pairs: 1, Total: 5, NS: 100, Stat: "median", MinNS: 90, MaxNS: 100, Example: [2]int{0, 16}},
		{Mode: CAS, Class: ClassSMT, Pairs: 1, Total: 0, NS: 8, Stat: "median", MinNS: 7, MaxNS: 8, Example: [2]int{0, 1}},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Summarize =\n%+v\nwant\n%+v", got, want)
	}
}

func TestSetStats(t *testing.T) {
	tests := []struct {
		samples         []float64
		stat            Stat
		min, median, ns float64
	}{
		{[]float64{5}, "median", 5, 5, 5},
		{[]float64{9, 1, 5}, "median", 1, 5, 5},
		{[]float64{4, 1, 2, 3}, "median", 1, 2.5, 2.5},
		{[]float64{4, 1, 2, 3}, "min", 1, 2.5, 1},
	}
	for _, tt := range tests {
		var r Result
		in := slices.Clone(tt.samples)
		r.setStats(in, tt.stat)
		if r.MinNS != tt.min || r.MedianNS != tt.median || r.NS != tt.ns || r.Stat != tt.stat {
			t.Errorf("setStats(%v, %s) = min %v median %v ns %v, want %v %v %v", tt.samples, tt.stat, r.MinNS, r.MedianNS, r.NS, tt.min, tt.median, tt.ns)
		}
		if !slices.Equal(in, tt.samples) {
			t.Errorf("setStats reordered its input: %v", in)
		}
	}
}

// record's output reads back as a benchmark result whose name has the
// go test sub-benchmark's keys, then the pair.
func TestRecord(t *testing.T) {
	r := &Result{CPUA: 3, CPUB: 17, Mode: CAS, Class: ClassCross, MinNS: 90.5, MedianNS: 101.25, NS: 90.5, Stat: "min", Samples: 10, Rounds: 100}
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	for _, u := range resultfmt.UnitMeta(MinHandoff) {
		if err := w.Write(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(record(r, []benchfmt.Config{{Key: "topology", Value: []byte("real"), File: true}})); err != nil {
		t.Fatal(err)
	}
	rd := benchfmt.NewReader(&buf, "c2c.txt")
	var got *benchfmt.Result
	units := map[string]string{}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			got = rec.Clone()
		case *benchfmt.UnitMetadata:
			units[rec.OrigUnit] = rec.Value
		case *benchfmt.SyntaxError:
			t.Fatal(rec)
		}
	}
	if got == nil {
		t.Fatalf("no result read back from:\n%s", buf.String())
	}
	base, parts := got.Name.Parts()
	wantParts := []string{"/mode=cas", "/class=cross", "/cpu_a=3", "/cpu_b=17"}
	if string(base) != "C2C" || len(parts) != len(wantParts)+1 {
		t.Fatalf("name %q parts %q, want C2C%s-N", got.Name, parts, strings.Join(wantParts, ""))
	}
	for i, p := range wantParts {
		if string(parts[i]) != p {
			t.Errorf("name part %d = %q, want %q", i, parts[i], p)
		}
	}
	if got.Iters != 2*10*100 {
		t.Errorf("iters %d, want 2000 handoffs", got.Iters)
	}
	vals := map[string]float64{}
	for _, v := range got.Values {
		if v.OrigUnit == "" { // benchfmt left it as written
			v.OrigUnit, v.OrigValue = v.Unit, v.Value
		}
		vals[v.OrigUnit] = v.OrigValue
	}
	if want := map[string]float64{"ns/op": 101.25, "min-sec/op": 90.5e-9}; !maps.Equal(vals, want) {
		t.Errorf("values %v, want %v: ns/op is the median whatever Stat says", vals, want)
	}
	if units["min-sec/op"] != "lower" {
		t.Errorf("unit metadata %v, want min-sec/op better=lower", units)
	}
}

// An end that cannot pin says so on ready and never plays; an end whose
// partner failed (abort) does not play either, but unpins.
func TestEndPinFailureAndAbort(t *testing.T) {
	ready := make(chan error, 1)
	start := make(chan struct{})
	var abort atomic.Bool
	played := false
	play := func(*affinity.ThreadProbe) (int64, error) { played = true; return 1, nil }
	if _, err := playEnd(1000, "pinging", affinity.Probe(), ready, start, &abort, play); err != nil {
		t.Fatalf("playEnd(1000) = %v, want the failure on ready only", err)
	}
	if err := <-ready; err == nil || !strings.Contains(err.Error(), "pinging end") || !strings.Contains(err.Error(), "1000") {
		t.Errorf("ready got %v, want the pinging end's pin failure naming cpu 1000", err)
	}
	_, cpus := benchtest.HostCPUs(t, 1)
	abort.Store(true)
	close(start)
	done := make(chan error)
	go func() {
		_, err := playEnd(cpus[0], "answering", affinity.Probe(), ready, start, &abort, play)
		done <- err
	}()
	if err := <-ready; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || played {
		t.Errorf("aborted end: err %v, played %v; want neither", err, played)
	}
}
