package kernel

// OnlineCPUs reads root's sys/devices/system/cpu/online: the cpus a
// workload started there may run on. Exported for internal/kernel/wakeups,
// whose workload needs the machine's size as Count does.
func OnlineCPUs(root string) ([]int, error) { return onlineCPUs(root) }
