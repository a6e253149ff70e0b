package kernel

// OnlineCPUs reads root's sys/devices/system/cpu/online: the cpus a
// workload started there may run on. Exported for internal/kernel/wakeups,
// whose workload needs the machine's size as Count does.
func OnlineCPUs(root string) ([]int, error) { return onlineCPUs(root) }

// Mount mounts a kernel file system of type fstype at root's dir (e.g.
// "debugfs", "sys/kernel/debug") and pushes its unmounting on u.
func Mount(u *Undo, root, fstype, dir string) error { return mount(u, root, fstype, dir) }
