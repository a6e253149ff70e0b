package bench

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// testKeys are a scenario's keys with one domain of each kind.
var testKeys = []Key{
	{Name: "line", Default: "shared", Domain: OneOf("shared", "private"), Doc: "d"},
	{Name: "work", Default: "0", Domain: IntRange(0, 100), Doc: "d"},
	{Name: "gap", Default: "40us", Domain: DurationRange(time.Microsecond, 100*time.Millisecond), Doc: "d"},
	{Name: "span", Default: "auto", Domain: Or(OneOf("auto"), IntRange(2, 8)), Doc: "d"},
	{Name: "pair", Default: "1x1", Domain: Form("AxB", "A and B 1..9", func(v string) (string, error) {
		if len(v) == 3 && v[0] >= '1' && v[0] <= '9' && v[1] == 'x' && v[2] >= '1' && v[2] <= '9' {
			return v, nil
		}
		if len(v) == 3 && v[1] == 'X' {
			return v[:1] + "x" + v[2:], nil
		}
		return "", errors.New("not two digits joined by x")
	}), Doc: "d"},
}

func TestParseParams(t *testing.T) {
	const def = "line=shared/work=0/gap=40us/span=auto/pair=1x1"
	tests := []struct {
		variant string
		want    string // canonical form, or an error's piece after "!"
	}{
		{"", def},
		{"work=5", "line=shared/work=5/gap=40us/span=auto/pair=1x1"},
		{"span=4/work=5/line=private", "line=private/work=5/gap=40us/span=4/pair=1x1"},
		{"gap=0.04ms", def}, // one duration, one spelling
		{"gap=40000ns", def},
		{"gap=1500us", "line=shared/work=0/gap=1500us/span=auto/pair=1x1"},
		{"pair=2X3", "line=shared/work=0/gap=40us/span=auto/pair=2x3"},
		{"line", "!malformed variant part \"line\" in \"line\" (want key=value joined by /)"},
		{"line=", "!malformed variant part"},
		{"=x", "!malformed variant part"},
		{"line=shared/", "!malformed variant part \"\""},
		{"color=red", "!test: unknown variant key \"color\" (want line, work, gap, span, pair)"},
		{"line=shared/line=private", "!test: variant key \"line\" given twice"},
		{"line=both", "!test: line=\"both\": unknown value (want shared|private)"},
		{"line=Shared", "!line=\"Shared\": unknown value"},
		{"work=101", "!test: work=\"101\": out of range (want 0..100)"},
		{"work=-1", "!work=\"-1\": out of range (want 0..100)"},
		{"work=99999999999999999999", "!: out of range (want 0..100)"},
		{"work=05", "!test: work=\"05\": spelt with a sign or a leading zero (want 0..100)"},
		{"work=+5", "!work=\"+5\": spelt with a sign"},
		{"work=1e2", "!: not an integer (want 0..100)"},
		{"gap=40", "!test: gap=\"40\": not a duration such as 40us (want 1us..100ms)"},
		{"gap=999ns", "!test: gap=\"999ns\": out of range (want 1us..100ms)"},
		{"gap=1s", "!gap=\"1s\": out of range"},
		{"span=9", "!test: span=\"9\": out of range (want auto|2..8)"},
		{"span=x", "!test: span=\"x\": unknown value (want auto|2..8)"},
		{"pair=11", "!test: pair=\"11\": not two digits joined by x (want AxB; A and B 1..9)"},
		{"work=\n", "!\"\\n\""},
	}
	for _, tt := range tests {
		p, err := ParseParams("test", tt.variant, testKeys)
		if piece, isErr := strings.CutPrefix(tt.want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), piece) {
				t.Errorf("ParseParams(%q) error = %v, want one containing %q", tt.variant, err, piece)
			} else if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "test: ") {
				t.Errorf("ParseParams(%q) error = %q, want one line starting with the scenario", tt.variant, err)
			}
			continue
		}
		if err != nil || p.String() != tt.want {
			t.Errorf("ParseParams(%q) = %v, %v; want %q", tt.variant, p, err, tt.want)
			continue
		}
		if again, err := ParseParams("test", p.String(), testKeys); err != nil || again.String() != p.String() {
			t.Errorf("ParseParams(%q) = %v, %v; want the canonical name back", p, again, err)
		}
	}
}

