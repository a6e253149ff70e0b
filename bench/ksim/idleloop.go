package ksim

import "fmt"

// The idle loop's tick decision (kernel/sched/idle.c): which of its
// iterations call tick_nohz_idle_stop_tick() and which
// tick_nohz_idle_retain_tick(). With a cpuidle driver the governor
// decides (menu: Governor). Without one, cpuidle_idle_call()'s
// cpuidle_not_available() branch decides, and it has had two forms:
//
//	if (cpuidle_not_available(drv, dev)) {
//		tick_nohz_idle_stop_tick();           // to f4c31b07b136
//		idle_call_stop_or_retain_tick(stop_tick); // from it
//		default_idle_call();
//
// where, from f4c31b07b136 ("sched: idle: Consolidate the handling of two
// special cases", Rafael J. Wysocki; in v7.0-rc and the 6.12.y and 6.1.y
// stable releases of March 2026), stop_tick is do_idle()'s got_tick,
// false at each idle's first iteration and then "got_tick =
// tick_nohz_idle_got_tick();": "stop the tick if the CPU has been woken
// up by it in the previous iteration of the idle loop, or let it tick
// otherwise". A CPU that idles keeps its tick until the first tick of the
// idle, which it takes, balancing itself CPU_IDLE if its rq->next_balance
// has come (trigger_load_balance()), and stops it after. Which form a
// kernel has is read from its text (kernel sites' idle-loop form), not its
// release: the lab's Debian 6.1.0-57 (6.1.192) and 6.12.118 have the
// backport, 6.16.12 and 6.18.15 do not, 6.19 on have it.

// An IdleTickRule is how an idle CPU's loop decides the tick.
type IdleTickRule uint8

const (
	// IdleTickGovernor: a cpuidle driver is registered, and the
	// governor's stop_tick decides (Governor.Select). The seeds'
	// machines (intel_idle, acpi_idle) and the zero value.
	IdleTickGovernor IdleTickRule = iota
	// IdleTickStop: no driver, before f4c31b07b136: every iteration asks
	// tick_nohz_idle_stop_tick(), which stops the tick unless
	// tick_nohz_next_event() finds an event within a tick.
	IdleTickStop
	// IdleTickAfterTick: no driver, with f4c31b07b136: an idle's first
	// iteration keeps the tick; the iteration after the tick ended one
	// stops it (tick_nohz_idle_stop_tick(), same test).
	IdleTickAfterTick
)

// idleTickNames are the rules as a flag names them (-idle-tick) and a
// count's kernel-idle-tick the driver-less forms.
var idleTickNames = [...]string{"governor", "stop", "after-tick"}

// Name is the rule as a flag names it (ParseIdleTickRule's input).
func (r IdleTickRule) Name() string {
	if int(r) < len(idleTickNames) {
		return idleTickNames[r]
	}
	return fmt.Sprintf("rule %d", int(r))
}

// ParseIdleTickRule is the rule idleTickNames names s.
func ParseIdleTickRule(s string) (IdleTickRule, error) {
	for i, n := range idleTickNames {
		if s == n {
			return IdleTickRule(i), nil
		}
	}
	return 0, fmt.Errorf("idle tick %q: want governor, stop or after-tick", s)
}

// StopsAtEntry is the rule for a model whose CPUs are idle or busy for
// whole ticks and whose idles have no timer within a tick: an idle stops
// the tick at its entry (IdleTickStop; IdleTickGovernor too, the models'
// stand-in for a governor they do not run), or keeps it for its first
// tick, which it takes, and stops it after that tick's work
// (IdleTickAfterTick: got_tick is false at the idle's first iteration, and
// true in the one after the tick woke it). Under either an idle that no
// tick finds never stops it.
func (r IdleTickRule) StopsAtEntry() bool { return r != IdleTickAfterTick }

// String names the rule as kernel sites' idle-loop form and the models'
// inputs lines do.
func (r IdleTickRule) String() string {
	switch r {
	case IdleTickStop:
		return "no driver: stop at every idle entry"
	case IdleTickAfterTick:
		return "no driver: stop after the idle's first tick (f4c31b07b136)"
	}
	return "governor (menu)"
}

// An IdleLoop is one CPU's do_idle() as far as the tick goes: the rule,
// and under IdleTickGovernor the governor it asks. The models call Enter
// at an idle entry, Ticked when a kept tick found the CPU idle and left it
// so, and Woke when a wakeup ended the idle.
type IdleLoop struct {
	Rule IdleTickRule
	Gov  Governor
}

// Enter is the idle's first iteration: whether it stops the tick. tickNs
// is TICK_NSEC, sleepNs tick_nohz_get_sleep_length() (the next timer with
// the tick left out, negative: none), which keeps the tick under every
// rule where it is within a tick (tick_nohz_next_event(): "delta <=
// (u64)TICK_NSEC").
func (l *IdleLoop) Enter(tickNs, sleepNs int64) bool {
	switch l.Rule {
	case IdleTickStop:
		return !timerWithinTick(tickNs, sleepNs)
	case IdleTickAfterTick:
		return false // got_tick is false at the idle's first iteration
	}
	return l.Gov.Select(tickNs, sleepNs, false)
}

