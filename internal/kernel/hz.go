package kernel

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// configHZs are the tick rates Kconfig offers (kernel/Kconfig.hz).
var configHZs = []int{100, 250, 300, 1000}

// Jiffies is the kernel's jiffies counter, read from /proc/schedstat's
// timestamp line (its second line in every schedstat version), under root.
func Jiffies(root string) (uint64, error) {
	f, err := os.Open(filepath.Join(root, "proc/schedstat"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseJiffies(f.Name(), bufio.NewScanner(f))
}

func parseJiffies(name string, sc *bufio.Scanner) (uint64, error) {
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "timestamp" {
			j, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: timestamp %q: %w", name, f[1], err)
			}
			return j, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no timestamp line", name)
}

// MeasuredHZ is the CONFIG_HZ that jiffies advancing by dj in d gives: the
// nearest of Kconfig's choices, if the rate is within 5 % of it (the windows of 250 and 300 then do not meet); false
// otherwise (too short a window, or a kernel whose jiffies stalled). For
// a machine that exposes no kernel config (the lab's guests: Debian's
// kernels are built with CONFIG_IKCONFIG off), whose HZ the models need.
func MeasuredHZ(dj uint64, d time.Duration) (int, bool) {
	if d <= 0 {
		return 0, false
	}
	rate := float64(dj) / d.Seconds()
	for _, hz := range configHZs {
		if math.Abs(rate-float64(hz)) <= 0.05*float64(hz) {
			return hz, true
		}
	}
	return 0, false
}

// hzOverRun is HZ from the jiffies read before (j0) and after (j1) a run
// of d (err: either read's failure), and the note that says how it was
// found or why not; 0 where it was not.
func hzOverRun(j0, j1 uint64, err error, d time.Duration) (int, string) {
	switch {
	case err != nil:
		return 0, fmt.Sprintf("HZ unknown: no kernel config, and no jiffies: %v", err)
	case j1 < j0:
		return 0, fmt.Sprintf("HZ unknown: no kernel config, and jiffies went back over the bare run (%d then %d)", j0, j1)
	}
	hz, ok := MeasuredHZ(j1-j0, d)
	if !ok {
		return 0, fmt.Sprintf("HZ unknown: no kernel config, and jiffies over the bare run (%d in %.2fs) give none of 100, 250, 300, 1000", j1-j0, d.Seconds())
	}
	return hz, fmt.Sprintf("HZ %d measured (no kernel config): jiffies advanced %d in %.2fs of the bare run (/proc/schedstat's timestamp)", hz, j1-j0, d.Seconds())
}
