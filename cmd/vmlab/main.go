// Command vmlab boots real Linux kernels with chosen NUMA, SMT and cache
// topologies under QEMU and checks contend in them: the topology lab.
// scripts/vmlab.sh runs it.
//
// Usage:
//
//	vmlab [-topology a,b] [-kernel bzImage] [-save-sysfs]   # boot the matrix and check every topology
//	vmlab -list                                             # the topologies and steps
//	vmlab run -topology NAME [-kernel bzImage] -- contend ARGS...
//	vmlab history [-versions 6.1,6.12,...] [-dir benchdata/kernel-history]
//
// The lab installs qemu-system-x86 and busybox-static with apt when missing,
// takes the kernel from Debian's linux-image-amd64 package (downloaded once
// into -cache and unpacked without installing it), builds contend and the
// bench/... test binaries statically, and boots one guest per topology with
// an initramfs whose /init runs the topology's steps. Each topology is
// declared once (internal/topology.Matrix): QEMU's -smp/-numa arguments and
// the oracle the guest's contend topo is checked against both come from
// it. The last line is "vmlab: N topologies passed"; any failure names the
// topology and check and exits 1. A boot that makes no progress (no first
// line from /init within -boot-cpu of QEMU's cpu time or within -timeout,
// or a kernel crash on the console
// before it: the emulator's trouble on a loaded host) is retried once on a
// fresh boot and fails only the second time; the retry is said as it
// happens, on the topology's line, and on the last line ("N topologies
// passed (1 after a retried boot: NAME: why)"). Once booted, a guest is
// bounded by -run-cpu of QEMU's cpu time (a loaded host stretches the
// wall clock, not that) and by -timeout only as a wall-clock backstop; a
// kernel crash on the console after the first line is retried up to
// twice, three boots at most.
//
// history boots the kernel oracle's guest (oracle-2n) on each Debian
// kernel in turn, one at a time, with the steps kernel-sites and
// kernel-count, keeps each guest's sites and results file in -dir, and
// lays the results side by side with contend kernel history
// (-dir/history.txt): the scheduler's history, counted.
//
// run boots one guest and runs contend with the given arguments in a
// scratch directory; whatever files the command writes there (a results
// file given with -o) are copied back into -out (default
// out/vmlab/run-NAME/), and its output is printed.
//
// Under TCG (the default: no KVM in the sandboxes this was made in) every
// timing is meaningless; -accel kvm on a real host makes them mean
// something. Nothing a guest measures belongs in benchdata/.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/contend/contend/internal/vmlab"
	"github.com/contend/contend/internal/vmlab/kernellab"
	"github.com/contend/contend/internal/vmlab/topology"
)

func main() {
	if err := vmlabCmd(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "vmlab:", err)
		os.Exit(1)
	}
}

// common are the flags the lab and run share.
type common struct {
	kernel, accel, out, cache string
	debianKernel              string
	timeout, boot, run        time.Duration
}

// flags is a command's flag set with the flags every command shares.
func flags(name string, stderr io.Writer) (*flag.FlagSet, *common) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &common{}
	c.register(fs)
	return fs, c
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.kernel, "kernel", "", "boot this `bzImage` instead of Debian's linux-image-amd64")
	fs.StringVar(&c.debianKernel, "debian-kernel", "", "boot this Debian kernel instead of linux-image-amd64's, for the kernel oracle's guests: a `series` (6.1, 6.12, 6.16 … 7.3: its newest), an upstream version (6.18.15), a package version (6.18.15-1~bpo13+1) or a package name; 6.16 on come from trixie-backports through a sources list of the lab's own under -cache")
	fs.StringVar(&c.accel, "accel", "tcg", "QEMU `accelerator`: tcg; tcg,thread=single (one host thread for every vcpu: slower, but no vcpu runs code another is patching; CI's kernel-oracle guests); or kvm on a host that has it (only then do timings mean anything)")
	fs.StringVar(&c.out, "out", "", "`directory` for the build and the guests' files (default out/vmlab)")
	fs.StringVar(&c.cache, "cache", "/var/cache/contend-vmlab", "`directory` for the downloaded kernel package, outside the repository")
	fs.DurationVar(&c.timeout, "timeout", 45*time.Minute, "longest wall time one guest may run, boot to poweroff: a backstop for a guest hung with its vcpus halted (a loaded host stretches wall time: the arm64 guest's steps took 480 s at load 9-13)")
	fs.DurationVar(&c.run, "run-cpu", vmlab.DefaultRunCPU, "most `cpu time` QEMU may use running a guest's steps, after /init's first line (0: only -timeout)")
	fs.DurationVar(&c.boot, "boot-cpu", vmlab.DefaultBootCPU, "most `cpu time` QEMU may use booting a guest of up to 8 vcpus (to /init's first line), scaled for more: a boot past it, past -timeout, or that crashes first, is retried once (0: only -timeout)")
}