// Ticked is the iteration after the kept tick woke the CPU, idle idleNs
// so far: the governor learns the tick's wakeup (menu_update()) and
// decides again; without a driver got_tick is now true, and both forms
// stop the tick.
func (l *IdleLoop) Ticked(idleNs, tickNs, sleepNs int64) bool {
	if l.Rule != IdleTickGovernor {
		return !timerWithinTick(tickNs, sleepNs)
	}
	l.Gov.Woke(idleNs, true)
	return l.Gov.Select(tickNs, sleepNs, false)
}

// Woke is a wakeup ending an idle of idleNs: the governor's
// menu_reflect() (the driver-less forms learn nothing).
func (l *IdleLoop) Woke(idleNs int64) {
	if l.Rule == IdleTickGovernor {
		l.Gov.Woke(idleNs, false)
	}
}

// timerWithinTick is tick_nohz_next_event()'s "If the tick is due in the
// next period, keep it ticking": a timer sleepNs away (negative: none)
// within tickNs.
func timerWithinTick(tickNs, sleepNs int64) bool {
	return sleepNs >= 0 && sleepNs <= tickNs
}

// An IdleCPU is one CPU's idle loop and when its current idle began
// (From, 0: none yet): what a model whose tasks sleep and wake keeps per
// CPU for the tick decision.
type IdleCPU struct {
	Loop IdleLoop
	From int64
}

// Enter is the idle's first iteration at now (do_idle()), and whether it
// stops the tick (IdleLoop.Enter).
func (c *IdleCPU) Enter(now, tickNs, sleepNs int64) bool {
	c.From = max(now, 1)
	return c.Loop.Enter(tickNs, sleepNs)
}

// Ticked is the iteration after the kept tick at now woke the idle CPU
// (IdleLoop.Ticked).
func (c *IdleCPU) Ticked(now, tickNs, sleepNs int64) bool {
	stop := c.Loop.Ticked(now-c.From, tickNs, sleepNs)
	c.From = max(now, 1)
	return stop
}

// Woke is the idle ending at end, by a wakeup (IdleLoop.Woke), where one
// had begun before it.
func (c *IdleCPU) Woke(end int64) {
	if c.From > 0 && end > c.From {
		c.Loop.Woke(end - c.From)
	}
}

// IdleCPUs are n CPUs' idle loops and their ticks' state, for a scenario
// whose CPUs idle between its own tasks' runs: each entry's tick decision
// by a share the scenario measured (StopShare, a draw per entry, a kept
// tick's iteration counted as one) or, where it has none (StopShare
// negative), by each CPU's IdleLoop (menu with a cpuidle driver, the
// kernel's form without; the one timer known is the softlockup
// watchdog's, WatchdogSleep); whether each CPU's tick is stopped; and
// the stops and idle entries made.
type IdleCPUs struct {
	CPUs           []IdleCPU
	Stopped        []bool
	StopShare      float64
	Stops, Entries int64
}

// NewIdleCPUs is n busy CPUs whose loops follow rule, deciding by share
// where it is 0 or more.
func NewIdleCPUs(n int, rule IdleTickRule, share float64) *IdleCPUs {
	s := &IdleCPUs{CPUs: make([]IdleCPU, n), Stopped: make([]bool, n), StopShare: share}
	for i := range s.CPUs {
		s.CPUs[i].Loop.Rule = rule
	}
	return s
}

// Enter is cpu's idle loop deciding the tick at now, at an idle's entry
// (do_idle()) or (ticked) in the iteration after a kept tick woke it;
// draw is the scenario's uniform draw in [0, 1), taken only for the
// measured share. It says whether the tick stopped.
func (s *IdleCPUs) Enter(now int64, cpu int, ticked bool, tickNs int64, draw func() float64) bool {
	var stop bool
	switch sleep := WatchdogSleep(now, cpu, len(s.CPUs)); {
	case s.StopShare >= 0:
		s.Entries++
		stop = draw() < s.StopShare
	case ticked:
		stop = s.CPUs[cpu].Ticked(now, tickNs, sleep)
	default:
		s.Entries++
		stop = s.CPUs[cpu].Enter(now, tickNs, sleep)
	}
	s.CPUs[cpu].From = now
	if stop {
		s.Stopped[cpu] = true
		s.Stops++
	}
	return stop
}

// Exit is cpu leaving idle for a wakeup at now: the governor learns the
// idle's length (menu_update()) where it decides, and the tick runs
// again (tick_nohz_idle_exit()).
func (s *IdleCPUs) Exit(now int64, cpu int) {
	if s.CPUs[cpu].From == 0 {
		return
	}
	if s.StopShare < 0 {
		s.CPUs[cpu].Woke(now)
	}
	s.CPUs[cpu].From = 0
	s.Stopped[cpu] = false
}

// Idle is whether cpu is idle (an idle begun and not yet ended).
func (s *IdleCPUs) Idle(cpu int) bool { return s.CPUs[cpu].From != 0 }
