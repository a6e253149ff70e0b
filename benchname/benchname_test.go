package benchname

import (
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ns"},
		{1, "1ns"},
		{1500 * time.Nanosecond, "1500ns"},
		{40 * time.Microsecond, "40us"},
		{time.Millisecond, "1ms"},
		{1500 * time.Millisecond, "1500ms"},
		{2 * time.Second, "2s"},
		{time.Minute, "60s"},
		{-3 * time.Microsecond, "-3us"},
	} {
		if got := FormatDuration(tt.d); got != tt.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
		if d, err := time.ParseDuration(FormatDuration(tt.d)); err != nil || d != tt.d {
			t.Errorf("time.ParseDuration(FormatDuration(%v)) = %v, %v; want it back", tt.d, d, err)
		}
	}
}
