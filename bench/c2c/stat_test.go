package c2c

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// -warmup and Config.Warmup read the same values, and the flag hands the
// library the value it means: auto is the library's zero (Samples/10),
// none and 0 run none, a count runs that many.
func TestWarmup(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    Warmup
		str     string
		samples int // after WithDefaults with 50 samples
	}{
		{"auto", AutoWarmup, "auto", 5},
		{"none", NoWarmup, "none", 0},
		{"0", NoWarmup, "none", 0},
		{"7", 7, "7", 7},
		{"-1", 0, "!want auto", 0},
		{"many", 0, "!want auto", 0},
		{"", 0, "!want auto", 0},
	} {
		fs := flag.NewFlagSet("c2c", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var w Warmup
		fs.Var(&w, "warmup", "")
		err := fs.Parse([]string{"-warmup", tt.in})
		if want, isErr := strings.CutPrefix(tt.str, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("-warmup %q: error %v, want one line containing %q", tt.in, err, want)
			}
			continue
		}
		if err != nil || w != tt.want || w.String() != tt.str {
			t.Errorf("-warmup %q = %v (%d), %v; want %s (%d)", tt.in, w, int(w), err, tt.str, int(tt.want))
			continue
		}
		if again, err := ParseWarmup(w.String()); err != nil || again != w {
			t.Errorf("ParseWarmup(%q) = %v, %v; want %v", w.String(), again, err, w)
		}
		cfg, err := Config{Samples: 50, Warmup: w}.WithDefaults()
		if err != nil || cfg.Warmup.Samples() != tt.samples {
			t.Errorf("-warmup %q: %d warm-up samples of 50, %v; want %d", tt.in, cfg.Warmup.Samples(), err, tt.samples)
		}
	}
	var def Warmup
	if def.String() != "auto" {
		t.Errorf("zero Warmup = %q, want auto: the flag's default shows the library's", def)
	}
}

func TestParseStat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Stat
		err  string
	}{
		{"median", Median, ""},
		{"min", Min, ""},
		{"mean", "", `unknown statistic "mean" (want median, min)`},
		{"", "", `unknown statistic ""`},
	} {
		got, err := ParseStat(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseStat(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != tt.in {
			t.Errorf("ParseStat(%q) = %q, %v", tt.in, got, err)
		}
	}
	if (Stat("")).String() != "median" {
		t.Errorf("zero Stat = %q, want median, the default", Stat(""))
	}
}
