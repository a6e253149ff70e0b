package balanceflag

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contend/contend/bench/ksim"
)

// shapeString is a topology's levels, lowest first: kind weight/group
// weight, and S for SD_SERIALIZE.
func shapeString(t topology) string {
	var ss []string
	for _, sh := range t.shapes() {
		s := fmt.Sprintf("%s %d/%d", kindNames[sh.kind], sh.weight, sh.groupW)
		if sh.serialize {
			s += " S"
		}
		ss = append(ss, s)
	}
	return strings.Join(ss, ", ")
}

// Every NUMA level is SD_SERIALIZE; with SNC a CPU has two, the socket's
// (grouped by node) and the machine's (grouped by socket).
func TestBfShapes(t *testing.T) {
	for _, tt := range []struct {
		topo topology
		want string
	}{
		{topology{cpus: 32, smt: 2, group: 16, snc: 1}, "smt 2/1, llc 16/2, all 32/16 S"},
		{topology{cpus: 512, smt: 2, group: 128, snc: 2}, "smt 2/1, llc 128/2, socket 256/128 S, all 512/256 S"},
		{topology{cpus: 504, smt: 2, group: 84, snc: 3}, "smt 2/1, llc 84/2, socket 252/84 S, all 504/252 S"},
		// One socket: its clusters are the machine, one NUMA level.
		{topology{cpus: 256, smt: 2, group: 128, snc: 2}, "smt 2/1, llc 128/2, all 256/128 S"},
		{topology{cpus: 2, smt: 1, group: 1, snc: 1}, "all 2/1 S"},
		{topology{cpus: 8, smt: 2, group: 2, snc: 1}, "smt 2/1, all 8/2 S"},
	} {
		if got := shapeString(tt.topo); got != tt.want {
			t.Errorf("%+v: levels %s, want %s", tt.topo, got, tt.want)
		}
		if err := tt.topo.check(); err != nil {
			t.Errorf("%+v: %v", tt.topo, err)
		}
	}
	for _, tt := range []struct {
		topo topology
		want string
	}{
		{topology{cpus: 32, smt: 2, group: 3, snc: 1}, "not a whole number of smt=2 cores"},
		{topology{cpus: 8, smt: 1, group: 16, snc: 1}, "smaller than one group=16"},
		{topology{cpus: 500, smt: 2, group: 84, snc: 3}, "not a whole number of sockets"},
	} {
		if err := tt.topo.check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: check() = %v, want an error containing %q", tt.topo, err, tt.want)
		}
	}
}

