package ksim

// A balance pass's decision, find_busiest_group() with
// calculate_imbalance(), on the groups' statistics a scenario gathers
// (update_sg_lb_stats(): the part of struct sg_lb_stats that is read):
// which group to pull from and how much. The version decides its form:
// Kernel.GroupTypes is the v5.5 rework's, 0b0695f2b34a ("sched/fair:
// Rework load_balance()", Vincent Guittot), in every release modelled from
// 5.10; before it, 4.13's. Loads are in PELT units, a nice-0 task's weight
// Nice0LoadDown (scale_load_down(NICE_0_LOAD), which the kernel's
// arithmetic also takes as SCHED_CAPACITY_SCALE).

// GroupStats is struct sg_lb_stats, the part that is read: the group's
// cpus, its tasks (sum_nr_running), its idle cpus, its load, its
// capacity and avg_load (load per capacity, in Nice0LoadDown units).
type GroupStats struct {
	CPUs, Nr, Idle          int
	Load, Capacity, AvgLoad float64
}

// Type is 6.1's group_type, in its order: 0 group_has_spare, 1
// group_fully_busy, 2 group_overloaded (more tasks than cpus; the kernel
// also asks utilisation). 4.13 tells only overloaded from the rest.
func (g *GroupStats) Type() int {
	switch {
	case g.Nr > g.CPUs:
		return 2
	case g.Nr == g.CPUs:
		return 1
	}
	return 0
}

// Imbalance is what find_busiest_group() decided: Busiest, the index of
// the group to pull from (-1: balanced), and Amount, the load to move,
// or with ByTasks (the rework's migrate_task) a number of tasks.
type Imbalance struct {
	Busiest int
	Amount  float64
	ByTasks bool
}

// FindBusiestGroup is find_busiest_group() and calculate_imbalance() of
// the version, over gs with the local group at local, for a pass of idle
// type idle; avg is the domain's avg_load and imbalancePct the domain's
// imbalance_pct (sd_init()'s).
func (k Kernel) FindBusiestGroup(gs []GroupStats, local int, idle IdleType, avg float64, imbalancePct int) Imbalance {
	if k.GroupTypes {
		return findBusiestGroup61(gs, local, idle, avg, imbalancePct)
	}
	return findBusiestGroup413(gs, local, idle, avg, imbalancePct)
}

// findBusiestGroup413 is 4.13's, as far as the models' groups reach:
// fix_small_imbalance() keeps only its first test.
func findBusiestGroup413(gs []GroupStats, local int, idle IdleType, avg float64, imbalancePct int) Imbalance {
	bi := -1
	for i := range gs {
		if i == local || gs[i].Nr == 0 {
			continue
		}
		// update_sd_pick_busiest(): group type first, then avg_load.
		if bi < 0 || gs[i].Type()/2 > gs[bi].Type()/2 ||
			(gs[i].Type()/2 == gs[bi].Type()/2 && gs[i].AvgLoad > gs[bi].AvgLoad) {
			bi = i
		}
	}
	none := Imbalance{Busiest: -1}
	if bi < 0 {
		return none
	}
	l, b := &gs[local], &gs[bi]
	lHasCap, bOver := l.Nr < l.CPUs, b.Type() == 2
	if !(idle != CPUNotIdle && lHasCap && bOver) { // else force_balance
		if l.AvgLoad >= b.AvgLoad || l.AvgLoad >= avg {
			return none
		}
		if idle == CPUIdle {
			if !bOver && l.Idle <= b.Idle+1 {
				return none
			}
		} else if 100*b.AvgLoad <= float64(imbalancePct)*l.AvgLoad {
			return none
		}
	}
	// calculate_imbalance().
	perTask := b.Load / float64(max(b.Nr, 1))
	imb := 0.0
	if b.AvgLoad > avg && l.AvgLoad < avg {
		maxPull := b.AvgLoad - avg
		if bOver && l.Type() == 2 {
			above := float64(b.Nr)*Nice0LoadDown - b.Capacity
			if above > 0 {
				maxPull = min(maxPull, above*Nice0LoadDown/b.Capacity)
			}
		}
		imb = min(maxPull*b.Capacity, (avg-l.AvgLoad)*l.Capacity) / Nice0LoadDown
	}
	if imb < perTask {
		// fix_small_imbalance(), its first test: move one task's
		// worth if that leaves the busiest no lighter than local.
		scaled := perTask * Nice0LoadDown / b.Capacity
		imbn := 2.0
		if l.Nr > 0 && perTask > l.Load/float64(l.Nr) {
			imbn = 1
		}
		if b.AvgLoad+scaled >= l.AvgLoad+scaled*imbn {
			imb = perTask
		}
	}
	return Imbalance{Busiest: bi, Amount: imb}
}

// findBusiestGroup61 is the rework's (6.1's): group types, and on a local
// group with spare capacity a number of tasks to move rather than a load.
func findBusiestGroup61(gs []GroupStats, local int, idle IdleType, avg float64, imbalancePct int) Imbalance {
	bi := -1
	for i := range gs {
		if i == local || gs[i].Nr == 0 {
			continue
		}
		// update_sd_pick_busiest(): type, then avg_load when
		// overloaded, else fewer idle cpus, then more tasks.
		if bi < 0 {
			bi = i
			continue
		}
		g, b := &gs[i], &gs[bi]
		switch gt, bt := g.Type(), b.Type(); {
		case gt != bt:
			if gt > bt {
				bi = i
			}
		case gt == 2:
			if g.AvgLoad > b.AvgLoad {
				bi = i
			}
		case g.Idle < b.Idle || (g.Idle == b.Idle && g.Nr > b.Nr):
			bi = i
		}
	}
	none := Imbalance{Busiest: -1}
	if bi < 0 {
		return none
	}
	l, b := &gs[local], &gs[bi]
	lt, bt := l.Type(), b.Type()
	if lt > bt {
		return none
	}
	if lt == 2 {
		if l.AvgLoad >= b.AvgLoad || l.AvgLoad >= avg || 100*b.AvgLoad <= float64(imbalancePct)*l.AvgLoad {
			return none
		}
	}
	// sds->prefer_sibling: the child level has SD_PREFER_SIBLING, which
	// 6.1 sets on every level but NUMA; a level whose groups are single
	// cpus has no child.
	prefer := l.CPUs > 1
	force := prefer && lt == 0 && b.Nr > l.Nr+1
	if bt != 2 && !force {
		if idle == CPUNotIdle {
			return none
		}
		if b.CPUs > 1 && l.Idle <= b.Idle+1 {
			return none
		}
		if b.Nr == 1 {
			return none
		}
	}
	if lt == 0 {
		// Local has spare capacity: even out the tasks (one-cpu
		// groups), or the idle cpus.
		var n int
		if b.CPUs == 1 || prefer {
			n = max(b.Nr-l.Nr, 0)
		} else {
			n = max(l.Idle-b.Idle, 0)
		}
		return Imbalance{Busiest: bi, Amount: float64(n >> 1), ByTasks: true}
	}
	imb := 0.0
	if b.AvgLoad > avg && l.AvgLoad < avg {
		imb = min((b.AvgLoad-avg)*b.Capacity, (avg-l.AvgLoad)*l.Capacity) / Nice0LoadDown
	}
	return Imbalance{Busiest: bi, Amount: imb}
}
