package affinity

import "golang.org/x/sys/unix"

// startMask is the affinity mask of the main thread when the process started:
// the CPUs that taskset, a cgroup cpuset or a container runtime allow us. It is
// read in init, before any goroutine can pin a thread, because package
// initialization runs on the main thread and its mask is the process's.
var startMask, startMaskErr = func() (unix.CPUSet, error) {
	var set unix.CPUSet
	err := unix.SchedGetaffinity(0, &set)
	return set, err
}()

// startCPUs returns the CPU ids of the process's start affinity mask.
func startCPUs() []int {
	if startMaskErr != nil {
		return nil
	}
	return cpuSetList(&startMask)
}
