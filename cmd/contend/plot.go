package main

import (
	"fmt"
	"io"

	"github.com/contend/contend/internal/figure"
)

func init() {
	register(&command{
		name:    "plot",
		summary: "draw a results file as SVG/PNG: a panel per scenario (scaling curves, or dots per variant) or a core-to-core heatmap",
		run:     plotCmd,
	})
}

const plotUsage = "[-o out.svg] [-format svg|png|both] [-unit ops/s|ns/op|UNIT] [-scale auto|linear|log] [-style auto|curves|dots] [-x threads] [-a a] [-b b] [-filter EXPR] results.txt"

type plotFlags struct {
	out, format, unit, x, a, b, filter, scale, style string
}

func plotCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "plot", plotUsage)
	var f plotFlags
	fs.StringVar(&f.out, "o", "", "output `file`, .svg or .png (default: the results file's name with .svg)")
	fs.StringVar(&f.format, "format", "", "output `format`: svg, png or both (default: from -o's extension)")
	fs.StringVar(&f.unit, "unit", "", "plotted `unit`: ops/s (throughput, the curves' default), ns/op (the heatmap's default) or any unit in the file")
	fs.StringVar(&f.x, "x", "threads", "name `key` of the thread counts: the curves' x axis, the dot plots' dots")
	fs.StringVar(&f.scale, "scale", "auto", "value axis `scale`: linear, log, or auto (log where a panel's values span more than 30×)")
	fs.StringVar(&f.style, "style", "auto", "`style`: curves (value vs threads, a line per variant), dots (a row per variant), or auto (curves with 3+ thread counts and at most 10 variants a panel)")
	fs.StringVar(&f.a, "a", "a", "name `key` of a heatmap's rows (the first cpu of a pair); cpu_a is tried when a is absent")
	fs.StringVar(&f.b, "b", "b", "name `key` of a heatmap's columns (the second cpu); cpu_b is tried when b is absent")
	fs.StringVar(&f.filter, "filter", "*", "plot only results matching the benchstat filter `EXPR`, e.g. /place:spread")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("plot: want one results file, got %d arguments (usage: contend plot %s)", len(pos), plotUsage)
	}
	outs, err := figure.Outputs(f.out, f.format, pos[0])
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	rs, err := readResults(stderr, "plot", pos)
	if err != nil {
		return err
	}
	fig, err := figure.New(rs, figure.Options{Filter: f.filter, Unit: f.unit, X: f.x, A: f.a, B: f.b,
		XSet: flagSet(fs, "x"), ABSet: flagSet(fs, "a") || flagSet(fs, "b"), Scale: f.scale, Style: f.style})
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if err := fig.WriteFiles(stdout, outs); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
