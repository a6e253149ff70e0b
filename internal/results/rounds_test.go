package results

import (
	"math"
	"strings"
	"testing"
)

// A rounds line and a shared line read back as written; what is not one
// is not read as one.
func TestCommentLines(t *testing.T) {
	for _, c := range []Convergence{
		{Name: "AtomicAdd/line=shared/threads=2/place=compact-2", Rounds: 7, CI: 0.0173, Target: 0.02, Converged: true},
		{Name: "X/threads=224/place=spread-224", Rounds: 10, CI: 0.31, Target: 0.005},
		{Name: "X-2", Rounds: 3, CI: math.Inf(1), Target: 0.02},
	} {
		line := c.line()
		got, ok := parseConvergence(strings.TrimSuffix(line, "\n"))
		if !ok || got != c {
			t.Errorf("parseConvergence(%q) = %+v, %v; want %+v", line, got, ok, c)
		}
	}
	for _, bad := range []string{
		"# rounds: X rounds=0 ci=1% target=2% converged",
		"# rounds: X rounds=6 ci=1 target=2% converged",
		"# rounds: X rounds=6 ci=1% target=2% maybe",
		"# rounds: X rounds=6 ci=-1% target=2% converged",
		"# rounds: X rounds=6 ci=NaN% target=2% converged",
		"# rounds: X rounds=6 ci=1% converged",
		"# failed: X round=1: boom",
	} {
		if c, ok := parseConvergence(bad); ok {
			t.Errorf("parseConvergence(%q) = %+v, want not a rounds line", bad, c)
		}
	}
	s := Shared{Name: "X/threads=1/place=compact-2", Also: []string{"X/threads=1/place=spread-2", "X/threads=1/place=smt-2"}}
	if got, ok := parseShared(strings.TrimSuffix(s.line(), "\n")); !ok || got.Name != s.Name || strings.Join(got.Also, " ") != strings.Join(s.Also, " ") {
		t.Errorf("parseShared(%q) = %+v, %v", s.line(), got, ok)
	}
	for _, bad := range []string{"# shared: X also=", "# shared: X", "# shared:  also=Y", "# shared: X also=Y Z"} {
		if got, ok := parseShared(bad); ok {
			t.Errorf("parseShared(%q) = %+v, want not a shared line", bad, got)
		}
	}
}

// A results file's comment lines reach the Set by file and name; benchfmt
// still skips them. (A last line without its newline is a cut one, left
// out: TestCutLastLine.)
func TestSetComments(t *testing.T) {
	text := "BenchmarkX/threads=1/place=compact-2\t10\t5 ns/op\n" +
		"# shared: X/threads=1/place=compact-2 also=X/threads=1/place=spread-2\n" +
		"BenchmarkX/threads=1/place=spread-2\t10\t5 ns/op\n" +
		"# rounds: X/threads=1/place=compact-2 rounds=10 ci=3.5% target=2% not-converged\n" +
		"# rounds: X/threads=1/place=spread-2 rounds=6 ci=1% target=2% converged\n"
	rs, err := Parse(strings.NewReader(text), "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Results) != 2 {
		t.Fatalf("%d results, want 2", len(rs.Results))
	}
	want := map[string]bool{"X/threads=1/place=compact-2": false, "X/threads=1/place=spread-2": true}
	for _, r := range rs.Results {
		c, ok := rs.Convergence(r)
		if !ok || c.Converged != want[r.Name.String()] {
			t.Errorf("%s: %+v, %v; want converged %v", r.Name, c, ok, want[r.Name.String()])
		}
	}
	if got := rs.Shared[FileName{"a.txt", "X/threads=1/place=spread-2"}]; got != "X/threads=1/place=compact-2" {
		t.Errorf("Shared = %q", got)
	}
}

// FuzzParseConvergence: any line is a rounds line or none, never a panic;
// a rounds line read is written as one (its percentages to two decimals),
// which reads back as what it says.
func FuzzParseConvergence(f *testing.F) {
	f.Add("# rounds: X-2 rounds=6 ci=1.5% target=2% converged")
	f.Fuzz(func(t *testing.T, line string) {
		c, ok := parseConvergence(line)
		if !ok {
			return
		}
		written, ok := parseConvergence(strings.TrimSuffix(c.line(), "\n"))
		if !ok || written.Name != c.Name || written.Rounds != c.Rounds || written.Converged != c.Converged {
			t.Fatalf("parseConvergence(%q) = %+v, written %q, read back %+v, %v", line, c, c.line(), written, ok)
		}
		again, ok := parseConvergence(strings.TrimSuffix(written.line(), "\n"))
		if !ok || again != written {
			t.Fatalf("%q reads back as %+v, written again %q: %+v, %v", c.line(), written, written.line(), again, ok)
		}
	})
}
