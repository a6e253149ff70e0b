package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/contend/contend/internal/kernel"
	"github.com/contend/contend/internal/kernel/workload"
	"github.com/contend/contend/internal/oracle"
)

func init() {
	kernelSubs["count"] = kernelCountCmd
	kernelSubs["load"] = kernelLoadCmd
}

const countSynopsis = "count [-shape pipe|udp|migrate|server] [-pairs N] [-levels L] [-duration D] [-check=false] [-o FILE] [-tick-trace FILE] [-wake-trace FILE] [-no-tick-trace] [-json]"

func kernelCountCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", countSynopsis)
	shape := fs.String("shape", "pipe", "the workload: "+shapeList())
	pairs := fs.Int("pairs", 4, "ping-pong `pairs` (clients, for -shape server)")
	levels := fs.Int("levels", 2, "cgroup `depth` of the workload: 1 system.slice, 2 adds docker-<id>.scope (seed 000's), more nest further")
	dur := fs.Duration("duration", 5*time.Second, "length of each run: bare, counted and (with -check) checked")
	check := fs.Bool("check", true, "a third run with a write watchpoint on each level's tg->load_avg: every site's writes counted a second way, and per level")
	out := fs.String("o", "", "write the counts as benchmark-format results to `file` (its config names the kernel, for contend compare)")
	noTrace := fs.Bool("no-tick-trace", false, "take no tick trace nor wake trace (their kprobes, on every tick, idle entry and wakeup, add to the count's cost): the results then lack their shares, and kernel model runs without them")
	wakeTrace := fs.String("wake-trace", "", "save the counted run's wake trace, as tracefs recorded it, to `file` (two lines per wakeup: select_task_rq_fair()'s wakee, prev_cpu, wake_flags and every cpu's idle state, then the cpu it chose)")
	tickTrace := fs.String("tick-trace", "", "save the counted run's tick trace, as tracefs recorded it, to `file` (one line per tick per cpu: jiffies, rq->next_balance, rq->idle_balance, ...)")
	asJSON := fs.Bool("json", false, "print the counts as JSON")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if _, ok := kernel.Shapes[*shape]; !ok {
		return fmt.Errorf("kernel count: -shape %q: want one of %s", *shape, shapeList())
	}
	if *noTrace && *tickTrace != "" {
		return fmt.Errorf("kernel count: -tick-trace %s with -no-tick-trace: there is no trace to save", *tickTrace)
	}
	if *wakeTrace != "" && *noTrace {
		return fmt.Errorf("kernel count: -wake-trace %s with -no-tick-trace: there is no trace to save", *wakeTrace)
	}
	if *pairs < 1 || *levels < 1 || *dur <= 0 {
		return fmt.Errorf("kernel count: -pairs, -levels and -duration must be positive (got %d, %d, %v)", *pairs, *levels, *dur)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("kernel count: finding contend's own binary for the workload: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := kernel.Count(ctx, kernel.CountConfig{
		Root: "/", Self: self, Shape: *shape, Pairs: *pairs, Levels: *levels, Duration: *dur, Check: *check, Log: stderr, TickTrace: *tickTrace, WakeTrace: *wakeTrace, NoTickTrace: *noTrace,
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("kernel count: interrupted; every probe, cgroup and sysctl it changed is undone")
		}
		return fmt.Errorf("kernel count: %w", err)
	}
	if *out != "" {
		if err := oracle.WriteResults(*out, c, args); err != nil {
			return fmt.Errorf("kernel count: -o: %w", err)
		}
	}
	if *asJSON {
		return writeJSON(stdout, c)
	}
	return oracle.WriteText(stdout, c)
}

func shapeList() string {
	return "pipe, udp, migrate, server"
}

// kernelLoadCmd is the workload's own process, started by count inside
// the cgroup; not for use by hand.
func kernelLoadCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "load (the workload process kernel count starts)")
	shape := fs.String("shape", "pipe", "the workload")
	pairs := fs.Int("pairs", 4, "pairs")
	dur := fs.Duration("duration", time.Second, "how long")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := workload.ServeLoad(stdout, os.Stdin, *shape, *pairs, *dur); err != nil {
		return fmt.Errorf("kernel load: %w", err)
	}
	return nil
}
