package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/results"
	"golang.org/x/perf/benchfmt"
)

// headline returns the unit a scenario's summary row leads with beside
// time, by the scenario's benchmark name: its spec's first unit (see
// bench.Spec.Units).
func headline(benchName string) string {
	for _, s := range bench.Specs() {
		if s.BenchName == benchName && len(s.Units) > 0 {
			return s.Units[0].Name
		}
	}
	return ""
}

// writeSummary prints the summary of the results file path: what a sweep
// leads with.
func writeSummary(w io.Writer, path string) error {
	rs, err := results.Read([]string{path})
	if err != nil {
		return err
	}
	return report.WriteSummary(w, rs, report.SummaryOptions{File: path, Headline: headline})
}

// summarizeRecords prints the summary of results held in memory (contend
// run -count's), naming file as where they went.
func summarizeRecords(w io.Writer, recs []*benchfmt.Result, file string) error {
	var buf bytes.Buffer
	bw := benchfmt.NewWriter(&buf)
	for _, r := range recs {
		if err := bw.Write(r); err != nil {
			return err
		}
	}
	rs, err := results.Parse(&buf, "results")
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return report.WriteSummary(w, rs, report.SummaryOptions{File: file, Headline: headline,
		Disturbers: "the WARNING lines above say who took the cpus"})
}
