// Package catalog describes the registered scenarios (bench.Specs) for
// people and for scripts: what contend list prints, as text and as JSON.
// Each key is shown with its declared domain (bench.Key), so that the list
// and a bad value's error say the same thing.
package catalog

import (
	"fmt"
	"io"
	"strings"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/report"
)

// WriteText prints the scenarios named (registered with bench) as contend
// list does: each with its keys, metrics, hot functions and presets.
func WriteText(w io.Writer, names []string) {
	for i, n := range names {
		s, _ := bench.Lookup(n)
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (Benchmark%s in %s, at least %d %s)\n  %s\n", s.Name, s.BenchName, s.Package, s.MinWorkers, plural(s.MinWorkers, "worker"), s.Summary)
		fmt.Fprintf(w, "  variant keys:\n")
		for _, k := range s.Keys {
			fmt.Fprintf(w, "    %s (default %s)\n        %s\n", k, keyDefault(k), k.Doc)
		}
		fmt.Fprintf(w, "  metrics beside ns/op:\n")
		for _, u := range s.Units {
			fmt.Fprintf(w, "    %-22s %s (%s)\n", u.Name, u.Doc, report.BetterWords(u.Better))
		}
		fmt.Fprintf(w, "  hot functions (perf annotate): %s\n", strings.Join(s.HotSymbols, " "))
		fmt.Fprintf(w, "  quick sweep: %v\n", s.Quick)
		fmt.Fprintf(w, "  full sweep:  %d variants\n", len(s.Full))
	}
}

// WriteJSON prints the scenarios named as a JSON array, one object each:
// contend list -json, which scripts read (scripts/perf-annotate.sh its
// hot_symbols).
func WriteJSON(w io.Writer, names []string) error {
	type unit struct {
		Name   string `json:"name"`
		Better string `json:"better"` // lower, higher or check
		Doc    string `json:"doc"`
	}
	type key struct {
		Name    string `json:"name"`
		Default string `json:"default"` // "" when the other keys decide it
		Domain  string `json:"domain"`  // the values, as after "name=" in contend list
		Doc     string `json:"doc"`
		// OmitDefault: at its default the key is not in benchmark names.
		OmitDefault bool `json:"omit_default"`
	}
	type scenario struct {
		Name       string   `json:"name"`
		Benchmark  string   `json:"benchmark"`
		Package    string   `json:"package"`
		MinWorkers int      `json:"min_workers"`
		Summary    string   `json:"summary"`
		Keys       []key    `json:"keys"`
		Units      []unit   `json:"units"`
		HotSymbols []string `json:"hot_symbols"` // scripts/perf-annotate.sh reads them
		Quick      []string `json:"quick"`
		Full       []string `json:"full"`
	}
	var out []scenario
	for _, n := range names {
		s, _ := bench.Lookup(n)
		var keys []key
		for _, k := range s.Keys {
			keys = append(keys, key{k.Name, k.Default, k.Domain.Syntax(), k.Doc, k.OmitDefault})
		}
		var units []unit
		for _, u := range s.Units {
			units = append(units, unit{u.Name, u.Better.String(), u.Doc})
		}
		hot := append([]string{}, s.HotSymbols...) // [], not null, when none
		out = append(out, scenario{s.Name, "Benchmark" + s.BenchName, s.Package, s.MinWorkers, s.Summary, keys, units, hot, s.Quick, s.Full})
	}
	return bench.WriteJSON(w, out)
}

// keyDefault is a key's default as contend list says it.
func keyDefault(k bench.Key) string {
	switch {
	case k.Default == "":
		return "decided by the other keys"
	case k.OmitDefault:
		return k.Default + ", left out of names"
	}
	return k.Default
}

func plural(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}
