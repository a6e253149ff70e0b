package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/internal/results"
	"github.com/contend/contend/internal/sweep"
)

func init() {
	register(&command{
		name:    "ab",
		summary: "measure two contend binaries (old, new) in one session, interleaved round by round, into one results file, and compare them (-fail-on: the CI gate)",
		run:     abCmd,
	})
}

const abUsage = "-old BIN -new BIN [-fail-on PCT] [-quick | -full] [-scenarios LIST] [-variant LIST] [-threads LIST] [-place LIST] [-cpus LIST] [-count N] [-duration D] [-o FILE] [-oversubscribe] [-fake-nodes K]"

// abCount is ab's default number of rounds: enough pairs for the sign test
// of compare -fail-on to show one of 10 metrics worse at its α of 0.01
// (2⁻¹⁰ < 0.01/10), and even, so each side runs first in half the rounds.
const abCount = 10

func abCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "ab", abUsage)
	var pf presetFlags
	pf.register(fs,
		"the quick preset, the default: every scenario's quick variants at 1 and 2 threads, compact",
		"the full preset instead of the quick one (see contend sweep -full)")
	oldBin := fs.String("old", "", "the old contend `binary` (go build -o old ./cmd/contend at the old revision)")
	newBin := fs.String("new", "", "the new contend `binary`")
	var mf matrixFlags
	mf.register(fs)
	out := fs.String("o", "", "results `file` (default out/ab-<time>.txt)")
	oversubscribe := fs.Bool("oversubscribe", false, "allow more workers than usable cpus")
	var failOn percentFlag
	fs.Var(&failOn, "fail-on", "then exit non-zero when a metric got worse by more than `PCT` per cent, as contend compare -fail-on judges it")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	for _, b := range []struct{ flag, path string }{{"-old", *oldBin}, {"-new", *newBin}} {
		if b.path == "" {
			return fmt.Errorf("ab: want %s BIN (usage: contend ab %s)", b.flag, abUsage)
		}
		if fi, err := os.Stat(b.path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("ab: %s %s: not an executable file", b.flag, b.path)
		}
	}
	if flagSet(fs, "sysfs") {
		return fmt.Errorf("ab: -sysfs describes another machine; ab measures this one")
	}
	t, err := pf.topology(fs, true)
	if err != nil {
		return err
	}
	m, err := pf.matrix(fs, t, &mf, *oversubscribe)
	if err != nil {
		return err
	}
	if m.Count == 0 {
		m.Count = abCount
	}
	m.Target = sweep.NoTarget // every configuration runs every round: pairs
	plan, err := sweep.Build(t, m)
	if err != nil {
		return fmt.Errorf("ab: %w", err)
	}
	if *out == "" {
		*out = defaultOut("ab")
	}
	var extra []string
	if *oversubscribe {
		extra = append(extra, "-oversubscribe")
	}
	if flagSet(fs, "fake-nodes") {
		extra = append(extra, "-fake-nodes", strconv.Itoa(pf.topo.fake))
	}
	plan.Command = os.Args
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sides := [2]sweep.Side{binSide("old", *oldBin, extra), binSide("new", *newBin, extra)}
	o, err := plan.RunAB(ctx, *out, results.NewSession(), sides, stderr)
	if err != nil {
		return fmt.Errorf("ab: %w", err)
	}
	fmt.Fprintf(stderr, "ab: %d pairs in %s (session %s), %s\n", o.Pairs, *out, o.Session, o.Took.Round(100*time.Millisecond))
	if o.Pairs == 0 {
		return fmt.Errorf("ab: every configuration failed (the file's \"# failed:\" lines say why)")
	}
	cmp := []string{*out}
	if flagSet(fs, "fail-on") {
		cmp = []string{"-fail-on", failOn.String(), *out}
	}
	if err := compareCmd(stdout, stderr, cmp); err != nil {
		return err
	}
	if len(o.Failed) > 0 {
		return fmt.Errorf("ab: %d configurations failed and ran no further round (the file's \"# failed:\" lines say why)", len(o.Failed))
	}
	return nil
}

// binSide is a side of an A/B run that runs contend binary bin: one
// "contend run" per configuration and round, on the configuration's cpus,
// its benchmark line read from stdout.
func binSide(name, bin string, extra []string) sweep.Side {
	return sweep.Side{Name: name, Run: func(ctx context.Context, j sweep.Job, d time.Duration) (*benchfmt.Result, error) {
		cpus := make([]string, len(j.CPUs))
		for i, c := range j.CPUs {
			cpus[i] = strconv.Itoa(c)
		}
		args := []string{"run", j.Spec.Name, "-cpus", strings.Join(cpus, ","), "-threads", strconv.Itoa(j.Threads),
			"-duration", d.String(), "-count", "1"}
		if j.Variant != "" {
			args = append(args, "-variant", j.Variant)
		}
		cmd := exec.CommandContext(ctx, bin, append(args, extra...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args, " "), err, lastLine(stderr.String()))
		}
		rs, err := results.Parse(&stdout, bin+" run")
		if err != nil {
			return nil, err
		}
		if len(rs.Results) != 1 {
			return nil, fmt.Errorf("%s run wrote %d results, want 1", bin, len(rs.Results))
		}
		return rs.Results[0], nil
	}}
}

// lastLine is the last non-empty line of s: a command's error.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
