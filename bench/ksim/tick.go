package ksim

import (
	"math"
	"math/bits"
)

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

// SoftlockupPeriodNs is the softlockup watchdog's hrtimer period, 4 s
// (kernel/watchdog.c: sample_period = get_softlockup_thresh() *
// ((u64)NSEC_PER_SEC / 5), a threshold of 2 × watchdog_thresh, default
// 10 s). It is the one timer the models know every idle CPU to have
// (CONFIG_SOFTLOCKUP_DETECTOR, on in Debian's kernels; a hard hrtimer, not
// deferrable, so tick_nohz_get_sleep_length() sees it).
const SoftlockupPeriodNs = 4_000_000_000

// WatchdogSleep is tick_nohz_get_sleep_length() at now on cpu of cpus
// with the softlockup hrtimer its only timer: ns to its next expiry. Each
// CPU starts its own as it comes up (watchdog_enable()); the model spreads
// their phases evenly over the period.
func WatchdogSleep(now int64, cpu, cpus int) int64 {
	phase := SoftlockupPeriodNs / int64(max(cpus, 1)) * int64(cpu)
	d := (phase - now%SoftlockupPeriodNs + SoftlockupPeriodNs) % SoftlockupPeriodNs
	if d == 0 {
		d = SoftlockupPeriodNs
	}
	return d
}

// A Governor is one CPU's menu cpuidle governor as far as the tick goes
// (drivers/cpuidle/governors/menu.c, read in two copies the source index
// holds, neither a tagged release: one of the v5.6–6.1 form, nanosecond
// units, twelve buckets, get_typical_interval(data, predicted_us), which
// is what this follows; one later than 6.12, six buckets and a two-sided
// outlier filter, not followed: the differences are listed below, from
// those copies and from memory of the history, not from 6.12's own
// file): the last eight idle intervals
// (data->intervals[INTERVALS]), the correction factors by bucket
// (data->correction_factor[]), and menu_select()'s verdict on the tick.
// It is allocation-free: fixed arrays, a value per CPU.
//
// menu_select() predicts the idle from two sources and takes the lower:
//
//	predicted_us = div_u64(data->next_timer_ns *
//			       data->correction_factor[data->bucket] + ...,
//			       RESOLUTION * DECAY * NSEC_PER_USEC);
//	predicted_ns = (u64)min(predicted_us,
//				get_typical_interval(data, predicted_us)) * NSEC_PER_USEC;
//
// the time to the next timer (tick_nohz_get_sleep_length()) scaled by
// what idles in its bucket measured against it, and the typical interval
// of the last eight idles (typicalInterval). It keeps the tick when
//
//	if (((drv->states[idx].flags & CPUIDLE_FLAG_POLLING) ||
//	     predicted_ns < TICK_NSEC) && !tick_nohz_tick_stopped()) {
//		*stop_tick = false;
//
// A wakeup by the kept tick is learnt as a long idle (menu_update()):
//
//	if (data->tick_wakeup && data->next_timer_ns > TICK_NSEC) {
//		...
//		measured_ns = 9 * MAX_INTERESTING / 10;
//
// which typicalInterval then drops as an outlier where the other seven
// agree (the tick kept again), and which ends the typical interval where
// they do not (the timer-based prediction decides).
//
// Where menu runs at all. kernel count records the guest's cpuidle
// driver and governor (cpuidle-driver, cpuidle-governor), and every lab
// count says "cpuidle-driver: none" (6.1 to 7.3, QEMU TCG: no
// cpuidle-haltpoll without KVM, no intel_idle without MWAIT, and no
// acpi_idle registered), where this model had assumed acpi_idle's poll
// state and C1. With no driver, cpuidle_idle_call() never asks the
// governor:
//
//	if (cpuidle_not_available(drv, dev)) {
//		tick_nohz_idle_stop_tick();
//		default_idle_call();
//
// and the branch's own form decides (IdleLoop, idleloop.go: before
// f4c31b07b136 the tick stops at every idle entry, from it only after the
// idle's first tick). Read from the kernels' text, that form is why the
// counts stop it at 94-97 % of idle entries on 6.16 and 6.18 (the old
// form) and at 1-3 % on 6.1.0-57, 6.12.118 and 6.19 on (the new one,
// with the workload's idles mostly shorter than a tick). The models take
// the rule as ksim.IdleLoop.Rule; menu's decision stays the kernel's
// where a driver is registered (the seeds' machines).
//
// Version differences, none of them moving the decision in the model:
// 6.1 keeps 12 buckets, the upper six for CPUs with iowaiters (the model
// has none); later kernels keep six (iowait dropped), and skip
// tick_nohz_get_sleep_length() when the typical interval is under
// RESIDENCY_THRESHOLD_NS (15 µs), a prediction that keeps the tick either
// way (the model computes the sleep length always). The later copy's
// get_typical_interval() also drops outliers below the mean and returns
// the maximum of six or more kept samples; whether 6.12 has that is not
// checked here (the lab's 6.12 rows would move if it has).
type Governor struct {
	intervals   [menuIntervals]uint32 // data->intervals, µs
	ptr         int                   // data->interval_ptr
	factor      [menuBuckets]uint32   // data->correction_factor
	nextTimerNs int64                 // data->next_timer_ns of the last selection
	bucket      int                   // data->bucket of the last selection
	residencyNs int64                 // dev->last_residency_ns
	needsUpdate bool                  // data->needs_update (menu_reflect())
	tickWakeup  bool                  // data->tick_wakeup (tick_nohz_idle_got_tick())
	enabled     bool                  // menu_enable_device() has run
}

