package report

import (
	"bytes"
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
)

// SpecHeadline returns the unit a scenario's summary row leads with beside
// time, by the scenario's benchmark name: its registered spec's first unit
// (see bench.Spec.Units); "" for a name no registered spec has.
func SpecHeadline(benchName string) string {
	for _, s := range bench.Specs() {
		if s.BenchName == benchName && len(s.Units) > 0 {
			return s.Units[0].Name
		}
	}
	return ""
}

// SummarizeFile prints the summary of the results file path, headlined by
// the registered specs: what a sweep leads with.
func SummarizeFile(w io.Writer, path string) error {
	rs, err := results.Read([]string{path})
	if err != nil {
		return err
	}
	return WriteSummary(w, rs, SummaryOptions{File: path, Headline: SpecHeadline})
}

// SummarizeRecords prints the summary of results held in memory (contend
// run -count's), naming file as where they went.
func SummarizeRecords(w io.Writer, recs []*benchfmt.Result, file string) error {
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
	return WriteSummary(w, rs, SummaryOptions{File: file, Headline: SpecHeadline,
		Disturbers: "the WARNING lines above say who took the cpus"})
}
