package catalog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
	_ "github.com/contend/contend/bench/all"
)

// TestEveryKeyListed: the text and the JSON name every declared key of
// every scenario with its domain, as the declaration spells it, and the
// JSON is an array of one object per scenario asked for, in order.
func TestEveryKeyListed(t *testing.T) {
	names := bench.Names()
	var text, js bytes.Buffer
	WriteText(&text, names)
	if err := WriteJSON(&js, names); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Name string
		Keys []struct{ Name, Domain string }
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("list -json is not JSON: %v", err)
	}
	if len(got) != len(names) {
		t.Fatalf("JSON has %d scenarios, want %d", len(got), len(names))
	}
	for i, n := range names {
		s, _ := bench.Lookup(n)
		if got[i].Name != n || len(got[i].Keys) != len(s.Keys) {
			t.Errorf("JSON scenario %d = %s with %d keys, want %s with %d", i, got[i].Name, len(got[i].Keys), n, len(s.Keys))
			continue
		}
		for j, k := range s.Keys {
			if got[i].Keys[j].Name != k.Name || got[i].Keys[j].Domain != k.Domain.Syntax() {
				t.Errorf("%s key %d: JSON %+v, want %s=%s", n, j, got[i].Keys[j], k.Name, k.Domain.Syntax())
			}
			if line := "    " + k.String() + " (default "; !strings.Contains(text.String(), line) {
				t.Errorf("text has no line %q", line)
			}
		}
	}
}

func TestKeyDefault(t *testing.T) {
	for _, tc := range []struct {
		k    bench.Key
		want string
	}{
		{bench.Key{Name: "a", Default: "x"}, "x"},
		{bench.Key{Name: "a", Default: "x", OmitDefault: true}, "x, left out of names"},
		{bench.Key{Name: "a"}, "decided by the other keys"},
	} {
		if got := keyDefault(tc.k); got != tc.want {
			t.Errorf("keyDefault(%+v) = %q, want %q", tc.k, got, tc.want)
		}
	}
}

// TestMarkdownTables: docs/scenarios.md names every scenario, key and
// metric, and every table row has its table's cells (a "|" in a domain or
// a doc is escaped, not a cell border).
func TestMarkdownTables(t *testing.T) {
	var b bytes.Buffer
	WriteMarkdown(&b, bench.Names(), []bench.Unit{{Name: "extra/op", Doc: "a|b"}})
	md := b.String()
	for _, s := range bench.Specs() {
		if !strings.Contains(md, "\n## "+s.Name+"\n") {
			t.Errorf("no section for %s", s.Name)
		}
		for _, k := range s.Keys {
			if !strings.Contains(md, "| `"+k.Name+"` | `"+strings.ReplaceAll(k.Domain.Syntax(), "|", `\|`)+"` |") {
				t.Errorf("%s: no row for key %s", s.Name, k.Name)
			}
		}
		for _, u := range append(s.Units, bench.RunUnits...) {
			if !strings.Contains(md, "| `"+u.Name+"` |") {
				t.Errorf("%s: no row for metric %s", s.Name, u.Name)
			}
		}
	}
	want := 0 // borders per row of the table being read
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "| key |"):
			want = 5
		case strings.HasPrefix(l, "| metric |"):
			want = 4
		case !strings.HasPrefix(l, "|"):
			continue
		}
		if n := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); n != want {
			t.Errorf("row with %d borders, want %d: %s", n, want, l)
		}
	}
}