// A key added with OmitDefault keeps the names of results recorded before
// it: its part appears only off its default.
func TestOmitDefault(t *testing.T) {
	keys := append(testKeys[:len(testKeys):len(testKeys)], Key{Name: "sync", Default: "off", Domain: OneOf("off", "on"), Doc: "d", OmitDefault: true})
	for in, want := range map[string]string{
		"":                     "line=shared/work=0/gap=40us/span=auto/pair=1x1",
		"sync=off/work=3":      "line=shared/work=3/gap=40us/span=auto/pair=1x1",
		"sync=on/work=3":       "line=shared/work=3/gap=40us/span=auto/pair=1x1/sync=on",
		"line=private/sync=on": "line=private/work=0/gap=40us/span=auto/pair=1x1/sync=on",
	} {
		p, err := ParseParams("test", in, keys)
		if err != nil || p.String() != want {
			t.Errorf("ParseParams(%q) = %v, %v; want %q", in, p, err, want)
		}
	}
	if err := checkKeys([]Key{{Name: "sync", Domain: OneOf("on"), Doc: "d", OmitDefault: true}}); err == nil {
		t.Error("checkKeys accepted OmitDefault without a default")
	}
}

func TestParamsValues(t *testing.T) {
	p, err := ParseParams("test", "line=private/work=7/gap=2ms/span=3", testKeys)
	if err != nil {
		t.Fatal(err)
	}
	if p.Get("line") != "private" || p.Index("line") != 1 || p.Int("work") != 7 || p.Duration("gap") != 2*time.Millisecond || p.Get("span") != "3" {
		t.Errorf("values of %v: line %q (index %d), work %d, gap %v, span %q", p, p.Get("line"), p.Index("line"), p.Int("work"), p.Duration("gap"), p.Get("span"))
	}
	if err := p.Set("gap", "0.5ms"); err != nil || p.Get("gap") != "500us" {
		t.Errorf("Set(gap, 0.5ms): %v, gap %q; want 500us", err, p.Get("gap"))
	}
	if err := p.Set("work", "1000"); err == nil || !strings.Contains(err.Error(), `test: work="1000": out of range (want 0..100)`) {
		t.Errorf("Set(work, 1000) = %v, want the domain's error", err)
	}
	for name, f := range map[string]func(){
		"Get of an undeclared key": func() { p.Get("colour") },
		"Index of a non-OneOf":     func() { p.Index("work") },
		"Int of a word":            func() { p.Int("line") },
		"Duration of a word":       func() { p.Duration("line") },
	} {
		if !panics(f) {
			t.Errorf("%s did not panic: a constructor's typo must fail its first test", name)
		}
	}
}

