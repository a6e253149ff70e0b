package main

import (
	"fmt"
	"io"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/catalog"
)

func init() {
	register(&command{
		name:    "list",
		summary: "list the scenarios, their variant keys, metrics, hot functions and preset variants",
		run:     listCmd,
	})
}

func listCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "list", "[-json] [SCENARIO]")
	asJSON := fs.Bool("json", false, "print the scenarios as JSON")
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
	if *asJSON {
		return catalog.WriteJSON(stdout, names)
	}
	catalog.WriteText(stdout, names)
	return nil
}
