package vmlab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Boot is one guest run's files.
type Boot struct {
	Console string // ttyS0: the kernel's messages and /init's stray output
	Data    string // ttyS1: the transcript
	Elapsed time.Duration
	// Booted is how long after QEMU started the init marker came over the
	// data channel (0: it never came).
	Booted time.Duration
	// BootCPU is the cpu time QEMU had used when the marker was seen
	// (Linux: /proc/PID/stat), which a loaded host slows less than Booted.
	BootCPU time.Duration
	// Retried says why the first boot was abandoned and this one is the
	// second ("" for a first boot): see Lab.Boot.
	Retried string
}

// A BootFailure is a boot that made no progress: no init marker within the
// boot bound, a kernel panic or oops on the console before it, or QEMU gone
// before it. It is the emulator's or the host's, not the guest's commands',
// so Lab.Boot boots once more.
type BootFailure struct {
	Why string
}

func (e *BootFailure) Error() string { return e.Why }

// A Wedged guest booted, then sent nothing over its data channel for
// longer than its longest command's own guest-side timeout allows: its
// kernel no longer runs /init (seen once under TCG beside a loaded host:
// the kernel oracle's guest silent for 20 minutes after the marker, its
// console empty). Like a *BootFailure it is the emulator's, and retried.
type Wedged struct {
	Why string
}

func (e *Wedged) Error() string { return e.Why }

// consoleCrash matches what a kernel that crashed prints on the console
// even at loglevel=1 (emergency messages): a panic, the oops header (x86
// prints "Oops: int3: 0000 [#1]" since 6.x), a BUG. A soft lockup is not
// one: under TCG on a busy host the watchdog reports vcpus starved of host
// time that go on to boot; only the missing init marker says it hung.
var consoleCrash = regexp.MustCompile(`Kernel panic - not syncing[^\r\n]*|Oops: [^\r\n]*|\bBUG: (?:unable|kernel)[^\r\n]*|general protection fault[^\r\n]*`)

// bootPoll is how often QEMU watches the data channel and console while it
// waits for the init marker.
const bootPoll = 250 * time.Millisecond

// QEMU boots t with the kernel and initramfs, waits for it to power off
// (or timeout), and returns where its two serial ports went. The
// accelerator is TCG unless accel says otherwise ("kvm" on a real host):
// nested KVM hangs in the sandboxes this lab was made in, and TCG's timing
// is meaningless anyway, so nothing the lab runs is kept as a figure. qemu
// is the emulator binary ("" for t's arch's).
//
// Until /init's marker comes over the data channel QEMU is watched (see
// watchBoot): a boot that has not shown the marker when QEMU has used boot
// of cpu time (0: no bound), that prints a kernel crash on the console
// first, that ends before it or that reaches timeout without it is a
// *BootFailure, and QEMU is killed. Once the marker is there the guest is
// bounded by run of QEMU's cpu time (0: no bound) and by timeout, a wall
// clock backstop for a guest that hangs with its vcpus halted; a guest whose
// steps stall is not taken for a hung boot: it fails on either bound,
// without a retry.
//
// silence (0: none) bounds the wall time between two writes to the data
// channel after the marker; past it QEMU is killed and the error is a
// *Wedged.
func QEMU(ctx context.Context, t Topology, kernel, initrd, dir, accel, qemu string, boot, run, silence, timeout time.Duration) (*Boot, error) {
	accel = accelName(accel)
	b := &Boot{Console: filepath.Join(dir, "console.log"), Data: filepath.Join(dir, "data.log")}
	for _, f := range []string{b.Console, b.Data} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	args := []string{"-accel", accel, "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
		"-kernel", kernel, "-initrd", initrd, "-append", t.Cmdline(),
		"-serial", "file:" + b.Console}
	args = append(args, t.Architecture().DataArgs(b.Data)...)
	args = append(args, t.QEMUArgs()...)
	gctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if qemu == "" {
		qemu = t.Architecture().QEMU
	}
	cmd := exec.CommandContext(gctx, qemu, args...)
	cmd.WaitDelay = 5 * time.Second
	out, err := os.Create(filepath.Join(dir, "qemu.log"))
	if err != nil {
		return nil, err
	}
	defer out.Close()
	fmt.Fprintf(out, "%s %q\n", qemu, args)
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", qemu, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	w := bootWatch{b: b, pid: cmd.Process.Pid, start: start, boot: boot, run: run, silence: silence, timeout: timeout}
	bootErr, waitErr := w.wait(ctx, gctx, cancel, exited)
	b.Elapsed = time.Since(start)
	switch {
	case bootErr != nil:
		return b, fmt.Errorf("%w (see %s)", bootErr, b.Console)
	case ctx.Err() != nil:
		return b, fmt.Errorf("%s: %w", t.Name, ctx.Err())
	case w.wedged != "":
		return b, &Wedged{fmt.Sprintf("%s (see %s)", w.wedged, b.Console)}
	case w.overran:
		return b, fmt.Errorf("guest did not power off within %v of QEMU's cpu time, %.0fs in (see %s)", run, b.Elapsed.Seconds(), b.Console)
	case gctx.Err() == context.DeadlineExceeded:
		return b, fmt.Errorf("guest did not power off within %v (see %s)", timeout, b.Console)
	case waitErr != nil:
		return b, fmt.Errorf("%s: %w (see %s)", qemu, waitErr, out.Name())
	}
	return b, nil
}