// lab returns a lab ready to boot guests: packages installed, kernel and
// binaries built.
func (c *common) lab(stderr io.Writer) (*vmlab.Lab, error) {
	repo, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	out := c.out
	if out == "" {
		out = filepath.Join(repo, "out", "vmlab")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	l := &vmlab.Lab{
		Host:   vmlab.Host{Repo: repo, Out: out, Cache: c.cache, Log: stderr},
		Kernel: c.kernel, Accel: c.accel, Timeout: c.timeout, BootCPU: c.boot, RunCPU: c.run,
	}
	if c.debianKernel != "" {
		if c.kernel != "" {
			return nil, errors.New("-kernel and -debian-kernel both name the kernel: give one")
		}
		if l.Kernel, err = kernellab.DebianKernel(&l.Host, c.debianKernel); err != nil {
			return nil, err
		}
	}
	return l, l.Prepare()
}

// moduleRoot finds the directory holding go.mod from the working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s: run vmlab inside the contend module", dir)
		}
	}
}

func vmlabCmd(stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 && args[0] == "run" {
		return runCmd(stdout, stderr, args[1:])
	}
	if len(args) > 0 && args[0] == "history" {
		return historyCmd(stdout, stderr, args[1:])
	}
	fs, c := flags("vmlab", stderr)
	names := fs.String("topology", "", "comma-separated `topologies` to check (default: all)")
	steps := fs.String("steps", "", "comma-separated `steps` to run in every guest instead of each topology's own")
	list := fs.Bool("list", false, "print the topologies and steps, and boot nothing")
	saveSysfs := fs.String("save-sysfs", "", "copy the sysfs trees the guests sent back into `dir`/qemu-<topology>/ (for affinity/testdata)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (vmlab run -topology NAME -- contend ARGS runs a command)", fs.Arg(0))
	}
	if *list {
		return writeList(stdout)
	}
	topos := slices.Clone(topology.Matrix)
	if *names != "" {
		topos = nil
		for _, n := range strings.Split(*names, ",") {
			t, err := vmlab.Lookup(n)
			if err != nil {
				return fmt.Errorf("-topology: %w", err)
			}
			topos = append(topos, t)
		}
	}
	for i := range topos {
		if *steps != "" {
			topos[i].Steps = strings.Split(*steps, ",")
		}
		if err := topos[i].Validate(); err != nil {
			return err
		}
		for _, s := range topos[i].Steps {
			if _, err := vmlab.LookupStep(s); err != nil {
				return fmt.Errorf("-steps: %w", err)
			}
		}
	}
	l, err := c.lab(stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var failed []error
	passed := 0
	for _, t := range topos {
		err := l.Check(ctx, t)
		if err != nil {
			fmt.Fprintf(stdout, "vmlab: FAIL %v\n", err)
			failed = append(failed, err)
		} else {
			passed++
			fmt.Fprintf(stdout, "vmlab: ok %s: %s\n", t.Name, strings.Join(t.Steps, ", "))
		}
		if *saveSysfs != "" {
			if err := copySysfs(l, t, *saveSysfs); err != nil {
				failed = append(failed, err)
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if len(failed) > 0 {
		var names []string
		for _, e := range failed {
			var f *vmlab.Failure
			if errors.As(e, &f) {
				names = append(names, f.Topology)
			}
		}
		retried := ""
		if len(l.Retries) > 0 {
			retried = fmt.Sprintf(" (%d after a retried boot: %s)", len(l.Retries), strings.Join(l.Retries, "; "))
		}
		return fmt.Errorf("%d of %d topologies passed%s; failed: %s", passed, len(topos), retried, strings.Join(names, ", "))
	}
	if len(l.Retries) > 0 {
		fmt.Fprintf(stdout, "vmlab: %d topologies passed (%d after a retried boot: %s)\n", passed, len(l.Retries), strings.Join(l.Retries, "; "))
		return nil
	}
	fmt.Fprintf(stdout, "vmlab: %d topologies passed\n", passed)
	return nil
}

// copySysfs unpacks a guest's sysfs tar into dir/qemu-NAME.
func copySysfs(l *vmlab.Lab, t vmlab.Topology, dir string) error {
	data, err := os.ReadFile(filepath.Join(l.Out, t.Name, "sysfs.tgz"))
	if errors.Is(err, os.ErrNotExist) {
		return nil // the topology has no sysfs step
	}
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, "qemu-"+t.Name)
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := vmlab.Untar(bytes.NewReader(data), dst); err != nil {
		return fmt.Errorf("-save-sysfs %s: %w", t.Name, err)
	}
	return nil
}

func writeList(w io.Writer) error {
	fmt.Fprintln(w, "topologies (the matrix, then the big, arm64 and kernel-oracle guests -topology boots only when named):")
	for _, t := range slices.Concat(topology.Matrix, topology.Big, topology.Arm64, vmlab.Kernels) {
		fmt.Fprintf(w, "  %-12s %s\n  %-12s steps: %s\n", t.Name, t.Summary, "", strings.Join(t.Steps, " "))
	}
	fmt.Fprintln(w, "steps:")
	for _, s := range vmlab.Steps {
		fmt.Fprintf(w, "  %-10s %s\n", s.Name, s.Summary)
	}
	return nil
}

// runCmd boots one guest and runs a contend command in it.
func runCmd(stdout, stderr io.Writer, args []string) error {
	fs, c := flags("vmlab run", stderr)
	name := fs.String("topology", "skx-2s", "the guest's `topology` (vmlab -list shows them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cmd := fs.Args()
	if len(cmd) == 0 || cmd[0] != "contend" {
		return errors.New("run: want -- contend ARGS... after the flags")
	}
	t, err := vmlab.Lookup(*name)
	if err != nil {
		return fmt.Errorf("run: -topology: %w", err)
	}
	l, err := c.lab(stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	body := vmlab.RunScript(cmd[1:])
	tr, _, bootErr := l.Boot(ctx, t, "run-"+t.Name, []string{body})
	if tr == nil {
		return bootErr
	}
	o := tr.Get("run")
	if o == nil {
		return errors.Join(bootErr, errors.New("run: the command's output did not come back"))
	}
	fmt.Fprintf(stdout, "# vmlab: in a QEMU guest (topology %s, accelerator %s)\n", t.Name, c.accel)
	stdout.Write(o.Data)
	dir := filepath.Join(l.Out, "run-"+t.Name)
	if f := tr.Get("files.tgz"); f != nil && f.RC == 0 {
		files := filepath.Join(dir, "files")
		if err := vmlab.Untar(bytes.NewReader(f.Data), files); err != nil {
			return fmt.Errorf("run: unpacking the guest's files: %w", err)
		}
		fmt.Fprintf(stderr, "vmlab: the command's files are in %s\n", files)
	}
	if bootErr != nil {
		return bootErr
	}
	if o.RC != 0 {
		return fmt.Errorf("run: contend exited with status %d in the guest", o.RC)
	}
	return nil
}
