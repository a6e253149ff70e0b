package ksim

import "testing"

// TestFindBusiestGroup: each version's decision on one-cpu groups (the
// lab's one-cpu LLCs) and LLCs of two: an idle local cpu beside one with
// two tasks pulls one (the rework by count, 4.13 by load), beside single
// tasks it pulls none, and a busy cpu's pass never pulls from a group
// that is not overloaded.
func TestFindBusiestGroup(t *testing.T) {
	one := func(nr int) GroupStats {
		load := float64(nr) * Nice0LoadDown
		return GroupStats{CPUs: 1, Nr: nr, Load: load, Capacity: Nice0LoadDown, AvgLoad: load}
	}
	two := func(nr, idle int) GroupStats {
		load := float64(nr) * Nice0LoadDown
		return GroupStats{CPUs: 2, Nr: nr, Idle: idle, Load: load, Capacity: 2 * Nice0LoadDown, AvgLoad: load / 2}
	}
	avg := func(gs []GroupStats) float64 {
		var l, c float64
		for _, g := range gs {
			l, c = l+g.Load, c+g.Capacity
		}
		return l * Nice0LoadDown / c
	}
	for _, tc := range []struct {
		name string
		k    Kernel
		gs   []GroupStats
		idle IdleType
		want Imbalance
	}{
		{"6.1: idle beside two tasks", Linux61, []GroupStats{one(0), one(2), one(1)}, CPUIdle, Imbalance{Busiest: 1, Amount: 1, ByTasks: true}},
		{"6.1: idle beside single tasks", Linux61, []GroupStats{one(0), one(1), one(1)}, CPUIdle, Imbalance{Busiest: -1}},
		{"6.1: busy, no overload", Linux61, []GroupStats{one(1), one(1), one(0)}, CPUNotIdle, Imbalance{Busiest: -1}},
		{"6.1: LLCs of two, spread the tasks", Linux61, []GroupStats{two(0, 2), two(3, 0)}, CPUNewlyIdle, Imbalance{Busiest: 1, Amount: 1, ByTasks: true}},
		{"4.13: idle beside two tasks", Linux413, []GroupStats{one(0), one(2), one(1)}, CPUIdle, Imbalance{Busiest: 1, Amount: Nice0LoadDown}},
		{"4.13: idle beside single tasks", Linux413, []GroupStats{one(0), one(1), one(1)}, CPUIdle, Imbalance{Busiest: -1}},
	} {
		if got := tc.k.FindBusiestGroup(tc.gs, 0, tc.idle, avg(tc.gs), 117); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if !Linux61.GroupTypes || !Linux612.GroupTypes || Linux413.GroupTypes || Next20170926.GroupTypes {
		t.Error("the rework's group types from 5.10's rules on, not 4.13's")
	}
}
