package affinity

import (
	"os"
	"strings"

	"github.com/contend/contend/nodemask"
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