// A key whose default or domain has a typo is refused where it is declared
// or registered, not found by a user.
func TestKeyDeclarationErrors(t *testing.T) {
	doc := "d"
	for _, tt := range []struct {
		name string
		keys []Key
		want string
	}{
		{"default outside a choice", []Key{{Name: "line", Default: "shard", Domain: OneOf("shared", "private"), Doc: doc}}, `key line: default: line="shard": unknown value (want shared|private)`},
		{"default outside a range", []Key{{Name: "work", Default: "101", Domain: IntRange(0, 100), Doc: doc}}, `key work: default: work="101": out of range`},
		{"default not canonical", []Key{{Name: "gap", Default: "0.04ms", Domain: DurationRange(0, time.Second), Doc: doc}}, `key gap: default "0.04ms" is spelt "40us" canonically`},
		{"no domain", []Key{{Name: "line", Default: "shared", Doc: doc}}, "key line: no domain"},
		{"no doc", []Key{{Name: "line", Default: "shared", Domain: OneOf("shared")}}, "key line: no doc"},
		{"bad name", []Key{{Name: "Line", Default: "shared", Domain: OneOf("shared"), Doc: doc}}, `key "Line": a name is lower-case`},
		{"the runner's name", []Key{{Name: "threads", Default: "1", Domain: IntRange(1, 2), Doc: doc}}, "key threads: the name is the runner's"},
		{"twice", []Key{{Name: "a", Default: "x", Domain: OneOf("x"), Doc: doc}, {Name: "a", Default: "x", Domain: OneOf("x"), Doc: doc}}, "key a declared twice"},
	} {
		err := checkKeys(tt.keys)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: checkKeys = %v, want %q", tt.name, err, tt.want)
		}
		spec := &Spec{Name: "keytest-" + tt.name, BenchName: "KeyTest", Keys: tt.keys,
			New: func(string) (Scenario, error) { return nil, nil }}
		if !panics(func() { Register(spec) }) {
			t.Errorf("%s: Register did not panic", tt.name)
		}
	}
	if err := checkKeys(testKeys); err != nil {
		t.Errorf("checkKeys(testKeys) = %v", err)
	}
	for name, f := range map[string]func(){
		"OneOf()":                   func() { OneOf() },
		"OneOf with a value twice":  func() { OneOf("a", "b", "a") },
		"OneOf with an empty value": func() { OneOf("a", "") },
		"OneOf with a /":            func() { OneOf("a/b") },
		"OneOf with a -N suffix":    func() { OneOf("0-3") },
		"IntRange(5, 1)":            func() { IntRange(5, 1) },
		"DurationRange(1s, 1ms)":    func() { DurationRange(time.Second, time.Millisecond) },
		"Form without a canon":      func() { Form("x", "", nil) },
		"Form without a syntax":     func() { Form("", "", func(v string) (string, error) { return v, nil }) },
		"Form with a \"; \" syntax": func() { Form("a; b", "", func(v string) (string, error) { return v, nil }) },
		"Or of one":                 func() { Or(OneOf("a")) },
		"Or of a Form":              func() { Or(OneOf("a"), Form("x", "", func(v string) (string, error) { return v, nil })) },
	} {
		if !panics(f) {
			t.Errorf("%s did not panic", name)
		}
	}
	// A Form whose canonical spelling a name cannot carry is its own bug,
	// reported as an error rather than written into a benchmark name.
	bad := Form("x", "", func(v string) (string, error) { return v + "-1", nil })
	if _, err := bad.Canon("k", "v"); err == nil || !strings.Contains(err.Error(), "GOMAXPROCS") {
		t.Errorf("Form spelling v as v-1: %v, want an error", err)
	}
}

func TestKeyString(t *testing.T) {
	want := []string{"line=shared|private", "work=0..100", "gap=1us..100ms", "span=auto|2..8", "pair=AxB; A and B 1..9"}
	for i, k := range testKeys {
		if got := k.String(); got != want[i] {
			t.Errorf("Key %s String() = %q, want %q", k.Name, got, want[i])
		}
	}
}

// FuzzParseParams: whatever the variant, ParseParams never panics, its
// error is one line, a refused value's error ends in its key's domain as
// contend list shows it, and a variant it accepts names itself
// canonically.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{"", "work=5", "line=private/gap=0.5ms", "span=auto/span=3", "gap=1e3us", "x=y", "line", "pair=2X3/span=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, variant string) {
		p, err := ParseParams("test", variant, testKeys)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseParams(%q) error on two lines: %q", variant, err)
			}
			for _, k := range testKeys {
				if strings.HasPrefix(err.Error(), "test: "+k.Name+"=\"") && !strings.HasSuffix(err.Error(), "(want "+k.Domain.Syntax()+")") {
					t.Fatalf("ParseParams(%q) error %q does not end in %s's domain (want %s)", variant, err, k.Name, k.Domain.Syntax())
				}
			}
			return
		}
		again, err := ParseParams("test", p.String(), testKeys)
		if err != nil || again.String() != p.String() {
			t.Fatalf("ParseParams(%q) named %q, which reads back as %v, %v", variant, p, again, err)
		}
	})
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}
