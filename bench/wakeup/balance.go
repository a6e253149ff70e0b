package wakeup

import "github.com/contend/contend/bench/ksim"

// The load balancer: rebalance_domains() on a busy cpu's tick, idle_balance()
// (6.1: newidle_balance()) as a cpu goes idle, nohz_idle_balance() for the
// tickless idle cpus, and the active balance a run of failures starts. Each
// moves tasks with set_task_cpu(), counted by cause. Simplifications (doc.go
// says what each moves): group and cpu load are the instantaneous PELT sums,
// not 4.13's cpu_load[busy_idx] averages; "overloaded" is more tasks than
// cpus (the kernel also asks utilisation); fix_small_imbalance() keeps only
// its first test; a balance costs no time.

// sgStats is struct sg_lb_stats, the part that is read.
type sgStats struct {
	cpus           []int32
	nr, idle       int
	load, capacity float64
	avgLoad        float64
}

// groupType is 6.1's group_type order (has_spare < fully_busy <
// overloaded); 4.13 distinguishes only overloaded from the rest.
func (g *sgStats) groupType() int {
	switch w := len(g.cpus); {
	case g.nr > w:
		return 2
	case g.nr == w:
		return 1
	}
	return 0
}

func (k *ksys) groupStats(cpus []int32) sgStats {
	g := sgStats{cpus: cpus, capacity: float64(len(cpus)) * nice0Load}
	for _, id := range cpus {
		c := k.cpus[id]
		g.nr += c.nrRunning()
		if c.idle() {
			g.idle++
		}
		g.load += k.cpuLoad(c)
	}
	g.avgLoad = g.load * nice0Load / g.capacity
	return g
}

// sdInterval is get_sd_balance_interval(): balance_interval ms, times
// busy_factor on a busy cpu, in jiffies, clamped to [1,
// max_load_balance_interval = HZ·nr_cpus/10].
func (k *ksys) sdInterval(sd *domain, busy bool) int64 {
	return k.kern.BalanceInterval(sd.Balance.Interval, busy, k.hz, ksim.MaxLoadBalanceInterval(k.hz, len(k.cpus)))
}

// balanceResult is what find_busiest_group() decided.
type balanceResult struct {
	busiest   int     // index in sd.groups; -1: balanced
	imbalance float64 // load to move, or with byTasks a number of tasks
	byTasks   bool    // 6.1's migrate_task
}

// findBusiestGroup413 is 4.13's find_busiest_group() and
// calculate_imbalance(), as far as the model's groups reach.
func (k *ksys) findBusiestGroup413(sd *domain, gs []sgStats, local int, idle idleType, avg float64) balanceResult {
	bi := -1
	for i := range gs {
		if i == local || gs[i].nr == 0 {
			continue
		}
		// update_sd_pick_busiest(): group type first, then avg_load.
		if bi < 0 || gs[i].groupType()/2 > gs[bi].groupType()/2 ||
			(gs[i].groupType()/2 == gs[bi].groupType()/2 && gs[i].avgLoad > gs[bi].avgLoad) {
			bi = i
		}
	}
	none := balanceResult{busiest: -1}
	if bi < 0 {
		return none
	}
	l, b := &gs[local], &gs[bi]
	lHasCap, bOver := l.nr < len(l.cpus), b.groupType() == 2
	if !(idle != cpuNotIdle && lHasCap && bOver) { // else force_balance
		if l.avgLoad >= b.avgLoad || l.avgLoad >= avg {
			return none
		}
		if idle == cpuIdle {
			if !bOver && l.idle <= b.idle+1 {
				return none
			}
		} else if 100*b.avgLoad <= float64(sd.imbalancePct)*l.avgLoad {
			return none
		}
	}
	// calculate_imbalance().
	perTask := b.load / float64(max(b.nr, 1))
	imb := 0.0
	if b.avgLoad > avg && l.avgLoad < avg {
		maxPull := b.avgLoad - avg
		if bOver && l.groupType() == 2 {
			above := float64(b.nr)*nice0Load - b.capacity
			if above > 0 {
				maxPull = min(maxPull, above*nice0Load/b.capacity)
			}
		}
		imb = min(maxPull*b.capacity, (avg-l.avgLoad)*l.capacity) / nice0Load
	}
	if imb < perTask {
		// fix_small_imbalance(), its first test: move one task's
		// worth if that leaves the busiest no lighter than local.
		scaled := perTask * nice0Load / b.capacity
		imbn := 2.0
		if l.nr > 0 && perTask > l.load/float64(l.nr) {
			imbn = 1
		}
		if b.avgLoad+scaled >= l.avgLoad+scaled*imbn {
			imb = perTask
		}
	}
	return balanceResult{busiest: bi, imbalance: imb}
}

