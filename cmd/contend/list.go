package main

import (
	"fmt"
	"io"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/catalog"
	"github.com/contend/contend/internal/sweep"
)

func init() {
	register(&command{
		name:    "list",
		summary: "list the scenarios, their variant keys, metrics, hot functions and preset variants",
		run:     listCmd,
	})
}

func listCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "list", "[-json | -md] [SCENARIO]")
	asJSON := fs.Bool("json", false, "print the scenarios as JSON")
	asMD := fs.Bool("md", false, "print the scenarios as Markdown, as docs/scenarios.md holds them")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	names := bench.Names()
	if len(pos) > 1 {
		return fmt.Errorf("list: want at most one scenario, got %d", len(pos))
	}
	if len(pos) == 1 {
		if _, err := bench.Lookup(pos[0]); err != nil {
			return fmt.Errorf("list: %w", err)
		}
		names = pos
	}
	switch {
	case *asJSON && *asMD:
		return fmt.Errorf("list: -json and -md exclude each other")
	case *asJSON:
		return catalog.WriteJSON(stdout, names)
	case *asMD:
		catalog.WriteMarkdown(stdout, names, []bench.Unit{sweep.Handoffs})
		return nil
	}
	catalog.WriteText(stdout, names)
	return nil
}
