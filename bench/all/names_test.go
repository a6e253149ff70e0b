package all_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

var update = flag.Bool("update", false, "rewrite testdata/variants.golden from the registry")

// variantNames lists, for every scenario, the canonical name of its default
// variant and of every Quick and Full variant, as written and as named.
func variantNames(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, spec := range bench.Specs() {
		for _, set := range []struct {
			name string
			vs   []string
		}{{"default", []string{""}}, {"quick", spec.Quick}, {"full", spec.Full}} {
			for _, v := range set.vs {
				s, err := spec.New(v)
				if err != nil {
					t.Fatalf("%s %s variant %q: %v", spec.Name, set.name, v, err)
				}
				fmt.Fprintf(&b, "%s %s %q\n\t%s\n", spec.Name, set.name, v, s.Variant())
			}
		}
	}
	return b.String()
}

// Benchmark names are what benchdata/ compares by: the canonical name of
// every scenario's default, Quick and Full variants must stay byte for byte
// what testdata/variants.golden recorded (made from the code before variant
// keys were declared). A change here renames benchmarks; regenerate with
// go test -run TestVariantNames -update only when that is the point.
func TestVariantNames(t *testing.T) {
	got := variantNames(t)
	const file = "testdata/variants.golden"
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s line %d:\ngot  %s\nwant %s", file, i+1, gl, wl)
		}
	}
}
