package bench

import "testing"

func TestSeedCount(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {982, "982"}, {999.4, "999"}, {1000, "1k"}, {45_600, "45.6k"},
		{12_300_000, "12.3M"}, {27_073, "27.1k"}, {2.5, "2.5"},
		// Rounding to three digits carries into the next prefix.
		{999.6, "1k"}, {999_500, "1M"}, {999_999_999, "1000M"},
	} {
		if got := SeedCount(tt.x); got != tt.want {
			t.Errorf("SeedCount(%v) = %q, want %q", tt.x, got, tt.want)
		}
	}
}