// A bootWatch is QEMU's watch over one boot until the init marker.
//
// Its bound is on QEMU's cpu time, not the wall clock's: on a loaded host
// QEMU gets a fraction of a cpu, and the same boot takes 21 s of wall time
// beside other engineers' builds (load 16 on 2 cpus) and 87 s with two cpu
// hogs more (load 19), while QEMU's cpu time to the marker stays between 10
// and 12 s (skx-2s, snc-4n, amd-8: 8 vcpus, Debian's 6.1). A boot that hangs
// with its vcpus in soft lockups spins, so its cpu time grows as fast as a
// boot's does and reaches the bound at whatever share of the host it gets;
// one that hangs with every vcpu halted uses none, and the guest's timeout
// ends it. Where /proc/PID/stat cannot be read the wall clock stands in.
//
// After the marker the same holds for the guest's steps: the arm64 guest
// ran its 11 steps in 480 s of wall time beside a cpu hog and four
// engineers' builds (load 9-13 on 2 cpus) and was killed by an 8-minute
// wall-clock bound while it was still making progress, so the bound there
// is run of cpu time, and the wall clock's timeout only a backstop.
type bootWatch struct {
	b                  *Boot
	pid                int
	start              time.Time
	boot, run, timeout time.Duration
	silence            time.Duration
	overran            bool   // killed for using more than run of cpu time
	wedged             string // why it was killed for silence, or ""
}

// used is how much of the bound the boot has used: QEMU's cpu time
// (noted in the Boot while QEMU runs), or the wall time since the start.
func (w *bootWatch) used(running bool) time.Duration {
	c, ok := procCPU(w.pid)
	if !ok {
		return time.Since(w.start)
	}
	if running {
		w.b.BootCPU = c
	}
	return c
}

// wait waits for QEMU to exit (exited says how) and polls the data channel
// and console until the marker comes. A crash on the console, the bound
// used up, or gctx's deadline (the guest's timeout) reached without the
// marker kills QEMU (cancel) and is a *BootFailure, as is QEMU's exit
// before the marker; ctx (the caller's) ending is not.
func (w *bootWatch) wait(ctx, gctx context.Context, cancel func(), exited chan error) (*BootFailure, error) {
	b := w.b
	tick := time.NewTicker(bootPoll)
	defer tick.Stop()
	for {
		var waitErr error
		running := true
		select {
		case waitErr = <-exited:
			running = false
		case <-tick.C:
		}
		used := w.used(running)
		if b.Booted = b.marked(w.start); b.Booted != 0 {
			if running {
				waitErr = w.steps(ctx, cancel, exited, tick.C)
			}
			return nil, waitErr
		}
		var why string
		switch {
		case ctx.Err() != nil:
			if running {
				waitErr = <-exited
			}
			return nil, waitErr
		case gctx.Err() != nil:
			why = fmt.Sprintf("no init marker within the guest's %v (%s)", w.timeout, b.consoleTail())
		case !running && waitErr != nil:
			why = fmt.Sprintf("QEMU exited (%v) before the init marker (%s)", waitErr, b.consoleTail())
		case !running:
			why = fmt.Sprintf("the guest powered off before the init marker (%s)", b.consoleTail())
		case b.crash() != "":
			why = "kernel crash at boot: " + b.crash()
		case w.boot > 0 && used > w.boot:
			why = fmt.Sprintf("no init marker after %v of QEMU's cpu time, %.0fs in (%s)", w.boot, time.Since(w.start).Seconds(), b.consoleTail())
		default:
			continue
		}
		if running {
			cancel()
			<-exited
		}
		return &BootFailure{why}, nil
	}
}

// steps waits for QEMU to exit after the marker, killing it (cancel) if it
// uses more than w.run of cpu time or its data channel stays silent for
// longer than w.silence.
func (w *bootWatch) steps(ctx context.Context, cancel func(), exited chan error, tick <-chan time.Time) error {
	size, since := int64(-1), time.Now()
	for {
		select {
		case err := <-exited:
			return err
		case <-tick:
		}
		if ctx.Err() != nil {
			continue
		}
		if c, ok := procCPU(w.pid); ok && w.run > 0 && c > w.run {
			w.overran = true
			cancel()
			return <-exited
		}
		if fi, err := os.Stat(w.b.Data); err == nil && fi.Size() != size {
			size, since = fi.Size(), time.Now()
		} else if w.silence > 0 && time.Since(since) > w.silence {
			w.wedged = fmt.Sprintf("nothing from the guest's /init for %.0fs after its last output (its commands' own timeouts allow %v)", time.Since(since).Seconds(), w.silence)
			cancel()
			return <-exited
		}
	}
}

// marked returns how long after start the init marker was first seen on
// the data channel: now, if it is there, else 0.
func (b *Boot) marked(start time.Time) time.Duration {
	data, _ := os.ReadFile(b.Data)
	if !bytes.Contains(data, []byte(markInit)) {
		return 0
	}
	return max(time.Since(start), time.Nanosecond)
}

// crash returns the first kernel crash line on the console, or "".
func (b *Boot) crash() string {
	data, _ := os.ReadFile(b.Console)
	return string(consoleCrash.Find(data))
}

// consoleTail describes the console for a boot failure: its crash line,
// else its last line, else that it is empty.
func (b *Boot) consoleTail() string {
	if c := b.crash(); c != "" {
		return "console: " + c
	}
	data, _ := os.ReadFile(b.Console)
	if l := lastLine(data); l != "" {
		return "console's last line: " + l
	}
	return "nothing on the console"
}

// accelName is the accelerator QEMU is given and the lab's output names:
// "" is tcg.
func accelName(accel string) string {
	if accel == "" {
		return "tcg"
	}
	return accel
}

// procCPU is the user and system time process pid has used, from
// /proc/PID/stat (in clock ticks of 1/100 s, USER_HZ on every Linux arch);
// false where there is no such file.
func procCPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * (time.Second / 100), true
}