// findBusiestGroup61 is 6.1's find_busiest_group() and
// calculate_imbalance() (the v5.5 rework): group types, and on a local
// group with spare capacity a number of tasks to move rather than a load.
func (k *ksys) findBusiestGroup61(sd *domain, gs []sgStats, local int, idle idleType, avg float64) balanceResult {
	bi := -1
	for i := range gs {
		if i == local || gs[i].nr == 0 {
			continue
		}
		// update_sd_pick_busiest(): type, then avg_load when
		// overloaded, else fewer idle cpus, then more tasks.
		if bi < 0 {
			bi = i
			continue
		}
		g, b := &gs[i], &gs[bi]
		switch gt, bt := g.groupType(), b.groupType(); {
		case gt != bt:
			if gt > bt {
				bi = i
			}
		case gt == 2:
			if g.avgLoad > b.avgLoad {
				bi = i
			}
		case g.idle < b.idle || (g.idle == b.idle && g.nr > b.nr):
			bi = i
		}
	}
	none := balanceResult{busiest: -1}
	if bi < 0 {
		return none
	}
	l, b := &gs[local], &gs[bi]
	lt, bt := l.groupType(), b.groupType()
	if lt > bt {
		return none
	}
	if lt == 2 {
		if l.avgLoad >= b.avgLoad || l.avgLoad >= avg || 100*b.avgLoad <= float64(sd.imbalancePct)*l.avgLoad {
			return none
		}
	}
	// sds->prefer_sibling: the child level has SD_PREFER_SIBLING, which
	// 6.1 sets on every level but NUMA; a level whose groups are single
	// cpus has no child.
	prefer := len(l.cpus) > 1
	force := prefer && lt == 0 && b.nr > l.nr+1
	if bt != 2 && !force {
		if idle == cpuNotIdle {
			return none
		}
		if len(b.cpus) > 1 && l.idle <= b.idle+1 {
			return none
		}
		if b.nr == 1 {
			return none
		}
	}
	if lt == 0 {
		// Local has spare capacity: even out the tasks (one-cpu
		// groups), or the idle cpus.
		var n int
		if len(b.cpus) == 1 || prefer {
			n = max(b.nr-l.nr, 0)
		} else {
			n = max(l.idle-b.idle, 0)
		}
		return balanceResult{busiest: bi, imbalance: float64(n >> 1), byTasks: true}
	}
	imb := 0.0
	if b.avgLoad > avg && l.avgLoad < avg {
		imb = min((b.avgLoad-avg)*b.capacity, (avg-l.avgLoad)*l.capacity) / nice0Load
	}
	return balanceResult{busiest: bi, imbalance: imb}
}

// loadBalance is load_balance(c, sd, idle) done by cpu from (c itself, or
// the nohz balancer on c's behalf). It returns the tasks moved and whether
// should_we_balance() let it (continue_balancing).
func (k *ksys) loadBalance(c *kcpu, sd *domain, idle idleType, why cause, from int32) (int, bool) {
	k.c.balances[idle]++
	local := 0
	for i, g := range sd.groups {
		if c.id >= g[0] && c.id <= g[len(g)-1] {
			local = i
		}
	}
	if idle != cpuNewlyIdle {
		// should_we_balance(): the local group's first idle cpu, or
		// its first cpu.
		g := sd.groups[local]
		bc := g[0]
		for _, x := range g {
			if k.cpus[x].idle() {
				bc = x
				break
			}
		}
		if bc != c.id {
			return 0, false
		}
	}
	gs := make([]sgStats, len(sd.groups))
	var total, capacity float64
	var running int
	over := false
	for i, g := range sd.groups {
		gs[i] = k.groupStats(g)
		total += gs[i].load
		capacity += gs[i].capacity
		running += gs[i].nr
		for _, x := range g {
			over = over || k.cpus[x].nrRunning() > 1
		}
	}
	if sh := sd.shared; sh != nil {
		// 90001d67be2f's lines at the end of update_sd_lb_stats().
		sh.nrRunning, sh.load, sh.capacity = int64(running), int64(total), int64(capacity)
	}
	k.updateIdleCPUScan(sd, idle) // 6.1's, at the end of update_sd_lb_stats()
	if sd.top {
		k.overload = over
	}
	avg := total * nice0Load / capacity
	var r balanceResult
	if k.ver == v61 {
		r = k.findBusiestGroup61(sd, gs, local, idle, avg)
	} else {
		r = k.findBusiestGroup413(sd, gs, local, idle, avg)
	}
	if r.busiest < 0 {
		return 0, k.balanced(sd, idle)
	}
	src := k.findBusiestQueue(gs[r.busiest], r)
	if src == nil {
		return 0, k.balanced(sd, idle)
	}
	moved := 0
	if src.nrRunning() > 1 {
		moved = k.detachTasks(src, c, sd, idle, r, why, from)
	}
	active := false
	if moved == 0 {
		if idle != cpuNewlyIdle {
			sd.nrBalanceFailed++
		}
		if sd.nrBalanceFailed > sd.cacheNiceTries+2 { // need_active_balance()
			active = k.activeBalance(src, c, from)
			sd.nrBalanceFailed = sd.cacheNiceTries + 1
		}
	} else {
		sd.nrBalanceFailed = 0
	}
	if !active {
		sd.Balance.Interval = sd.Balance.MinInterval // "We were unbalanced, so reset the balancing interval"
	} else if sd.Balance.Interval < sd.Balance.MaxInterval {
		sd.Balance.Interval *= 2
	}
	if active {
		moved++
	}
	return moved, true
}

