package affinity

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/contend/contend/nodemask"
	"golang.org/x/sys/unix"
)

// OnlineNow reports whether cpu is online at this moment, from
// /sys/devices/system/cpu/online (read fresh, not from a loaded Topology).
// ok is false when the file cannot be read or parsed. A worker found off its
// cpu asks, so that the error can say the cpu was unplugged rather than
// leave the reader to guess why the kernel moved a pinned thread.
func OnlineNow(cpu int) (online, ok bool) {
	return onlineIn("/sys/devices/system/cpu/online", cpu)
}

func onlineIn(path string, cpu int) (online, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, false
	}
	set, err := nodemask.ParseList(strings.TrimSpace(string(b)))
	if err != nil {
		return false, false
	}
	return set.Test(cpu), true
}

// OffCPU is the error of a thread pinned to cpu pinned but found on cpu
// found, for its owner to prefix with who it is ("worker 3: ", "pinging
// end: "). The kernel moves a pinned thread only when its cpu goes offline
// (or someone changes its affinity), so it says which, when the cpu's state
// tells. The kernel moves a going cpu's threads away before the cpu leaves
// cpu/online, so OffCPU waits up to a second for it to: it is for the error
// path only.
func OffCPU(pinned, found int) error {
	return offCPU(pinned, found, OnlineNow, 20, 50*time.Millisecond)
}

func offCPU(pinned, found int, online func(int) (bool, bool), tries int, wait time.Duration) error {
	for range tries {
		on, ok := online(pinned)
		if !ok {
			break
		}
		if !on {
			return fmt.Errorf("cpu %d went offline during the run (the kernel moved it to cpu %d)", pinned, found)
		}
		time.Sleep(wait)
	}
	return fmt.Errorf("found on cpu %d, pinned to cpu %d (its affinity was changed from outside?)", found, pinned)
}

// setaffinityRefused says why sched_setaffinity refused cpu. EINVAL means
// the mask holds no cpu that is both online and in the caller's cpuset;
// cpu/online, read now, tells the two apart, so a cpu unplugged between two
// runs of a sweep reads "cpu 7 is not online" rather than a guess.
func setaffinityRefused(cpu int, err error, online func(int) (bool, bool)) error {
	if !errors.Is(err, unix.EINVAL) {
		return err
	}
	on, ok := online(cpu)
	switch {
	case !ok:
		return fmt.Errorf("cpu %d is offline or outside this process's cpuset: %w", cpu, err)
	case !on:
		return fmt.Errorf("cpu %d is not online: %w", cpu, err)
	}
	return fmt.Errorf("cpu %d is outside this process's cpuset: %w", cpu, err)
}
