package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

// docFiles are the user documentation whose commands the tests hold to
// the command line: the README and docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{"../../README.md"}, docs...)
}

// contendArgs returns the arguments of a contend command line: after
// "go run ./cmd/contend", "./contend", "contend" or a build of it named
// "./contend-*", with any "sudo" and VAR=value before it. ok is false for
// a line that runs something else.
func contendArgs(line string) (args []string, ok bool) {
	fields := strings.Fields(line)
	for len(fields) > 0 && (fields[0] == "sudo" || strings.Contains(fields[0], "=")) {
		fields = fields[1:]
	}
	switch {
	case len(fields) > 3 && fields[0] == "go" && fields[1] == "run" && fields[2] == "./cmd/contend":
		return fields[3:], true
	case len(fields) > 1 && (fields[0] == "contend" || fields[0] == "./contend" || strings.HasPrefix(fields[0], "./contend-")):
		return fields[1:], true
	}
	return nil, false
}

// A docCommand is a contend command line found in a document.
type docCommand struct {
	where string // file:line
	args  []string
}

// docCommands returns the contend command lines of file: each line of its
// code blocks that runs contend, less its comment, and each inline code
// span of its prose that does, unless it is a usage pattern ("[-json]",
// "a|b", "...", "FILE").
func docCommands(t *testing.T, file string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []docCommand
	inBlock := false
	for i, line := range strings.Split(string(b), "\n") {
		where := fmt.Sprintf("%s:%d", strings.TrimPrefix(file, "../../"), i+1)
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			line, _, _ = strings.Cut(line, " #")
			if args, ok := contendArgs(line); ok {
				cmds = append(cmds, docCommand{where, args})
			}
			continue
		}
		spans := strings.Split(line, "`")
		for j := 1; j < len(spans); j += 2 {
			if span := spans[j]; !strings.ContainsAny(span, "[]|<>…") && !strings.Contains(span, "...") && !placeholder.MatchString(span) {
				if args, ok := contendArgs(span); ok {
					cmds = append(cmds, docCommand{where, args})
				}
			}
		}
	}
	return cmds
}

// placeholder matches a usage pattern's argument: FILE, SCENARIO, N.
var placeholder = regexp.MustCompile(`(^|\s)[A-Z][A-Z0-9_]*(\s|$)`)

// problems returns what is wrong with a documented command: a command (or
// kernel subcommand) that does not exist, a flag it lacks, a bad flag
// value, and for run and list a scenario or variant that does not exist.
// Commands are not run (sweeps take minutes): -h after the arguments makes
// the flag package check everything before it and stop.
func (dc docCommand) problems() []string {
	args := dc.args
	name := "contend " + strings.Join(args, " ")
	c, ok := commands[args[0]]
	if !ok {
		return []string{fmt.Sprintf("%s: %s: unknown command %q", dc.where, name, args[0])}
	}
	if len(args) == 1 { // the command named in prose: "`contend kernel` checks ..."
		return nil
	}
	if args[0] == "kernel" && kernelSubs[args[1]] == nil {
		return []string{fmt.Sprintf("%s: %s: no such kernel subcommand", dc.where, name)}
	}
	var bad []string
	if err := c.run(io.Discard, io.Discard, append(args[1:len(args):len(args)], "-h")); !errors.Is(err, flag.ErrHelp) {
		bad = append(bad, fmt.Sprintf("%s: %s: %v", dc.where, name, err))
	}
	if args[0] != "run" && args[0] != "list" || len(args) < 2 || strings.HasPrefix(args[1], "-") {
		return bad
	}
	spec, err := bench.Lookup(args[1])
	if err != nil {
		return append(bad, fmt.Sprintf("%s: %s: %v", dc.where, name, err))
	}
	for i, a := range args {
		if a == "-variant" && i+1 < len(args) {
			if _, err := spec.New(args[i+1]); err != nil {
				bad = append(bad, fmt.Sprintf("%s: %s: %v", dc.where, name, err))
			}
		}
	}
	return bad
}

// Every contend command the README and docs/ show parses: the command and
// subcommand exist, and so do its flags, with valid values.
func TestDocCommands(t *testing.T) {
	n := 0
	for _, file := range docFiles(t) {
		for _, c := range docCommands(t, file) {
			n++
			for _, p := range c.problems() {
				t.Error(p)
			}
		}
	}
	if n < 20 {
		t.Fatalf("found only %d contend commands in README.md and docs/", n)
	}
}

// A made-up flag, subcommand, command or variant fails the check.
func TestDocCommandsCatchMistakes(t *testing.T) {
	for _, line := range []string{
		"go run ./cmd/contend sweep -quik",
		"contend reproduce -from x.txt -verbose",
		"sudo ./contend kernel site",
		"./contend swep -quick",
		"CONTEND=1 contend run loadavg -variant preset=nope",
	} {
		args, ok := contendArgs(line)
		if !ok {
			t.Errorf("%q: not read as a contend command", line)
			continue
		}
		if p := (docCommand{"test", args}).problems(); len(p) == 0 {
			t.Errorf("%q passed the check", line)
		}
	}
}

// The README opens with the two commands: the quick sweep, the main job,
// and the test command, in that order, and no other; the cheap commands the
// documents show run for real.
func TestREADMEFirstCommands(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	var first []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		l, _, _ = strings.Cut(l, " #")
		first = append(first, strings.Join(strings.Fields(l), " "))
	}
	want := []string{"go run ./cmd/contend sweep -quick", "GORACE=atexit_sleep_ms=0 go test -race -bench=. -benchtime=1x ./..."}
	if fmt.Sprint(first) != fmt.Sprint(want) {
		t.Errorf("README's first commands are %q, want %q", first, want)
	}
	// CI runs the README's test command, as the README says.
	if ci, err := os.ReadFile("../../.ci/run"); err != nil || !strings.Contains(string(ci), "\n"+want[1]+"\n") {
		t.Errorf(".ci/run has no line %q (%v)", want[1], err)
	}
	for _, file := range docFiles(t) {
		for _, c := range docCommands(t, file) {
			if (c.args[0] == "topo" || c.args[0] == "list") && !strings.Contains(strings.Join(c.args, " "), "-sysfs") {
				if _, _, err := runContend(c.args...); err != nil {
					t.Errorf("%s: contend %s: %v", c.where, strings.Join(c.args, " "), err)
				}
			}
		}
	}
}

// docs/scenarios.md is what contend list -md writes from the registry:
// regenerate it with `go run ./cmd/contend list -md > docs/scenarios.md`.
// And this command's documentation names every scenario.
func TestScenariosDocCurrent(t *testing.T) {
	want, _, err := runContend("list", "-md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("docs/scenarios.md is not what contend list -md writes: run go run ./cmd/contend list -md > docs/scenarios.md")
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