// balanced is out_balanced: no failures, and the interval backs off (6.1
// leaves a newly idle balance's interval alone).
func (k *ksys) balanced(sd *domain, idle idleType) bool {
	sd.nrBalanceFailed = 0
	if k.ver == v61 && idle == cpuNewlyIdle {
		return true
	}
	sd.Balance.OutBalanced()
	return true
}

// findBusiestQueue is find_busiest_queue(): the busiest group's cpu with
// the most load (6.1's migrate_task: the most tasks), passing over a cpu
// whose one task outweighs the imbalance.
func (k *ksys) findBusiestQueue(g sgStats, r balanceResult) *kcpu {
	var best *kcpu
	bestLoad := -1.0
	for _, id := range g.cpus {
		c := k.cpus[id]
		n := c.nrRunning()
		if n == 0 {
			continue
		}
		w := k.cpuLoad(c)
		if r.byTasks {
			w = float64(n)
		} else if n == 1 && w > r.imbalance {
			continue
		}
		if w > bestLoad {
			best, bestLoad = c, w
		}
	}
	return best
}

// detachTasks is detach_tasks() then attach_tasks(): queued tasks of src,
// oldest first (the tail of cfs_tasks), that can_migrate_task() lets go,
// until the imbalance is met.
func (k *ksys) detachTasks(src, dst *kcpu, sd *domain, idle idleType, r balanceResult, why cause, from int32) int {
	imb := r.imbalance
	moved := 0
	loop := 0
	limit := min(nrMigrate, src.nrRunning())
	for i := 0; i < len(src.queue) && loop < limit; {
		loop++
		if k.ver == v61 && idle != cpuNotIdle && src.nrRunning() <= 1 {
			break
		}
		t := k.tasks[src.queue[i]]
		// task_hot(): ran less than sysctl_sched_migration_cost ago;
		// a hot task goes only once the domain has failed more
		// than cache_nice_tries times.
		if k.now-t.execStart < migrationCost && sd.nrBalanceFailed <= sd.cacheNiceTries {
			i++
			continue
		}
		load := t.loadNow(k.now)
		if !r.byTasks {
			if k.ver == v61 {
				if float64(int64(load)>>min(sd.nrBalanceFailed, 62)) > imb {
					i++
					continue
				}
			} else if load/2 > imb {
				i++
				continue
			}
		}
		k.dequeue(t)
		k.setTaskCPU(t, dst.id, why)
		k.attach(t, dst, from)
		moved++
		if r.byTasks {
			imb--
		} else {
			imb -= load
		}
		if imb <= 0 {
			break
		}
	}
	return moved
}

// activeBalance is the stopper active_load_balance_cpu_stop() run on src
// for dst: it preempts src's running task and, src having another to run,
// pushes that one (now movable) to dst. Done at once here; the kernel's
// stopper runs as soon as src schedules.
func (k *ksys) activeBalance(src, dst *kcpu, from int32) bool {
	if src.curr < 0 || src.activeBusy || src.nrRunning() <= 1 || src == dst {
		return false
	}
	t := k.preempt(src)
	k.dequeue(t)
	k.setTaskCPU(t, dst.id, causeActive)
	k.attach(t, dst, from)
	k.runNext(src)
	return true
}