// With every CPU busy the designated CPU of a level is the first of its
// local group: the SMT level's groups are single CPUs, the LLC's cores, the
// socket's nodes, the machine's sockets.
func TestBfDesignatedPerLevel(t *testing.T) {
	topo := topology{cpus: 512, smt: 2, group: 128, snc: 2}
	for _, tt := range []struct {
		cpu  int
		want string // smt llc socket all
	}{
		{0, "tttt"}, {1, "tfff"}, {2, "ttff"}, {128, "tttf"}, {129, "tfff"}, {256, "tttt"}, {384, "tttf"}, {511, "tfff"},
	} {
		var got []byte
		for _, l := range topo.levels(tt.cpu) {
			got = append(got, "ft"[b2i(l.designated)])
			if l.bal.Interval != int64(l.weight) || l.bal.LastBalance != 0 {
				t.Errorf("cpu %d %s: balance_interval %d, last_balance %d, want sd_init's %d and 0", tt.cpu, kindNames[l.kind], l.bal.Interval, l.bal.LastBalance, l.weight)
			}
		}
		if string(got) != tt.want {
			t.Errorf("cpu %d: designated per level %s, want %s", tt.cpu, got, tt.want)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// idleSet is a test's idle pattern.
type idleSet map[int]bool

// should_we_balance() with idle CPUs: the first idle CPU of an idle core,
// else the first idle CPU of a busy core, else the group's first CPU; at the
// SMT level every CPU is its own group.
func TestBfShouldWeBalance(t *testing.T) {
	topo := topology{cpus: 8, smt: 2, group: 4, snc: 1} // smt 2/1, llc 4/2, all 8/4
	for _, tt := range []struct {
		idle []int
		want string // per cpu 0..7 at llc, then at all
	}{
		{nil, "t.t.t.t. t...t..."},
		// CPU 3 idle, its sibling 2 busy: the first idle SMT thread.
		{[]int{3}, "t..tt.t. ...tt..."},
		// CPU 1 idle on a busy core, 2 and 3 an idle core: at the
		// machine's level the idle core wins although CPU 1 comes first;
		// at the LLC's, whose groups are cores, CPU 1 is its core's
		// first idle thread.
		{[]int{1, 2, 3}, ".tt.t.t. ..t.t..."},
		// Everything idle: the first CPU of each group, idle or not.
		{[]int{0, 1, 2, 3, 4, 5, 6, 7}, "t.t.t.t. t...t..."},
		// Only 6 idle in the second node: it balances for the node.
		{[]int{6}, "t.t.t.t. t.....t."},
	} {
		in := idleSet{}
		for _, c := range tt.idle {
			in[c] = true
		}
		var llc, all []byte
		for cpu := range topo.cpus {
			ls := topo.levels(cpu)
			if !shouldWeBalanceOver(topo, func(c int) bool { return in[c] }, cpu, &ls[0]) {
				t.Errorf("idle %v: cpu %d not designated at the SMT level, its own group", tt.idle, cpu)
			}
			llc = append(llc, ".t"[b2i(shouldWeBalanceOver(topo, func(c int) bool { return in[c] }, cpu, &ls[1]))])
			all = append(all, ".t"[b2i(shouldWeBalanceOver(topo, func(c int) bool { return in[c] }, cpu, &ls[2]))])
		}
		if got := string(llc) + " " + string(all); got != tt.want {
			t.Errorf("idle %v: designated at llc, all = %s, want %s", tt.idle, got, tt.want)
		}
	}
}

// A busy CPU's interval is sixteen times an idle one's, less a jiffy, at
// every level, before and after balance_interval doubles to max_interval.
func TestBfIntervalsPerLevel(t *testing.T) {
	topo := topology{cpus: 512, smt: 2, group: 128, snc: 2}
	for _, tt := range []struct {
		hz                int
		busy, idle        []int64 // smt llc socket all, at sd_init's balance_interval
		busy2, idle2      []int64 // after one doubling
		maxLoadBalanceInt int64
	}{
		{1000, []int64{31, 2047, 4095, 8191}, []int64{2, 128, 256, 512},
			[]int64{63, 4095, 8191, 16383}, []int64{4, 256, 512, 1024}, 51200},
		{250, []int64{7, 511, 1023, 2047}, []int64{1, 32, 64, 128},
			[]int64{15, 1023, 2047, 4095}, []int64{1, 64, 128, 256}, 12800},
	} {
		m := &model{topo: topo, hz: tt.hz, busy: 100}
		c := &cpuState{m: m, levels: topo.levels(0)}
		for i := range c.levels {
			l := &c.levels[i]
			name := fmt.Sprintf("HZ=%d %s", tt.hz, kindNames[l.kind])
			if b, id := c.sdInterval(l, true), c.sdInterval(l, false); b != tt.busy[i] || id != tt.idle[i] {
				t.Errorf("%s: busy, idle interval %d, %d; want %d, %d", name, b, id, tt.busy[i], tt.idle[i])
			}
			l.bal.Interval *= 2
			if b, id := c.sdInterval(l, true), c.sdInterval(l, false); b != tt.busy2[i] || id != tt.idle2[i] {
				t.Errorf("%s doubled: busy, idle interval %d, %d; want %d, %d", name, b, id, tt.busy2[i], tt.idle2[i])
			}
		}
		if got := ksim.MaxLoadBalanceInterval(ksim.HZ(tt.hz), topo.cpus); got != tt.maxLoadBalanceInt {
			t.Errorf("HZ=%d: max_load_balance_interval %d, want %d", tt.hz, got, tt.maxLoadBalanceInt)
		}
	}
}

// The idle pattern: about 100-busy per cent of (cpu, tick) pairs, none at
// busy=100.
func TestBfIdleAt(t *testing.T) {
	for _, busy := range []int{1, 50, 90, 100} {
		idle := 0
		const cpus, ticks = 64, 1000
		for c := range cpus {
			for j := range int64(ticks) {
				if idleAt(7, busy, c, j) {
					idle++
				}
			}
		}
		got := 100 * float64(idle) / (cpus * ticks)
		if want := float64(100 - busy); got < want-1.5 || got > want+1.5 {
			t.Errorf("busy=%d: %.1f%% idle, want %.0f%% ± 1.5", busy, got, want)
		}
	}
}