// menu.c's tuning values.
const (
	menuIntervals      = 8             // INTERVALS (1UL << INTERVAL_SHIFT)
	menuBuckets        = 6             // BUCKETS without iowaiters (6.1: 12, upper half iowait)
	menuResolution     = 1024          // RESOLUTION
	menuDecay          = 8             // DECAY
	menuMaxInteresting = 50_000 * 1000 // MAX_INTERESTING (50000 * NSEC_PER_USEC)
)

// Select is menu_select() then tick_nohz_idle_stop_tick()'s own test, at
// an idle entry: it first learns the idle that ended last (menu_update(),
// when Woke has said one did), and says whether the tick stops. sleepNs
// is tick_nohz_get_sleep_length(): ns to the next timer event with the
// tick left out (negative: none, KTIME_MAX); stopped says the tick is
// already stopped, which menu and tick-sched leave so.
//
// tick_nohz_get_sleep_length() returns the time to the next tick when
// tick_nohz_next_event() finds an event within a tick (it returns 0:
// rcu_needs_cpu(), irq_work, or a timer that close), and
// tick_nohz_idle_stop_tick() then keeps the tick whatever menu said
// (kernel/time/tick-sched.c):
//
//	delta = next_tick - basemono;
//	if (delta <= (u64)TICK_NSEC) {
//		...
//		if (!ts->tick_stopped) {
//			ts->timer_expires = 0;
//			goto out;
func (g *Governor) Select(tickNs, sleepNs int64, stopped bool) bool {
	if !g.enabled {
		// menu_enable_device(): "we actually want to start out with a
		// unity factor".
		for i := range g.factor {
			g.factor[i] = menuResolution * menuDecay
		}
		g.enabled = true
	}
	if g.needsUpdate {
		g.update(tickNs)
		g.needsUpdate = false
	}
	next := sleepNs
	if next < 0 {
		next = math.MaxInt64
	}
	g.nextTimerNs = next
	g.bucket = menuBucket(next)
	if stopped {
		return true
	}
	if sleepNs >= 0 && sleepNs <= tickNs {
		return false
	}
	// predicted_us, rounded to the closest µs; next_timer_ns times a
	// factor up to 8192 overflows 64 bits only for KTIME_MAX.
	const div = menuResolution * menuDecay * 1000
	hi, lo := bits.Mul64(uint64(next), uint64(g.factor[g.bucket]))
	lo, carry := bits.Add64(lo, div/2, 0)
	predictedUs := uint64(math.MaxUint32) // saturated (6.1's unsigned int would wrap)
	if hi+carry < div {
		q, _ := bits.Div64(hi+carry, lo, div)
		predictedUs = min(q, predictedUs)
	}
	predictedUs = min(predictedUs, uint64(g.typicalInterval(predictedUs)))
	return predictedUs*1000 >= uint64(tickNs)
}

