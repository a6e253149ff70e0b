package nodemask

import (
	"testing"
)

// benchLayouts are the possible-node masks of the machines the kernel thread
// talks about: 1 to 8 dense nodes, and 8 sparse ids whose highest is 73, so
// nr_node_ids is 74 and the one-word fast path does not apply.
var benchLayouts = []struct {
	name string
	list string
	nr   int
}{
	{"1", "0", 1},
	{"2", "0-1", 2},
	{"4", "0-3", 4},
	{"8", "0-7", 8},
	{"sparse", "0-2,33-34,45,72-73", 74},
}

// sink keeps the compiler from discarding the walks.
var sink int64

// BenchmarkMaskWalk is the read side of a per-node counter (the tg->load_avg
// sum): walk the possible-node mask and add each node's value, with the three
// searches. The bench/ package has the full scenario; this one isolates the
// search. words-scanned/op comes from ScanWords, outside the timed loop.
func BenchmarkMaskWalk(b *testing.B) {
	var vals [MaxNumNodes]int64
	for i := range vals {
		vals[i] = int64(i)
	}
	for _, l := range benchLayouts {
		m, err := ParseMask(l.list)
		if err != nil {
			b.Fatal(err)
		}
		nr := l.nr
		b.Run("iter=max/nodes="+l.name, func(b *testing.B) {
			var sum int64
			for b.Loop() {
				for n := m.First(); n < MaxNumNodes; n = m.Next(n) {
					sum += vals[n]
				}
			}
			sink = sum
			_, words := m.ScanWords(MaxNumNodes)
			b.ReportMetric(float64(words), "words-scanned/op")
		})
		b.Run("iter=nr_node_ids/nodes="+l.name, func(b *testing.B) {
			var sum int64
			for b.Loop() {
				for n := m.NextBelow(-1, nr); n < nr; n = m.NextBelow(n, nr) {
					sum += vals[n]
				}
			}
			sink = sum
			_, words := m.ScanWords(nr)
			b.ReportMetric(float64(words), "words-scanned/op")
		})
		b.Run("iter=word/nodes="+l.name, func(b *testing.B) {
			if nr > WordBits {
				b.Skip("node ids reach 73: the one-word fast path cannot represent them")
			}
			var sum int64
			for b.Loop() {
				for n := m.NextSmall(-1); n < WordBits; n = m.NextSmall(n) {
					sum += vals[n]
				}
			}
			sink = sum
			_, words := m.ScanWords(WordBits)
			b.ReportMetric(float64(words), "words-scanned/op")
		})
	}
}

// BenchmarkBitmapWalk walks a CPU mask of nr_cpu_ids bits, for comparison
// with the node walks: the cost of a cpumask scan in a wakeup path.
func BenchmarkBitmapWalk(b *testing.B) {
	for _, l := range []struct{ name, list string }{
		{"one", "0"},
		{"first8", "0-7"},
		{"first64", "0-63"},
		{"every8th", "0-255:1/8"},
	} {
		cpus, err := ParseList(l.list)
		if err != nil {
			b.Fatal(err)
		}
		cpus.Resize(256)
		b.Run("cpus="+l.name+"/len=256", func(b *testing.B) {
			var sum int64
			for b.Loop() {
				for c := cpus.First(); c >= 0; c = cpus.Next(c) {
					sum += int64(c)
				}
			}
			sink = sum
		})
	}
}

// BenchmarkParse measures the parsers on sysfs-shaped input; they run at
// start-up, not in measured loops, so this only guards against regressions.
func BenchmarkParse(b *testing.B) {
	b.Run("form=list", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseList("0-2,33-34,45,72-73\n"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("form=hex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseHex("00000000,0000000f\n"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestWalksDoNotAllocate guards the hot-loop rule: iteration allocates
// nothing.
func TestWalksDoNotAllocate(t *testing.T) {
	m := MaskOf(0, 1, 33, 45)
	cpus := BitmapOf(0, 5, 64, 200)
	var sum int
	allocs := testing.AllocsPerRun(100, func() {
		for n := m.First(); n < MaxNumNodes; n = m.Next(n) {
			sum += n
		}
		for n := m.NextBelow(-1, 46); n < 46; n = m.NextBelow(n, 46) {
			sum += n
		}
		for n := m.NextSmall(-1); n < WordBits; n = m.NextSmall(n) {
			sum += n
		}
		for c := cpus.First(); c >= 0; c = cpus.Next(c) {
			sum += c
		}
		sum += m.Weight() + cpus.Weight()
		nodes, words := m.ScanWords(46)
		sum += nodes + words
	})
	if allocs != 0 {
		t.Errorf("walks allocate %v times per run, want 0", allocs)
	}
	_ = sum
}
