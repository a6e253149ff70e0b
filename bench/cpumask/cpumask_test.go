package cpumask

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// start builds variant for workers on nodes, without the runner.
func start(t *testing.T, variant string, nodes []int) *cpumask {
	t.Helper()
	s := benchtest.New(t, "cpumask", variant).(*cpumask)
	if err := s.Start(&bench.Env{CPUs: make([]int, len(nodes)), Nodes: nodes}); err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		if _, err := s.Worker(bench.WorkerInfo{Index: i, Workers: len(nodes), Node: nodes[i]}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func line(p unsafe.Pointer) uintptr { return uintptr(p) / 64 }

// TestLayout checks which lines the masks and the count land on: groups
// never share a line, and the count shares the mask's only with
// vec=shared.
func TestLayout(t *testing.T) {
	nodes := []int{0, 0, 1, 1}
	for _, c := range []struct {
		variant     string
		groups      int
		countOnMask bool
	}{
		{"split=global", 1, false},
		{"split=node", 2, false},
		{"split=llc", 1, false}, // no topology: one LLC
		{"split=node/store=byte", 2, false},
		{"vec=shared", 1, true},
		{"vec=padded", 1, false},
		{"split=node/vec=padded", 2, false},
	} {
		t.Run(c.variant, func(t *testing.T) {
			s := start(t, c.variant, nodes)
			lines := map[uintptr]int{} // line → group
			for i, w := range s.workers {
				p := unsafe.Pointer(w.word)
				if w.byteAt != nil {
					p = unsafe.Pointer(w.byteAt)
				}
				l := line(p)
				if g, ok := lines[l]; ok && g != s.group[i] {
					t.Errorf("worker %d (group %d) writes the line of group %d", i, s.group[i], g)
				}
				lines[l] = s.group[i]
				if uintptr(p)%uintptr(bench.LinePad) != 0 && s.rank[i] == 0 && !c.countOnMask {
					t.Errorf("group %d's mask at %#x does not start a %d-byte block", s.group[i], uintptr(p), bench.LinePad)
				}
			}
			if len(lines) != c.groups {
				t.Errorf("workers write %d lines, want %d", len(lines), c.groups)
			}
			if s.count != nil {
				_, onMask := lines[line(unsafe.Pointer(s.count))]
				if onMask != c.countOnMask {
					t.Errorf("count on a mask line = %v, want %v", onMask, c.countOnMask)
				}
			}
		})
	}
}

func TestLineSharing(t *testing.T) {
	for _, c := range []struct {
		name           string
		group, rank    []int
		nodes          []int
		bytes          bool
		writers, cross float64
	}{
		{"global, 2 nodes", []int{0, 0, 0, 0}, []int{0, 1, 2, 3}, []int{0, 0, 1, 1}, false, 4, 100},
		{"per node", []int{0, 0, 1, 1}, []int{0, 1, 0, 1}, []int{0, 0, 1, 1}, false, 2, 0},
		{"one node", []int{0, 0}, []int{0, 1}, []int{0, 0}, false, 2, 0},
		{"bytes over two lines", []int{0, 0, 0}, []int{0, 63, 64}, []int{0, 0, 1}, true, 5.0 / 3, 0},
		{"bits over two lines", []int{0, 0}, []int{0, 512}, []int{0, 1}, false, 1, 0},
		{"none", nil, nil, nil, false, 0, 0},
	} {
		w, x := lineSharing(c.group, c.rank, c.nodes, c.bytes)
		if w != c.writers || x != c.cross {
			t.Errorf("%s: lineSharing = %v, %v, want %v, %v", c.name, w, x, c.writers, c.cross)
		}
	}
}

// TestWritesAlternate drives the workers by hand: each write flips the
// worker's bit, the count follows the bits, and Finish catches a lost write.
func TestWritesAlternate(t *testing.T) {
	for _, variant := range []string{"split=global", "split=node/store=byte", "vec=shared", "split=node/vec=padded/work=3"} {
		t.Run(variant, func(t *testing.T) {
			s := start(t, variant, []int{0, 1, 1})
			for i, w := range s.workers {
				w.Run(i + 1) // 1, 2 and 3 writes: on, off, on
			}
			res := &bench.Result{Ops: 6}
			if err := s.Finish(res); err != nil {
				t.Fatal(err)
			}
			if s.count != nil && s.count.Load() != 2 {
				t.Errorf("count = %d, want 2", s.count.Load())
			}
			// Lose worker 0's set.
			w := s.workers[0]
			if w.byteAt != nil {
				*w.byteAt = 0
			} else {
				*w.word &^= w.bit
			}
			if err := s.Finish(&bench.Result{Ops: 6}); err == nil || !strings.Contains(err.Error(), "lost") {
				t.Errorf("Finish after a lost write = %v, want an error saying so", err)
			}
			if err := s.Finish(&bench.Result{Ops: 7}); err == nil {
				t.Error("Finish with a wrong op count passed")
			}
		})
	}
}

// TestFindLines follows __cpupri_find() over two per-node masks: the first
// worker's search finds only its own bit and reads both masks; the second's
// finds the first's in the other mask.
func TestFindLines(t *testing.T) {
	s := start(t, "split=node/vec=padded", []int{0, 1})
	s.workers[0].Run(1)
	s.workers[1].Run(1)
	for i, w := range s.workers {
		if w.lines != 2 {
			t.Errorf("worker %d searched %d lines, want 2", i, w.lines)
		}
	}
	res := &bench.Result{Ops: 2}
	if err := s.Finish(res); err != nil {
		t.Fatal(err)
	}
	if got := benchtest.Metric(t, res, FindLines); got != 2 {
		t.Errorf("find-lines/op = %v, want 2", got)
	}
	off := start(t, "split=node", []int{0, 1})
	off.workers[0].Run(5)
	if off.workers[0].lines != 0 {
		t.Errorf("vec=off searched %d lines, want none", off.workers[0].lines)
	}
}

// TestRunnerCounts runs every quick variant through the runner on the
// host's cpus: Finish cross-checks bits, count and operations.
func TestRunnerCounts(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, min(2, runtime.NumCPU()))
	for _, variant := range quick {
		t.Run(variant, func(t *testing.T) {
			res, err := bench.Run(benchtest.New(t, "cpumask", variant), bench.Config{Topology: topo, CPUs: cpus, Ops: 20000})
			if err != nil {
				t.Fatal(err)
			}
			if got := benchtest.Metric(t, res, LineWriters); got != float64(len(cpus)) && !strings.Contains(variant, "split=node") && topo.UsableNodes() == 1 && len(topo.LLCs) == 1 {
				t.Errorf("line-writers = %v on one node and LLC, want %d", got, len(cpus))
			}
		})
	}
}

func TestVariants(t *testing.T) {
	benchtest.CheckVariants(t, "cpumask", [][2]string{
		{"", "split=global/store=lock/vec=off/work=0"},
		{"store=byte/split=llc", "split=llc/store=byte/vec=off/work=0"},
		{"vec=padded/split=node", "split=node/store=lock/vec=padded/work=0"},
		{"vec=shared", "split=global/store=lock/vec=shared/work=0"},
		{"split=socket", `!split="socket": unknown value (want global|node|llc)`},
		{"store=byte/vec=padded", "!vec=padded needs store=lock"},
		{"vec=shared/split=node", "!vec=shared needs split=global"},
		{"work=-1", "!out of range"},
		{"mask=global", "!unknown"},
	})
}

func FuzzCpumaskVariant(f *testing.F) {
	for _, seed := range []string{
		"", "split=node", "split=llc/store=byte", "vec=shared", "split=node/vec=padded",
		"store=byte/vec=shared", "vec=shared/split=llc", "work=100001", "split=global/split=node", "a=b",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, variant string) {
		s, err := newCpumask(variant)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "cpumask: ") {
				t.Errorf("newCpumask(%q) error is not one line naming the scenario: %q", variant, err)
			}
			return
		}
		again, err := newCpumask(s.Variant())
		if err != nil || again.Variant() != s.Variant() {
			t.Errorf("newCpumask(%q).Variant() = %q, which parses to %v, %v", variant, s.Variant(), again, err)
		}
	})
}
