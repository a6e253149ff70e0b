package reproduce

import (
	"fmt"
	"math"

	"github.com/contend/contend/internal/reproduce/rule"
)

// A SimVerdict is a finding judged on its kernel-time simulation at the
// seed's machine size (rule.SimVerdict).
type SimVerdict = rule.SimVerdict

// perFive prints a per-5-s count the way the seed does: "10M", "25k".
func perFive(x float64) string {
	switch {
	case math.Abs(x) >= 1e6:
		return fmt.Sprintf("%.3gM", x/1e6)
	case math.Abs(x) >= 1e3:
		return fmt.Sprintf("%.3gk", x/1e3)
	}
	return rule.Num(x)
}
