package bench

import "testing"

// TestLineState: a line moves on a read of another cpu's write not yet
// seen, and on a write while another cpu holds a copy or this one holds
// none; a cpu rereading or rewriting its own line does not move it.
func TestLineState(t *testing.T) {
	type op struct {
		cpu   int
		write bool
	}
	for _, tt := range []struct {
		name string
		ops  []op
		want LineCounts
	}{
		{"first touch moves", []op{{0, false}}, LineCounts{Reads: 1, Transfers: 1}},
		{"reread stays", []op{{0, false}, {0, false}}, LineCounts{Reads: 2, Transfers: 1}},
		{"own rewrite stays", []op{{0, true}, {0, true}}, LineCounts{Stores: 2, Transfers: 1}},
		{"read of another's write", []op{{0, true}, {1, false}, {1, false}}, LineCounts{Stores: 1, Reads: 2, Transfers: 2}},
		{"write after another read", []op{{0, true}, {1, false}, {0, true}}, LineCounts{Stores: 2, Reads: 1, Transfers: 3}},
		{"ping-pong", []op{{0, true}, {1, true}, {0, true}, {1, true}}, LineCounts{Stores: 4, Transfers: 4}},
		{"stale reader", []op{{0, false}, {1, true}, {0, false}}, LineCounts{Stores: 1, Reads: 2, Transfers: 3}},
	} {
		l := NewLineState(2)
		for _, o := range tt.ops {
			if o.write {
				l.Write(o.cpu, false)
			} else {
				l.Read(o.cpu)
			}
		}
		if l.N != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, l.N, tt.want)
		}
	}
	l := NewLineState(1)
	l.Write(0, true)
	if l.N.Locked != 1 || l.N.Stores != 0 {
		t.Errorf("a locked write counted as %+v", l.N)
	}
	if got := (LineCounts{Locked: 4, Stores: 2, Reads: 8, Transfers: 6}).PerSecond(2); got != (LineCounts{2, 1, 4, 3}) {
		t.Errorf("PerSecond(2) = %+v", got)
	}
}
