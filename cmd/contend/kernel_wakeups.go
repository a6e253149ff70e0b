package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/contend/contend/internal/kernel/wakeups"
	"github.com/contend/contend/internal/oracle"
)

func init() {
	kernelSubs["wakeups"] = kernelWakeupsCmd
	kernelSubs["wakeups-model"] = kernelWakeupsModelCmd
	kernelSubs["wakeup-worker"] = kernelWakeupWorkerCmd
}

// kernelWakeupWorkerCmd is one thread of kernel wakeups' workload, a
// process kernel wakeups starts with its socket as fd 3 and the statement
// counters as fd 4; not for use by hand.
func kernelWakeupWorkerCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "wakeup-worker (a process kernel wakeups starts)")
	role := fs.String("role", "", "client or server")
	spin := fs.Duration("spin", 0, "cpu burst before each send")
	slot := fs.Int("slot", 0, "the client's counter")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *spin <= 0 || *slot < 0 {
		return fmt.Errorf("kernel wakeup-worker: -spin %s, -slot %d: want both positive", *spin, *slot)
	}
	if err := wakeups.Worker(*role, os.NewFile(3, "socket"), os.NewFile(4, "counters"), *spin, *slot); err != nil {
		return fmt.Errorf("kernel wakeup-worker: %w", err)
	}
	return nil
}

// kernelWakeupsCmd runs the wakeup model's client/server workload on the
// running kernel and reports its threads' schedstats over the window
// (wakeups.Measure).
func kernelWakeupsCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "wakeups [-clients 4] [-servers N] [-think 8.8us] [-service 38us] [-warmup 2s] [-duration 5s] [-o FILE] [-json] [-wake-trace FILE] [-no-wake-trace]")
	clients := fs.Int("clients", 4, "client `threads`")
	servers := fs.Int("servers", 0, "server `threads`, client i served by server i mod N (default one per client)")
	think := fs.Duration("think", 8800*time.Nanosecond, "client spin before each query (simulate wakeup's default)")
	service := fs.Duration("service", 38*time.Microsecond, "server spin before each reply (simulate wakeup's default)")
	warmup := fs.Duration("warmup", 2*time.Second, "run before counting")
	dur := fs.Duration("duration", 5*time.Second, "the counted window")
	out := fs.String("o", "", "write the run as JSON to `file`, for contend kernel wakeups-model")
	asJSON := fs.Bool("json", false, "print the run as JSON")
	wakeTrace := fs.String("wake-trace", "", "save the window's wake trace (select_task_rq_fair()'s records) to `file`")
	noWakeTrace := fs.Bool("no-wake-trace", false, "run without the wake trace (its kprobes on every wakeup)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *noWakeTrace && *wakeTrace != "" {
		return errors.New("kernel wakeups: -wake-trace and -no-wake-trace: choose one")
	}
	if *servers == 0 {
		*servers = *clients
	}
	cfg := wakeups.Config{Root: "/", Clients: *clients, Servers: *servers,
		Think: *think, Service: *service, Warmup: *warmup, Duration: *dur,
		NoWakeTrace: *noWakeTrace, WakeTrace: *wakeTrace}
	if err := cfg.Check(); err != nil {
		return fmt.Errorf("kernel wakeups: %w", err)
	}
	if os.Geteuid() != 0 {
		return errors.New("kernel wakeups: needs root (it sets kernel.sched_schedstats)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, err := wakeups.Measure(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("kernel wakeups: interrupted; the sysctl it set is restored")
		}
		return fmt.Errorf("kernel wakeups: %w", err)
	}
	if *out != "" {
		if err := w.Save(*out); err != nil {
			return fmt.Errorf("kernel wakeups: -o: %w", err)
		}
	}
	if *asJSON {
		return writeJSON(stdout, w)
	}
	return w.WriteText(stdout)
}

// kernelWakeupsModelCmd holds simulate wakeup with 6.1's policy, fed each
// run's measured inputs, against the run (oracle.WriteWakeupTable).
func kernelWakeupsModelCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "wakeups-model FILE... (files of contend kernel wakeups -o)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("kernel wakeups-model: want one or more files of contend kernel wakeups -o")
	}
	if err := oracle.WriteWakeupTable(stdout, files); err != nil {
		return fmt.Errorf("kernel wakeups-model: %w", err)
	}
	return nil
}
