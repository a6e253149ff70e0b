package bench

import (
	"fmt"
	"strconv"
)

// SeedCount writes a count as the seeds' tables do, to three significant
// digits with an SI suffix: "12.3M", "45.6k", "982". The simulations print
// their per-5 s and per-second counts with it, so they read beside the
// seeds' "~10M updates" and "~27K migrations".
//
// The suffix is chosen after rounding, so that 999,500 is "1M", not
// "1e+03k"; from 1000M up, whole millions ("1234M"): there is no larger
// suffix in the seeds.
func SeedCount(x float64) string {
	// r only picks the suffix: x is formatted as it always was, so that
	// no figure below the boundaries changes.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	switch {
	case r >= 1e9:
		return strconv.FormatFloat(x/1e6, 'f', 0, 64) + "M"
	case r >= 1e6:
		return fmt.Sprintf("%.3gM", x/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.3gk", x/1e3)
	}
	return fmt.Sprintf("%.3g", x)
}
