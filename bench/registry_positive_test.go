package bench

import (
	"testing"
	"time"
)

func TestRequirePositive(t *testing.T) {
	given := func(n string) bool { return n == "cpus" }
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"all positive", RequirePositive("x", []FlagValue[int]{Flag("cpus", 2), Flag("hz", 1)}, nil), ""},
		{"the first bad one", RequirePositive("x", []FlagValue[int]{Flag("cpus", 2), Flag("hz", 0), Flag("smt", -1)}, nil), "simulate x: -hz 0: want a positive value"},
		{"a duration", RequirePositive("y", []FlagValue[time.Duration]{Flag("cs", time.Duration(0))}, nil), "simulate y: -cs 0s: want a positive duration"},
		{"unset flags keep their default", RequirePositive("x", []FlagValue[int]{Flag("hz", 0)}, given), ""},
		{"a set flag is checked", RequirePositive("x", []FlagValue[int]{Flag("cpus", -3)}, given), "simulate x: -cpus -3: want a positive value"},
	} {
		got := ""
		if tt.err != nil {
			got = tt.err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
