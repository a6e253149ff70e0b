package configlist

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/internal/fixture"
)

func TestParseThreads(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD4Sockets) // 64 usable cpus, 16 a node
	tests := []struct{ in, want string }{
		{"1,56,112,224", "[1 56 112 224]"}, // above the machine: kept, the run skips or refuses it
		{"2, 4 ,2", "[2 4]"},
		{"max", "[64]"},
		{"ladder", "[1 2 4 8 16 32 64]"},
		{"1,max", "[1 64]"},
		{"64,ladder", "[64 1 2 4 8 16 32]"},
		{"0", `!"0" is not a positive worker count`},
		{"-3", `!"-3" is not a positive worker count`},
		{"two", `!"two" is not a positive worker count`},
		{"1,,2", `!"" is not a positive worker count`},
		{"", `!"" is not a positive worker count`},
		{"MAX", `!"MAX" is not a positive worker count`},
	}
	for _, tt := range tests {
		got, err := ParseThreads(tt.in, topo)
		if want, isErr := strings.CutPrefix(tt.want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("ParseThreads(%q) error = %v, want one line containing %q", tt.in, err, want)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tt.want {
			t.Errorf("ParseThreads(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestParsePlaces(t *testing.T) {
	tests := []struct{ in, want string }{
		{"compact,spread,cross", "[compact spread cross]"},
		{"smt, compact,smt", "[smt compact]"},
		{"0-3", "[cpus:0..3]"},
		{"0,2,4-7", "[cpus:0,2,4..7]"},
		{"compact;0-3;4-7", "[compact cpus:0..3 cpus:4..7]"},
		{"0-3; compact,spread ;0..3", "[cpus:0..3 compact spread]"}, // ".." as benchmark names write ranges
		{"0-3;0-3", "[cpus:0..3]"},
		{"0-3,compact", "!cpu list"},
		{"everywhere", `!unknown placement "everywhere"`},
		{"compact,", `!unknown placement ""`},
		{"compact;", `!unknown placement ""`},
		{"", `!unknown placement ""`},
	}
	for _, tt := range tests {
		got, err := ParsePlaces(tt.in)
		if want, isErr := strings.CutPrefix(tt.want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("ParsePlaces(%q) error = %v, want one line containing %q", tt.in, err, want)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tt.want {
			t.Errorf("ParsePlaces(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatPlaces(t *testing.T) {
	for _, in := range []string{"compact", "compact,spread,cross,smt", "0-3", "compact;0-3;4-7;spread,smt", "0,2,4-7;1,3"} {
		ps, err := ParsePlaces(in)
		if err != nil {
			t.Fatalf("ParsePlaces(%q): %v", in, err)
		}
		if got := FormatPlaces(ps); got != in {
			t.Errorf("FormatPlaces(ParsePlaces(%q)) = %q", in, got)
		}
	}
}

// FuzzParseThreads: any text gives counts or a one-line error, never a
// panic; the counts are positive, each once, and read back as themselves.
func FuzzParseThreads(f *testing.F) {
	topo := fixture.Topology(f, fixture.AMD4Sockets)
	f.Add("1,2,max")
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := ParseThreads(s, topo)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseThreads(%q): error of several lines: %v", s, err)
			}
			return
		}
		if len(ns) == 0 {
			t.Fatalf("ParseThreads(%q) = no counts and no error", s)
		}
		seen := map[int]bool{}
		for _, n := range ns {
			if n < 1 || seen[n] {
				t.Fatalf("ParseThreads(%q) = %v: want positive counts, each once", s, ns)
			}
			seen[n] = true
		}
		text := strings.Trim(strings.ReplaceAll(fmt.Sprint(ns), " ", ","), "[]")
		again, err := ParseThreads(text, topo)
		if err != nil || !slices.Equal(again, ns) {
			t.Fatalf("ParseThreads(%q) = %v, %v; want %v, read from %q", text, again, err, ns, s)
		}
	})
}

// FuzzParsePlaces: any text gives placements or a one-line error, never a
// panic; each placement is there once, and FormatPlaces writes them so that
// ParsePlaces reads the same back.
func FuzzParsePlaces(f *testing.F) {
	f.Add("compact;0-3")
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParsePlaces(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParsePlaces(%q): error of several lines: %v", s, err)
			}
			return
		}
		if len(ps) == 0 {
			t.Fatalf("ParsePlaces(%q) = no placements and no error", s)
		}
		names := map[string]bool{}
		for _, p := range ps {
			if names[p.String()] || p.Policy == affinity.List && p.CPUs.Empty() {
				t.Fatalf("ParsePlaces(%q) = %v: a placement twice, or an empty cpu list", s, ps)
			}
			names[p.String()] = true
		}
		text := FormatPlaces(ps)
		again, err := ParsePlaces(text)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(ps) {
			t.Fatalf("ParsePlaces(%q) = %v, %v; want %v, read from %q", text, again, err, ps, s)
		}
	})
}
