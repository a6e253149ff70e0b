package ksim

// The tick and the tick-stop decision: when each CPU's scheduler tick
// fires (tick_setup_sched_timer()), and whether an idle entry stops it
// (cpuidle_idle_call() asking the governor, then tick_nohz_idle_stop_tick()
// asking the timers). nohz.go holds what a stop does to the nohz balancer's
// state (nohz_balance_enter_idle()).

// TickStart is when CPU cpu's tick j fires, of cpus possible CPUs: the
// jiffy's edge, plus with skew_tick=1 tick_setup_sched_timer()'s offset
// (kernel/time/tick-sched.c),
//
//	u64 offset = TICK_NSEC >> 1;
//	do_div(offset, num_possible_cpus());
//	offset *= smp_processor_id();
//	hrtimer_add_expires_ns(&ts->sched_timer, offset);
//
// Without skew_tick (the kernel's default) every CPU ticks at the same
// instant.
func (hz HZ) TickStart(j int64, cpu, cpus int, skew bool) int64 {
	t := hz.TickTime(j)
	if skew {
		t += (hz.TickNs() >> 1) / int64(cpus) * int64(cpu)
	}
	return t
}

// A Governor is one CPU's cpuidle governor as far as the tick goes: its
// expected idle duration, learnt from the CPU's idle intervals, and menu's
// test of it against the tick (drivers/cpuidle/governors/menu.c,
// menu_select(), the same in 6.1 and 6.12):
//
//	/*
//	 * Don't stop the tick if the selected state is a polling one or if the
//	 * expected idle duration is shorter than the tick period length.
//	 */
//	if (((drv->states[idx].flags & CPUIDLE_FLAG_POLLING) ||
//	     predicted_ns < TICK_NSEC) && !tick_nohz_tick_stopped()) {
//		*stop_tick = false;
//
// The prediction is update_avg() of the intervals (UpdateAvg): menu's
// get_typical_interval() averages its last eight intervals and drops the
// outliers; an average that moves an eighth of the way to each sample is
// the same order of memory without the outlier pass (the model has no
// idle-duration histogram to reject outliers from). The zero Governor
// predicts nothing, so it keeps the tick until it has seen an idle of a
// tick or more.
type Governor struct {
	// Predicted is the expected idle duration, ns.
	Predicted  int64
	tickWakeup bool // the last sleep was ended by the kept tick (TickWakeup)
}

// Idled is the CPU leaving an idle period of ns: menu_update() learning
// the measured interval.
func (g *Governor) Idled(ns int64) {
	g.tickWakeup = false
	UpdateAvg(&g.Predicted, ns)
}

// TickWakeup is the kept tick waking the idle CPU. menu_update() takes
// such a sleep for a long one:
//
//	if (data->tick_wakeup && data->next_timer_ns > TICK_NSEC) {
//		/*
//		 * ... Since the CPU was woken up by a tick (that wasn't stopped
//		 * after all), the predictor was not quite right, so assume that
//		 * the CPU could have been idle long (but not forever) to help the
//		 * idle duration predictor do a better job next time.
//		 */
//		measured_ns = 9 * MAX_INTERESTING / 10;
//
// and the idle loop's next selection, right after the tick, may stop it.
// Whether it does is get_typical_interval()'s verdict on the eight
// intervals with that 45 ms one among them: dropped as an outlier where
// the others agree (the tick kept again), the typical interval given up
// where they do not (the tick stopped). The model has no idle-duration
// histogram to tell the two apart, so it takes the second, and as a
// one-shot: the next selection stops the tick (StopTick), and the sample
// does not enter Predicted, where an average would carry it into the
// short idles after the CPU wakes, which menu's outlier pass would not.
// That is the earliest the kernel stops the tick of a CPU that stays idle:
// an upper bound on its stops.
func (g *Governor) TickWakeup() { g.tickWakeup = true }

// StopTick is the idle entry's decision, cpuidle_idle_call() with menu
// then tick_nohz_idle_stop_tick(): the governor lets the tick stop when it
// expects an idle of at least a tick (stopped says the tick is already
// stopped, which menu keeps as it is), and tick_nohz_next_event() keeps it
// when the next timer, RCU callback or irq_work is due within a tick
// (nextEventNs, ns from now; negative: none known):
//
//	if (rcu_needs_cpu() || arch_needs_cpu() ||
//	    irq_work_needs_cpu() || local_timer_softirq_pending()) {
//		next_tick = basemono + TICK_NSEC;
//	...
//	delta = next_tick - basemono;
//	if (delta <= (u64)TICK_NSEC) {
//		...
//		if (!ts->tick_stopped) {
//			ts->timer_expires = 0;
//			goto out;
//
// (kernel/time/tick-sched.c, 6.1 and 6.12).
func (g *Governor) StopTick(tickNs int64, stopped bool, nextEventNs int64) bool {
	if stopped {
		return true
	}
	woke := g.tickWakeup
	g.tickWakeup = false
	if g.Predicted < tickNs && !woke {
		return false
	}
	return nextEventNs < 0 || nextEventNs > tickNs
}
