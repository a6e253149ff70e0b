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

// WriteMarkdown prints the scenarios named as docs/scenarios.md holds them
// (contend list -md): per scenario its summary, a table of variant keys and
// one of metrics, its hot functions and presets; then the metrics every run
// reports (bench.RunUnits) and those a sweep adds (extra). The registry is
// the one source: a test in cmd/contend fails when the file differs.
func WriteMarkdown(w io.Writer, names []string, extra []bench.Unit) {
	fmt.Fprint(w, "# Scenarios and metrics\n\n")
	fmt.Fprint(w, "Written by `contend list -md` from the scenario registry (bench.Specs); do not edit by hand.\n")
	fmt.Fprint(w, "`contend list SCENARIO` prints the same for one scenario, `contend list -json` for scripts.\n")
	fmt.Fprint(w, "A variant is `key=value` pairs joined by `/`, as in `contend run loadavg -variant preset=rate`; a key left out takes its default.\n\n")
	for _, n := range names {
		s, _ := bench.Lookup(n)
		fmt.Fprintf(w, "## %s\n\n%s\n\n", s.Name, s.Summary)
		fmt.Fprintf(w, "`Benchmark%s` in `%s`, at least %d %s.\n\n", s.BenchName, strings.TrimPrefix(s.Package, "github.com/contend/contend/"), s.MinWorkers, plural(s.MinWorkers, "worker"))
		fmt.Fprint(w, "| key | values | default | what it sets |\n|---|---|---|---|\n")
		for _, k := range s.Keys {
			fmt.Fprintf(w, "| `%s` | `%s` | %s | %s |\n", k.Name, mdCell(k.Domain.Syntax()), mdCell(keyDefault(k)), mdCell(k.Doc))
		}
		fmt.Fprint(w, "\n")
		writeUnits(w, s.Units)
		fmt.Fprintf(w, "Hot functions (perf annotate): %s.\n\n", mdCodes(s.HotSymbols))
		fmt.Fprintf(w, "Quick sweep: %s. Full sweep: %d variants.\n\n", mdCodes(s.Quick), len(s.Full))
	}
	fmt.Fprint(w, "## Every run\n\nBeside each scenario's own metrics, every run reports how evenly its workers progressed, sampled latency, and how disturbed it was; tables leave the disturbance figures out and mark the cells whose runs were disturbed instead.\n\n")
	writeUnits(w, bench.RunUnits)
	if len(extra) > 0 {
		fmt.Fprint(w, "A sweep adds:\n\n")
		writeUnits(w, extra)
	}
}

// writeUnits writes a table of metrics.
func writeUnits(w io.Writer, units []bench.Unit) {
	fmt.Fprint(w, "| metric | what it counts | better |\n|---|---|---|\n")
	for _, u := range units {
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", u.Name, mdCell(u.Doc), u.Better)
	}
	fmt.Fprint(w, "\n")
}

// mdCell keeps a table cell one cell: its pipes escaped.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// mdCodes writes names as code, comma-separated; "none" where there are none.
func mdCodes(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return "`" + strings.Join(names, "`, `") + "`"
}
