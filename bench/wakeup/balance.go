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

// groupStats is update_sg_lb_stats() of the group of cpus: ksim's
// find_busiest_group() reads it.
func (k *ksys) groupStats(cpus []int) ksim.GroupStats {
	g := ksim.GroupStats{CPUs: len(cpus), Capacity: float64(len(cpus)) * nice0Load}
	for _, id := range cpus {
		c := k.cpus[id]
		g.Nr += c.NrRunning
		if c.idle() {
			g.Idle++
		}
		g.Load += k.cpuLoad(c)
	}
	g.AvgLoad = g.Load * nice0Load / g.Capacity
	return g
}

// sdInterval is get_sd_balance_interval(): balance_interval ms, times
// busy_factor on a busy cpu, in jiffies, clamped to [1,
// max_load_balance_interval = HZ·nr_cpus/10].
func (k *ksys) sdInterval(sd *domain, busy bool) int64 {
	return k.kern.BalanceInterval(sd.Balance.Interval, busy, k.hz, ksim.MaxLoadBalanceInterval(k.hz, len(k.cpus)))
}

// An lbWalk is one balance walk of cpu c's domains as ksim's walks see
// them (ksim.Balancer), done by cpu from (c itself, or the nohz balancer
// on c's behalf) with its moves counted under why. Its clock prices each
// newidle pass at the lbcost= parameter (sched_clock_cpu() around
// sched_balance_rq(), which update_newidle_cost() keeps the max of); a
// periodic pass costs no time.
type lbWalk struct {
	k     *ksys
	c     *kcpu
	why   cause
	from  int
	clock int64
	moved int // the last pass's tasks moved, an active balance's included
}

func (k *ksys) walk(c *kcpu, why cause, from int) *lbWalk {
	return &lbWalk{k: k, c: c, why: why, from: from}
}

func (w *lbWalk) Levels() int                { return len(w.c.sd) }
func (w *lbWalk) Domain(i int) *ksim.Balance { return &w.c.sd[i].Balance }
func (w *lbWalk) Serialized(i int) bool      { return w.c.sd[i].Has(ksim.SDSerialize) }
func (w *lbWalk) Interval(i int, busy bool) int64 {
	return w.k.sdInterval(w.c.sd[i], busy)
}
func (w *lbWalk) Idle() bool           { return w.c.idle() }
func (w *lbWalk) Overloaded() bool     { return w.k.overload }
func (w *lbWalk) Runnable() bool       { return len(w.c.Queue) > 0 }
func (w *lbWalk) Clock() (int64, bool) { return w.clock, true }

// TakeFlag is spin_trylock(&balancing) on a machine of one thread: free
// (the guests have one node, so no SD_SERIALIZE domain either).
func (w *lbWalk) TakeFlag(int) bool { return true }
func (w *lbWalk) ReleaseFlag(int)   {}

// ShouldWeBalance counts the load_balance() call (schedstat's lb_count,
// before should_we_balance()) and asks ksim's should_we_balance() of the
// version: a newly idle pass always balances; a periodic one runs on the
// local group's first idle cpu, or its first.
func (w *lbWalk) ShouldWeBalance(i int, idle ksim.IdleType) bool {
	w.k.c.balances[idle]++
	if idle == ksim.CPUNewlyIdle {
		return true
	}
	d := w.c.sd[i].Domain
	return w.k.kern.ShouldWeBalance(int(w.c.CPU), d.Groups[0], d.Has(ksim.SDShareCPUCapacity),
		func(x int) bool { return w.k.cpus[x].idle() }, w.k.siblings)
}

// siblings is cpu_smt_mask(c): the span of c's SMT domain, or c alone
// (the guests have no SMT).
func (k *ksys) siblings(c int) []int {
	if d := k.cpus[c].sd[0].Domain; d.Has(ksim.SDShareCPUCapacity) {
		return d.Span
	}
	return []int{c}
}

