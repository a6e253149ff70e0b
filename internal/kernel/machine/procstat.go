package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CPUTimes is /proc/stat's first line: the machine's jiffies, all and idle
// (idle and iowait), since boot.
type CPUTimes struct{ total, idle uint64 }

// ReadCPUTimes reads /proc/stat's "cpu " line.
func ReadCPUTimes(root string) (CPUTimes, error) {
	b, err := os.ReadFile(filepath.Join(root, "proc/stat"))
	if err != nil {
		return CPUTimes{}, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return CPUTimes{}, fmt.Errorf("/proc/stat: first line %q is not the cpu line", line)
	}
	var t CPUTimes
	for i, v := range f[1:] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return CPUTimes{}, fmt.Errorf("/proc/stat: cpu field %d %q: %w", i+1, v, err)
		}
		if i == 7 || i == 8 { // guest and guest_nice are in user and nice already
			continue
		}
		t.total += n
		if i == 3 || i == 4 { // idle, iowait
			t.idle += n
		}
	}
	return t, nil
}

// BusyPct is the share of the machine's cpu time between a and b that was
// not idle, in per cent (-1 when no time passed).
func BusyPct(a, b CPUTimes) float64 {
	if b.total <= a.total {
		return -1
	}
	return 100 * (1 - float64(b.idle-a.idle)/float64(b.total-a.total))
}
