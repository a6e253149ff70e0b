package vmlab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// KernelCmdline keeps the console quiet (loglevel=1; edd=off skips the BIOS
// disk probe that prints), makes a panic end QEMU at once (panic=-1 with
// -no-reboot), and skips the CPU vulnerability mitigations, which cost TCG
// dearly and measure nothing here.
const KernelCmdline = "console=ttyS0 loglevel=1 edd=off panic=-1 mitigations=off tsc=reliable"

// A Boot is one guest run's files.
type Boot struct {
	Console string // ttyS0: the kernel's messages and /init's stray output
	Data    string // ttyS1: the transcript
	Elapsed time.Duration
}

// QEMU boots t under TCG with the kernel and initramfs, waits for it to
// power off (or timeout), and returns where its two serial ports went.
// The accelerator is always TCG: nested KVM hangs in the sandboxes this
// lab was made in, and TCG's timing is meaningless anyway, so nothing the
// lab runs is kept as a figure. accel overrides it ("kvm" on a real host).
func QEMU(ctx context.Context, t Topology, kernel, initrd, dir, accel string, timeout time.Duration) (*Boot, error) {
	if accel == "" {
		accel = "tcg"
	}
	b := &Boot{Console: filepath.Join(dir, "console.log"), Data: filepath.Join(dir, "data.log")}
	for _, f := range []string{b.Console, b.Data} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	args := []string{"-accel", accel, "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
		"-kernel", kernel, "-initrd", initrd, "-append", t.Cmdline(),
		"-serial", "file:" + b.Console}
	args = append(args, t.arch().DataArgs(b.Data)...)
	args = append(args, t.QEMUArgs()...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	qemu := t.arch().QEMU
	cmd := exec.CommandContext(ctx, qemu, args...)
	cmd.WaitDelay = 5 * time.Second
	out, err := os.Create(filepath.Join(dir, "qemu.log"))
	if err != nil {
		return nil, err
	}
	defer out.Close()
	fmt.Fprintf(out, "%s %q\n", qemu, args)
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err = cmd.Run()
	b.Elapsed = time.Since(start)
	if ctx.Err() == context.DeadlineExceeded {
		return b, fmt.Errorf("guest did not power off within %v (see %s)", timeout, b.Console)
	}
	if err != nil {
		return b, fmt.Errorf("%s: %w (see %s)", qemu, err, out.Name())
	}
	return b, nil
}
