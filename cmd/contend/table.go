package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/results"
)

func init() {
	register(&command{
		name:    "table",
		summary: "lay out one results file as variants × threads: median ± 95% confidence interval per cell",
		run:     tableCmd,
	})
}

const tableUsage = "[-row KEYS] [-col KEYS] [-filter EXPR] [-unit UNITS] [-full-names] [-json] results.txt"

func tableCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "table", tableUsage)
	var sf statFlags
	sf.register(fs, ".fullname", "/threads@num")
	asJSON := fs.Bool("json", false, "print the table's cells as JSON, one object per line (median, interval, samples, disturbed runs)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("table: want one results file, got %d arguments (usage: contend table %s)", len(pos), tableUsage)
	}
	if err := sf.check(fs.Name()); err != nil {
		return err
	}
	rs, err := readResults(stderr, "table", pos)
	if err != nil {
		return err
	}
	// A file without thread counts (a go test file of some other
	// benchmark, a core-to-core matrix) still makes a table: one column.
	// contend ab's file has a column per side, old and new, which a cell
	// must not mix.
	switch {
	case flagSet(fs, "col"):
	case rs.Results[0].GetConfig(results.SideKey) != "":
		sf.col = abColumns
	case !slices.Contains(rs.NameKeys(), "/threads"):
		sf.col = ".file"
	}
	rep, err := report.Build(rs, sf.opts(0, false))
	if err != nil {
		return fmt.Errorf("table: %w", err)
	}
	if *asJSON {
		return rep.WriteJSON(stdout)
	}
	return rep.WriteText(stdout)
}
