package kernel

// Wakeups is what a run measured, over the counted window only: the
// schedstats of the workload's threads (clients and servers apart) and
// the machine's /proc/schedstat, both read before and after the window.
type Wakeups struct {
	Kernel   string `json:"kernel"`
	CPUs     int    `json:"cpus"`
	LLCSize  int    `json:"llc_size"` // cpu0's L3 (else its last cache level) shared_cpu_list, in cpus
	Clients  int    `json:"clients"`
	Servers  int    `json:"servers"`
	ThinkNs  int64  `json:"think_ns"`   // asked for: the spin before each send
	ServeNs  int64  `json:"service_ns"` // asked for: the spin before each reply
	WarmupNs int64  `json:"warmup_ns"`
	// Seconds is the counted window's length; Statements the round trips
	// completed in it.
	Seconds    float64 `json:"seconds"`
	Statements uint64  `json:"statements"`
	// ClientSendNs and ServerSendNs are the mean wall time of a send
	// syscall, the one whose delivery wakes the partner.
	ClientSendNs float64 `json:"client_send_ns"`
	ServerSendNs float64 `json:"server_send_ns"`
	// NewidleLBCostNs is the mean of the domains' max_newidle_lb_cost at
	// the window's end (debugfs; 0 where it could not be read).
	NewidleLBCostNs float64 `json:"newidle_lb_cost_ns"`
	// Client and Server sum TaskCounters over each kind's threads
	// (sum_exec_runtime and wait_sum in ms).
	Client TaskSched  `json:"client"`
	Server TaskSched  `json:"server"`
	Sched  *Schedstat `json:"schedstat"`
	// Others sums the workload processes' other threads (the Go
	// runtime's: sysmon's timed sleeps, mostly), OtherThreads those of
	// them that woke in the window: threads the model's workload lacks
	// unless told (simulate wakeup -others).
	Others       TaskSched `json:"others"`
	OtherThreads int       `json:"other_threads"`
}