// Woke is the CPU leaving an idle of ns (dev->last_residency_ns), woken
// by the kept tick or by something else: menu_reflect(), whose
// needs_update makes the next Select learn it.
func (g *Governor) Woke(ns int64, byTick bool) {
	g.residencyNs = max(ns, 0)
	g.tickWakeup = byTick
	g.needsUpdate = true
}

// update is menu_update(): the measured idle (a tick wakeup's taken for
// 45 ms, as the type's doc quotes; else the residency less C1's exit
// latency, 0), capped at the time to the timer ("Make sure our
// coefficients do not exceed unity"), moves the bucket's correction factor
// an eighth of the way to measured/next_timer and enters the intervals.
func (g *Governor) update(tickNs int64) {
	measured := g.residencyNs
	if g.tickWakeup && g.nextTimerNs > tickNs {
		measured = 9 * menuMaxInteresting / 10
	}
	measured = min(measured, g.nextTimerNs)
	f := g.factor[g.bucket]
	f -= f / menuDecay
	if g.nextTimerNs > 0 && measured < menuMaxInteresting {
		f += uint32(menuResolution * measured / g.nextTimerNs)
	} else {
		f += menuResolution // "we were idle so long that we count it as a perfect prediction"
	}
	g.factor[g.bucket] = f
	g.intervals[g.ptr] = uint32(min(measured/1000, math.MaxUint32))
	g.ptr = (g.ptr + 1) % menuIntervals
}

// menuBucket is which_bucket() without iowaiters: the decade of the time
// to the next timer, 10 µs to 100 ms.
func menuBucket(ns int64) int {
	b := 0
	for lim := int64(10_000); b < menuBuckets-1 && ns >= lim; lim *= 10 {
		b++
	}
	return b
}

// typicalInterval is get_typical_interval(): the mean of the last eight
// intervals, µs, when their standard deviation is small against it
// ("avg*avg > variance*36", with at least six of them) or under 20 µs
// ("variance <= 400"); otherwise the largest is dropped and it tries
// again, down to six; then no prediction (UINT_MAX). Where every interval
// is at least the timer-based prediction it gives up at once, that
// prediction being the lower anyway.
func (g *Governor) typicalInterval(predictedUs uint64) uint32 {
	thresh := uint32(math.MaxInt32)
	for {
		lo, hi, sum, n := uint32(math.MaxUint32), uint32(0), uint64(0), uint64(0)
		for _, v := range g.intervals {
			if v <= thresh {
				sum += uint64(v)
				n++
				hi, lo = max(hi, v), min(lo, v)
			}
		}
		if uint64(lo) >= predictedUs {
			return math.MaxUint32
		}
		avg := sum / n
		var variance uint64
		for _, v := range g.intervals {
			if v <= thresh {
				d := int64(v) - int64(avg)
				variance += uint64(d * d)
			}
		}
		variance /= n
		if variance <= math.MaxUint64/36 &&
			(avg*avg > variance*36 && n*4 >= menuIntervals*3 || variance <= 400) {
			return uint32(avg)
		}
		if n*4 <= menuIntervals*3 {
			return math.MaxUint32
		}
		thresh = hi - 1
	}
}
