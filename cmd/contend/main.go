package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/contend/contend/bench"
	// Every scenario, registered for bench.Lookup.
	_ "github.com/contend/contend/bench/all"
)

// The main goroutine keeps the main thread for itself: the main thread's
// affinity mask is the process's (what perf and children inherit, what
// sched_getaffinity(pid) reports), so no worker may ever pin it, and a locked
// goroutine exiting on it would wedge it rather than destroy it.
func init() { runtime.LockOSThread() }

func main() {
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "contend: %v\n", err)
		os.Exit(1)
	}
}

// A command is one contend subcommand.
type command struct {
	name    string
	summary string
	run     func(stdout, stderr io.Writer, args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// run is contend's whole command line, as a function tests can call.
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return errors.New("no command given")
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			usage(stdout)
			return nil
		}
		c, ok := commands[rest[0]]
		if !ok {
			return fmt.Errorf("help: unknown command %q (want %s)", rest[0], commandNames())
		}
		// "help run -threads 0" is not a run: refuse what would be
		// silently dropped rather than print run's help and succeed.
		if len(rest) > 1 {
			return fmt.Errorf("help: want one command name, got extra arguments %q (for %s's flags: contend help %s)",
				strings.Join(rest[1:], " "), rest[0], rest[0])
		}
		if err := c.run(stdout, stderr, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
			return err
		}
		return nil
	}
	c, ok := commands[name]
	if !ok {
		return fmt.Errorf("unknown command %q (want %s)", name, commandNames())
	}
	return c.run(stdout, stderr, rest)
}

func commandNames() string { return strings.Join(sortedCommands(), ", ") }

func sortedCommands() []string { return slices.Sorted(maps.Keys(commands)) }

func usage(w io.Writer) {
	fmt.Fprintf(w, "contend measures cache-line contention in the Linux scheduler's hot data structures.\n\n")
	fmt.Fprintf(w, "Usage:\n\n\tcontend <command> [flags] [arguments]\n\nCommands:\n\n")
	for _, n := range sortedCommands() {
		fmt.Fprintf(w, "\t%-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nRun 'contend help <command>' for a command's flags.\n")
}

// newFlags returns a flag set whose errors come back as one-line errors naming
// the command, and whose -h prints the command's usage to stdout (parseFlags
// prints it: the flag package calls Usage on every bad flag too, and a bad
// flag must be one line on stderr, not the usage on stdout).
func newFlags(stdout io.Writer, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: contend %s %s\n\n%s\n\nFlags:\n", name, synopsis, commands[name].summary)
		shown := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.VisitAll(func(f *flag.Flag) {
			if _, hidden := f.Value.(hiddenFlag); !hidden {
				shown.Var(f.Value, f.Name, f.Usage)
				shown.Lookup(f.Name).DefValue = f.DefValue // not what earlier flags set
			}
		})
		shown.SetOutput(stdout)
		shown.PrintDefaults()
	}
	return fs
}

// A hiddenFlag is another spelling of a flag, which parses as that flag
// does but which -h does not list (sweep's -variants, for -variant).
type hiddenFlag struct{ flag.Value }

// parseFlags parses args, allowing flags after positional arguments
// ("contend run loadavg --threads 2"), and returns the positional ones.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	printUsage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = printUsage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage()
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseNoArgs parses args for a command that takes flags only.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	pos, err := parseFlags(fs, args)
	if err == nil && len(pos) > 0 {
		err = fmt.Errorf("%s: unexpected argument %q", fs.Name(), pos[0])
	}
	return err
}

// flagSet reports whether the command line set flag name.
func flagSet(fs *flag.FlagSet, name string) bool { return bench.FlagGiven(fs, name) }

// writeJSON prints v as indented JSON, for -json.
func writeJSON(w io.Writer, v any) error { return bench.WriteJSON(w, v) }
