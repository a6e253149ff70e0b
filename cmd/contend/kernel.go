package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/contend/contend/internal/kernel"
)

func init() {
	register(&command{
		name:    "kernel",
		summary: "hold the running kernel up as the oracle: its contended sites, their writes under a workload, and the models held to them (sites, count, model, wakeups, wakeups-model, history)",
		run:     kernelCmd,
	})
}

// kernelSubList names the subcommands for people (load and wakeup-worker
// are processes count and wakeups start, not for use by hand).
const kernelSubList = "sites, count, model, wakeups, wakeups-model, history"

// kernelSummaries say what each subcommand does, for its -h.
var kernelSummaries = map[string]string{
	"sites":         "find the running kernel's contended sites: the scheduler's hot shared words and the functions that write them",
	"count":         "count the sites' writes on the running kernel under a workload (kprobes; root), bare and counted runs, and a watchpoint check",
	"model":         "hold simulate loadavg, fed a count's measured rates, against the count: kernel, model, model/kernel per quantity",
	"wakeups":       "run the wakeup model's client/server workload on the running kernel and report its threads' schedstats",
	"wakeups-model": "hold simulate wakeup (6.1's policy), fed each wakeups run's measured inputs, against the run",
	"history":       "lay kernel count results of several kernels side by side, oldest first: per word, per event and per cpu-second, each code change between neighbours bracketed",
}

// kernelSubs are kernel's subcommands.
var kernelSubs = map[string]func(stdout, stderr io.Writer, args []string) error{
	"sites": kernelSitesCmd,
}

func kernelCmd(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("kernel: want a subcommand (%s)", kernelSubList)
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintf(stdout, "Usage: contend kernel SUBCOMMAND [flags] (contend kernel SUBCOMMAND -h for its flags)\n\n%s\n\nSubcommands:\n", commands["kernel"].summary)
		for _, name := range strings.Split(kernelSubList, ", ") {
			fmt.Fprintf(stdout, "  %-14s %s\n", name, kernelSummaries[name])
		}
		return flag.ErrHelp
	}
	sub, ok := kernelSubs[args[0]]
	if !ok {
		return fmt.Errorf("kernel: unknown subcommand %q (want %s)", args[0], kernelSubList)
	}
	// A subcommand's -h prints its own line, not kernel's.
	if line, ok := kernelSummaries[args[0]]; ok {
		defer func(kernel string) { commands["kernel"].summary = kernel }(commands["kernel"].summary)
		commands["kernel"].summary = line
	}
	return sub(stdout, stderr, args[1:])
}

func kernelSitesCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "sites [-root DIR] [-json] [-save DIR]")
	root := fs.String("root", "/", "read the kernel's files (sys/kernel/btf/vmlinux, proc/kallsyms, proc/kcore) under this `dir`: a fixture in internal/kernel/testdata stands for a kernel")
	asJSON := fs.Bool("json", false, "print the sites and what is missing as JSON")
	save := fs.String("save", "", "also write what the finder reads of the kernel (its functions' bytes, the symbols it looks up, the BTF members it reads) under this `dir`, as a fixture -root reads")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *save != "" {
		if err := kernel.SaveFixture(*root, *save); err != nil {
			return fmt.Errorf("kernel sites: -save: %w", err)
		}
	}
	src, err := kernel.Open(*root)
	if err != nil {
		return fmt.Errorf("kernel sites: %w", err)
	}
	defer src.Close()
	r, err := kernel.Find(src.Input)
	if err != nil {
		return fmt.Errorf("kernel sites: %w", err)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("kernel sites: %w", err)
	}
	if *asJSON {
		return writeJSON(stdout, r)
	}
	return r.WriteText(stdout)
}
