package results

import (
	"errors"
	"testing"

	"golang.org/x/perf/benchproc"
)

func TestOneLine(t *testing.T) {
	projection := func(q string) error { _, err := new(benchproc.ProjectionParser).Parse(q, nil); return err }
	filter := func(q string) error { _, err := benchproc.NewFilter(q); return err }
	for _, tc := range []struct {
		parse       func(string) error
		query, want string
	}{
		{projection, "/threads@bogus", `syntax error: unknown order "bogus" at character 10`},
		{filter, "/store:(", `syntax error: expected value at character 9`},
		{filter, "/name:é (", `syntax error: expected key:value or subexpression at character 10`}, // characters, not bytes
	} {
		err := tc.parse(tc.query)
		if err == nil {
			t.Fatalf("benchproc accepted %q", tc.query)
		}
		got := OneLine(err)
		if got.Error() != tc.want {
			t.Errorf("OneLine(%q's error) = %q, want %q", tc.query, got, tc.want)
		}
		if !errors.Is(got, err) {
			t.Errorf("OneLine(%q's error) does not wrap it", tc.query)
		}
	}
	plain := errors.New("two\nlines")
	if got := OneLine(plain); got != plain {
		t.Errorf("OneLine(%q) = %q, want it unchanged", plain, got)
	}
}
