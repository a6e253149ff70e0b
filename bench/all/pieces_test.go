package all

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

// TestSpecPieces: every scenario declares each piece the registry holds
// beside its benchmark, or says why it has none: its simulation (contend
// simulate), its lab test (the QEMU lab's tests step) and its findings
// (contend reproduce). A new scenario that forgets one fails here, not by
// being silently left out of a guest or a command.
func TestSpecPieces(t *testing.T) {
	for _, s := range bench.Specs() {
		if m := s.Missing(); m != nil {
			t.Errorf("scenario %s declares neither (or both) of %s: set Simulate or NoSimulate, Lab or NoLab, Findings or NoFindings (bench/registry.go)",
				s.Name, strings.Join(m, ", "))
		}
		if s.Lab != nil {
			if err := labKeys(s); err != nil {
				t.Errorf("scenario %s: lab variant %q: %v", s.Name, s.Lab.Variant, err)
			}
		}
		if s.Binary() != s.Name+".test" {
			t.Errorf("scenario %s lives in %s (test binary %s): name the package after the scenario", s.Name, s.Package, s.Binary())
		}
	}
}

// labKeys checks that each part of a lab variant names one of the
// scenario's keys, in their canonical order (the value may be a pattern).
func labKeys(s *bench.Spec) error {
	if s.Lab.Variant == "" {
		return nil
	}
	at := 0
	for _, part := range strings.Split(s.Lab.Variant, "/") {
		k, _, ok := strings.Cut(part, "=")
		i := slices.IndexFunc(s.Keys, func(key bench.Key) bool { return key.Name == k })
		switch {
		case !ok:
			return fmt.Errorf("part %q is not key=value", part)
		case i < 0:
			return fmt.Errorf("no key %q", k)
		case i < at:
			return fmt.Errorf("key %q out of canonical order", k)
		}
		at = i
	}
	// The guest runs the benchmark's own variants: the pattern must match
	// one of them, or the tests step finds no benchmark (a stale lab
	// variant once named lines=16 where every benchmark ran lines=256).
	re, err := regexp.Compile("^" + s.Lab.Variant + "$")
	if err != nil {
		return fmt.Errorf("not a pattern: %v", err)
	}
	for _, v := range append(slices.Clone(s.Full), s.Quick...) {
		sc, err := s.New(v)
		if err == nil && re.MatchString(sc.Variant()) {
			return nil
		}
	}
	return fmt.Errorf("matches none of the variants its benchmark runs (Full and Quick)")
}

func TestSpecMissing(t *testing.T) {
	sim := &bench.Simulation{Usage: "x"}
	lab := &bench.LabTest{}
	for _, tc := range []struct {
		s    bench.Spec
		want []string
	}{
		{bench.Spec{}, []string{"simulate", "lab", "findings"}},
		{bench.Spec{Simulate: sim, Lab: lab, Findings: []int{1}}, nil},
		{bench.Spec{NoSimulate: "why", NoLab: "why", NoFindings: "why"}, nil},
		{bench.Spec{Simulate: sim, NoSimulate: "both", Lab: lab, Findings: []int{1}}, []string{"simulate"}},
		{bench.Spec{Simulate: sim, Lab: lab, NoLab: "both", NoFindings: "why"}, []string{"lab"}},
		{bench.Spec{Simulate: sim, NoLab: "why"}, []string{"findings"}},
	} {
		if got := tc.s.Missing(); !slices.Equal(got, tc.want) {
			t.Errorf("Missing() of %+v = %v, want %v", tc.s, got, tc.want)
		}
	}
	if got := (&bench.Spec{Package: "github.com/contend/contend/bench/loadavg"}).Binary(); got != "loadavg.test" {
		t.Errorf("Binary() = %q, want loadavg.test", got)
	}
}
