package bench

import "fmt"

// SeedCount writes a count as the seeds' tables do, to three significant
// digits with an SI suffix: "12.3M", "45.6k", "982". The simulations print
// their per-5 s and per-second counts with it, so they read beside the
// seeds' "~10M updates" and "~27K migrations".
func SeedCount(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.3gM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.3gk", x/1e3)
	}
	return fmt.Sprintf("%.3g", x)
}