// rebalanceDomains is rebalance_domains(c, idle): each level whose interval
// has passed is balanced, and rq->next_balance set to the earliest next.
func (k *ksys) rebalanceDomains(c *kcpu, idle idleType, why cause, from int32) {
	j := k.jiffies()
	next := j + 60*int64(k.hz)
	for _, sd := range c.sd {
		interval := k.sdInterval(sd, idle != cpuIdle)
		cont := true
		if sd.Balance.Due(j, interval) {
			var moved int
			moved, cont = k.loadBalance(c, sd, idle, why, from)
			if moved > 0 {
				idle = cpuNotIdle
				if c.idle() {
					idle = cpuIdle
				}
			}
			sd.Balance.LastBalance = j
			interval = k.sdInterval(sd, idle != cpuIdle)
		}
		next = min(next, sd.Balance.LastBalance+interval)
		if !cont {
			break
		}
	}
	c.nextBalance = next
	if idle == cpuIdle {
		k.nohzNext = min(k.nohzNext, next)
	}
}

// newidleBalance is c going idle: 4.13's idle_balance() skips when
// rq->avg_idle is under sysctl_sched_migration_cost or no cpu is
// overloaded; 6.1's newidle_balance() when avg_idle is under the first
// level's max_newidle_lb_cost or none is. Then each level while avg_idle
// covers the balances' cost so far, until a task is pulled.
func (k *ksys) newidleBalance(c *kcpu) {
	gate := int64(migrationCost)
	if k.ver == v61 {
		gate = k.p.lbCost
	}
	// update_next_balance() on the levels looked at, at their idle
	// interval: an idle cpu is due sooner than a busy one.
	next := c.nextBalance
	due := func(sd *domain) { next = min(next, sd.Balance.LastBalance+k.sdInterval(sd, false)) }
	defer func() { c.nextBalance = min(c.nextBalance, next) }()
	if c.avgIdle < gate || !k.overload {
		due(c.sd[0])
		return
	}
	var cost int64
	for _, sd := range c.sd {
		if c.avgIdle < cost+k.p.lbCost {
			due(sd)
			break
		}
		moved, _ := k.loadBalance(c, sd, cpuNewlyIdle, causeNewidle, c.id)
		cost += k.p.lbCost
		due(sd)
		if moved > 0 || len(c.queue) > 0 {
			break
		}
	}
}

// tick is one jiffy's scheduler_tick() on every busy cpu (an idle cpu's
// tick is stopped: NO_HZ_IDLE): trigger_load_balance() runs its periodic
// balance when rq->next_balance has come, and kicks the nohz balancer when
// it has two tasks (or, on an LLC, another busy cpu) and nohz.next_balance
// has come.
func (k *ksys) tick() {
	j := k.jiffies()
	for _, c := range k.cpus {
		if c.curr < 0 {
			continue
		}
		if j >= c.nextBalance {
			k.rebalanceDomains(c, cpuNotIdle, causePeriodic, c.id)
		}
		if j >= k.nohzNext && k.nohzKickNeeded(c) {
			k.nohzIdleBalance()
		}
	}
}

// nohzKickNeeded is 4.13's nohz_kick_needed() (6.1's nohz_balancer_kick()
// tests alike): idle cpus with stopped ticks exist, and this one has two
// tasks, or its LLC another busy cpu.
func (k *ksys) nohzKickNeeded(c *kcpu) bool {
	any := false
	for _, x := range k.cpus {
		if x.nohzIdle && x.curr < 0 {
			any = true
			break
		}
	}
	if !any {
		return false
	}
	if c.nrRunning() >= 2 {
		return true
	}
	if c.llcSize > 1 {
		busy := 0
		for i := range int32(c.llcSize) {
			if k.cpus[c.llcID+i].curr >= 0 {
				busy++
			}
		}
		return busy > 1
	}
	return false
}

// nohzIdleBalance is nohz_idle_balance() on the first tickless idle cpu
// (find_new_ilb()): rebalance_domains() for every tickless idle cpu whose
// rq->next_balance has come, each as CPU_IDLE (no busy_factor), then
// nohz.next_balance is the earliest of theirs.
func (k *ksys) nohzIdleBalance() {
	ilb := int32(ksim.FirstIdle(len(k.cpus), func(c int) bool { return k.cpus[c].nohzIdle && k.cpus[c].curr < 0 }))
	if ilb < 0 {
		return
	}
	j := k.jiffies()
	next := j + 60*int64(k.hz)
	order := make([]int32, 0, len(k.cpus))
	for _, x := range k.cpus {
		if x.id != ilb {
			order = append(order, x.id)
		}
	}
	order = append(order, ilb) // the ilb balances itself last
	update := false
	for _, id := range order {
		x := k.cpus[id]
		if !x.nohzIdle || x.curr >= 0 || x.waking {
			continue
		}
		if j >= x.nextBalance {
			k.rebalanceDomains(x, cpuIdle, causeNohz, ilb)
		}
		next = min(next, x.nextBalance)
		update = true
	}
	if update {
		k.nohzNext = next
	}
}
