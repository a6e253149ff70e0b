package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

// readmeCommands returns the contend command lines in the README's shell
// blocks, without the program name and comments.
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			continue
		}
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 3 && fields[0] == "go" && fields[1] == "run" && fields[2] == "./cmd/contend":
			cmds = append(cmds, fields[3:])
		case len(fields) >= 1 && fields[0] == "./contend":
			cmds = append(cmds, fields[1:])
		}
	}
	if len(cmds) < 5 {
		t.Fatalf("found only %d contend commands in README.md", len(cmds))
	}
	return cmds
}

// Every contend command the README shows must name a real command, flags it
// has, valid flag values, and for run a real scenario and variant. Commands
// are not run (sweeps take minutes): -h after the arguments makes the flag
// package check everything before it and stop.
func TestREADMECommands(t *testing.T) {
	for _, args := range readmeCommands(t) {
		name := strings.Join(args, " ")
		c, ok := commands[args[0]]
		if !ok {
			t.Errorf("README: %q: unknown command %q", name, args[0])
			continue
		}
		err := c.run(io.Discard, io.Discard, append(args[1:len(args):len(args)], "-h"))
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("README: contend %s: %v", name, err)
		}
		if args[0] == "run" || args[0] == "list" {
			if len(args) < 2 {
				continue
			}
			spec, err := bench.Lookup(args[1])
			if err != nil {
				t.Errorf("README: contend %s: %v", name, err)
				continue
			}
			for i, a := range args {
				if a == "-variant" && i+1 < len(args) {
					if _, err := spec.New(args[i+1]); err != nil {
						t.Errorf("README: contend %s: %v", name, err)
					}
				}
			}
		}
	}
}

// The README's main job is the quick sweep, and its cheap commands run for real.
func TestREADMECheapCommandsRun(t *testing.T) {
	cmds := readmeCommands(t)
	if got := strings.Join(cmds[0], " "); got != "sweep -quick" {
		t.Errorf("README's first command is contend %q, want the quick sweep", got)
	}
	for _, args := range cmds {
		if args[0] != "topo" && args[0] != "list" {
			continue
		}
		if _, _, err := runContend(args...); err != nil {
			t.Errorf("README: contend %s: %v", strings.Join(args, " "), err)
		}
	}
}

// The README's scenario table and this command's documentation follow the
// registry: every scenario has a row naming each of its variant keys and
// metrics, no row names a scenario that does not exist, and doc.go lists
// every scenario by name.
func TestREADMEScenarioTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "| `"); ok {
			name, _, _ = strings.Cut(name, "`")
			rows[name] = line
		}
	}
	for _, spec := range bench.Specs() {
		row, ok := rows[spec.Name]
		if !ok {
			t.Errorf("README: no row for scenario %s", spec.Name)
			continue
		}
		delete(rows, spec.Name)
		for _, k := range spec.Keys {
			if !strings.Contains(row, "`"+k.Name+"=") && !strings.Contains(row, " "+k.Name+"=") {
				t.Errorf("README: row %s lacks variant key %s=", spec.Name, k.Name)
			}
		}
		for _, u := range spec.Units {
			if !strings.Contains(row, "`"+u.Name+"`") {
				t.Errorf("README: row %s lacks metric `%s`", spec.Name, u.Name)
			}
		}
	}
	for name := range rows {
		t.Errorf("README: row for %s, which is not a registered scenario", name)
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range bench.Names() {
		if !strings.Contains(string(doc), name) {
			t.Errorf("doc.go does not mention scenario %s", name)
		}
	}
}