// Pass is the rest of load_balance() at level i: the groups' statistics,
// find_busiest_group(), find_busiest_queue(), the moves, and the tail of
// an unbalanced pass (nr_balance_failed, active balance, the interval
// reset); a balanced one is ksim's out_balanced.
func (w *lbWalk) Pass(i int, idle ksim.IdleType, _ bool) (moved, balanced bool) {
	k, c, sd := w.k, w.c, w.c.sd[i]
	if idle == ksim.CPUNewlyIdle {
		w.clock += k.p.lbCost
	}
	w.moved = 0
	gs := make([]ksim.GroupStats, len(sd.Groups))
	var total, capacity float64
	var running int
	over := false
	for i, g := range sd.Groups {
		gs[i] = k.groupStats(g)
		total += gs[i].Load
		capacity += gs[i].Capacity
		running += gs[i].Nr
		for _, x := range g {
			over = over || k.cpus[x].NrRunning > 1
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
	const local = 0 // ksim puts the local group first
	r := k.kern.FindBusiestGroup(gs, local, idle, avg, sd.imbalancePct)
	if r.Busiest < 0 {
		return false, true
	}
	src := k.findBusiestQueue(sd.Groups[r.Busiest], r)
	if src == nil {
		return false, true
	}
	n := 0
	if src.NrRunning > 1 {
		n = k.detachTasks(src, c, sd, idle, r, w.why, w.from)
	}
	active := false
	if n == 0 {
		if idle != ksim.CPUNewlyIdle {
			sd.Balance.NrBalanceFailed++
		}
		if sd.Balance.NrBalanceFailed > sd.cacheNiceTries+2 { // need_active_balance()
			active = k.activeBalance(src, c, w.from)
			sd.Balance.NrBalanceFailed = sd.cacheNiceTries + 1
		}
	} else {
		sd.Balance.NrBalanceFailed = 0
	}
	if !active {
		sd.Balance.Interval = sd.Balance.MinInterval // "We were unbalanced, so reset the balancing interval"
	} else if sd.Balance.Interval < sd.Balance.MaxInterval {
		sd.Balance.Interval *= 2
	}
	if active {
		n++
	}
	w.moved = n
	return n > 0, false
}

// findBusiestQueue is find_busiest_queue(): the busiest group's cpu with
// the most load (6.1's migrate_task: the most tasks), passing over a cpu
// whose one task outweighs the imbalance.
func (k *ksys) findBusiestQueue(cpus []int, r ksim.Imbalance) *kcpu {
	var best *kcpu
	bestLoad := -1.0
	for _, id := range cpus {
		c := k.cpus[id]
		n := c.NrRunning
		if n == 0 {
			continue
		}
		w := k.cpuLoad(c)
		if r.ByTasks {
			w = float64(n)
		} else if n == 1 && w > r.Amount {
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
func (k *ksys) detachTasks(src, dst *kcpu, sd *domain, idle ksim.IdleType, r ksim.Imbalance, why cause, from int) int {
	imb := r.Amount
	moved := 0
	loop := 0
	limit := min(nrMigrate, src.NrRunning)
	for i := 0; i < len(src.Queue) && loop < limit; {
		loop++
		if k.ver == v61 && idle != ksim.CPUNotIdle && src.NrRunning <= 1 {
			break
		}
		t := k.tasks[src.Queue[i].ID]
		// task_hot(): ran less than sysctl_sched_migration_cost ago;
		// a hot task goes only once the domain has failed more
		// than cache_nice_tries times.
		if k.now-t.execStart < ksim.MigrationCost && sd.Balance.NrBalanceFailed <= sd.cacheNiceTries {
			i++
			continue
		}
		load := t.loadNow(k.now)
		if !r.ByTasks {
			if k.ver == v61 {
				if float64(int64(load)>>min(sd.Balance.NrBalanceFailed, 62)) > imb {
					i++
					continue
				}
			} else if load/2 > imb {
				i++
				continue
			}
		}
		k.migrate(t, dst, why, from)
		moved++
		if r.ByTasks {
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
func (k *ksys) activeBalance(src, dst *kcpu, from int) bool {
	if src.Curr == nil || src.activeBusy || src.NrRunning <= 1 || src == dst {
		return false
	}
	t := k.stop(src)
	src.PutPrev(true)
	k.migrate(t, dst, causeActive, from)
	k.runNext(src)
	return true
}

// tick is one jiffy's scheduler_tick() on every cpu whose tick runs: the
// busy ones, and the idle ones whose tick the governor kept (stopTick).
// On a busy cpu trigger_load_balance() runs its periodic balance when
// rq->next_balance has come, then nohz_balancer_kick()
// (ksim.Nohz.BalancerKick): the cpu leaves the nohz mask if this is its
// first busy tick since it stopped its tick (nohz_balance_exit_idle():
// "At the first busy tick after returning from idle, we will update the
// busy stats"), and, some cpu being tickless and nohz.next_balance come,
// kicks for two tasks here or, on an LLC, another cpu whose tick is not
// stopped (nr_busy_cpus > 1). An idle cpu balances itself, CPU_IDLE
// (run_rebalance_domains(): "idle = this_rq->idle_balance ? CPU_IDLE :
// CPU_NOT_IDLE"; it kicks no one and stays in the mask, "if
// (unlikely(rq->idle_balance)) return;"), then the idle loop asks the
// governor again, which learns the tick's wakeup as a 45 ms idle
// (ksim.Governor.Woke by the tick; menu_update()).
func (k *ksys) tick() {
	j := k.jiffies()
	idle := func(x int) bool { return k.cpus[x].idle() } // idle_cpu()
	for _, c := range k.cpus {
		if c.Curr == nil {
			if !c.tickStopped && !c.waking && len(c.Queue) == 0 {
				k.keptTick(c, j)
			}
			continue
		}
		k.kern.UpdateCurrRQ(&c.RQ, k.now, len(k.cpus)) // entity_tick()'s update_curr()
		if j >= c.NextBalance {
			k.nohz.Walked(k.kern, &c.RQBalance, k.kern.BalanceDomains(k.walk(c, causePeriodic, c.CPU), &c.RQBalance, j, k.hz, ksim.CPUNotIdle))
		}
		if k.nohz.BalancerKick(c.CPU, j, ksim.KickRQ{NrRunning: c.NrRunning}) == ksim.KickNone {
			continue
		}
		// kick_ilb(): find_new_ilb()'s idle cpu of the nohz mask runs
		// nohz_idle_balance() at once, rebalance_domains() as CPU_IDLE
		// (no busy_factor) for every idle cpu of the mask whose
		// rq->next_balance has come; nohz.next_balance is then the
		// earliest of theirs.
		if ilb := k.nohz.FindNewILB(c.CPU, idle); ilb >= 0 {
			k.nohz.IdleBalance(ilb, j, k.hz, idle, func(x int) int64 { return k.cpus[x].NextBalance },
				func(x int) {
					b := k.cpus[x]
					k.nohz.Walked(k.kern, &b.RQBalance, k.kern.BalanceDomains(k.walk(b, causeNohz, ilb), &b.RQBalance, j, k.hz, ksim.CPUIdle))
				})
		}
	}
}

// stopTick is cpuidle_idle_call() as c goes idle with nothing to pull:
// the idle loop's first iteration decides (ksim.IdleCPU.Enter, having
// learnt the idle before this one, from its start to the task c last
// started; the one timer known is the softlockup watchdog's); a stop is
// nohz_balance_enter_idle() (stopIdleTick).
func (k *ksys) stopTick(c *kcpu) bool {
	if k.gov == nil {
		k.gov = make([]ksim.IdleCPU, len(k.cpus))
		for i := range k.gov {
			k.gov[i].Loop.Rule = k.p.idleTick
		}
	}
	k.gov[c.CPU].Woke(c.lastStart)
	return k.gov[c.CPU].Enter(k.now, k.hz.TickNs(), ksim.WatchdogSleep(k.now, int(c.CPU), len(k.cpus)))
}

// keptTick is tick j on idle cpu c whose tick the idle loop kept: its own
// pass, CPU_IDLE, then the loop's iteration after the tick
// (ksim.IdleCPU.Ticked).
func (k *ksys) keptTick(c *kcpu, j int64) {
	if j >= c.NextBalance {
		k.nohz.Walked(k.kern, &c.RQBalance, k.kern.BalanceDomains(k.walk(c, causePeriodic, c.CPU), &c.RQBalance, j, k.hz, ksim.CPUIdle))
	}
	if c.Curr != nil || len(c.Queue) > 0 {
		return // it pulled a task
	}
	k.stopIdleTick(c, k.gov[c.CPU].Ticked(k.now, k.hz.TickNs(), ksim.WatchdogSleep(k.now, int(c.CPU), len(k.cpus))))
}

// stopIdleTick is the governor's answer on idle cpu c: a stop
// (ts->tick_stopped, tickStopped) is nohz_balance_enter_idle() on the
// transition ("if (!was_stopped && ts->tick_stopped)"; ksim.Nohz.EnterIdle:
// the nohz mask, nr_cpus, set_cpu_sd_state_idle()). A kept tick leaves the
// nohz state as it was: c leaves the mask at its first busy tick
// (nohz_balance_exit_idle()), not as it runs a task nor as it keeps a tick.
func (k *ksys) stopIdleTick(c *kcpu, stop bool) {
	if stop && !c.tickStopped {
		k.nohz.EnterIdle(c.CPU)
	}
	c.tickStopped = stop
}
