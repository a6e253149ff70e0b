package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/contend/contend/internal/kernel"
)

func init() {
	register(&command{
		name:    "kernel",
		summary: "hold the running kernel up as the oracle: find its contended sites (kernel sites)",
		run:     kernelCmd,
	})
}

// kernelSubs are kernel's subcommands.
var kernelSubs = map[string]func(stdout, stderr io.Writer, args []string) error{
	"sites": kernelSitesCmd,
}

func kernelCmd(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("kernel: want a subcommand (sites, count)")
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintf(stdout, "Usage: contend kernel sites [-root DIR] [-json]\n\n%s\n", commands["kernel"].summary)
		return flag.ErrHelp
	}
	sub, ok := kernelSubs[args[0]]
	if !ok {
		return fmt.Errorf("kernel: unknown subcommand %q (want sites, count)", args[0])
	}
	return sub(stdout, stderr, args[1:])
}

func kernelSitesCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "sites [-root DIR] [-json]")
	root := fs.String("root", "/", "read the kernel's files (sys/kernel/btf/vmlinux, proc/kallsyms, proc/kcore) under this `dir`: a fixture in internal/kernel/testdata stands for a kernel")
	asJSON := fs.Bool("json", false, "print the sites and what is missing as JSON")
	if err := parseNoArgs(fs, args); err != nil {
		return err
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
