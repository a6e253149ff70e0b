package ksim

// WrapFrom is for_each_cpu_wrap(cpu, mask, start) over the CPUs of span
// (ascending): from the first CPU at or after start, around to the ones
// before it, each once, until f returns false. It reports whether the walk
// went round to the end.
func WrapFrom(span []int, start int, f func(cpu int) bool) bool {
	at := 0
	for at < len(span) && span[at] < start {
		at++
	}
	for k := range span {
		if !f(span[(at+k)%len(span)]) {
			return false
		}
	}
	return true
}

// LoadAvgPeriod is LOAD_AVG_PERIOD (kernel/sched/sched-pelt.h), PELT's
// half-life in ms: 32.
const LoadAvgPeriod = 32

// NohzBlockedEvery is how often, in ns of kernel time, the nohz idle
// balancer updates an idle CPU's blocked load, in every version modelled:
// "nohz.next_blocked = jiffies + msecs_to_jiffies(LOAD_AVG_PERIOD);"
// (kernel/sched/fair.c). 32 ms at HZ=1000 and at 250; 33.3 ms at 300.
func NohzBlockedEvery(hz HZ) int64 { return hz.MsecsToJiffies(LoadAvgPeriod) * hz.TickNs() }
