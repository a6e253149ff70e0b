package vmlab

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Lab boots guests from one set of built files.
type Lab struct {
	Host
	Kernel string // bzImage; "" takes Debian's
	Accel  string // QEMU accelerator, "" for tcg
	// Timeout bounds a guest, boot to poweroff, on the wall clock: a
	// backstop for a guest hung with its vcpus halted. RunCPU bounds it in
	// QEMU's cpu time from the init marker to poweroff (0: only Timeout),
	// which a loaded host does not stretch; see DefaultRunCPU.
	Timeout time.Duration
	RunCPU  time.Duration
	// SilenceMargin is added to the longest guest-side `timeout N` in a
	// guest's script to bound the wall time between two outputs (see
	// silence); 0 is DefaultSilenceMargin.
	SilenceMargin time.Duration
	// BootCPU bounds the boot of a guest of up to 8 vcpus, in QEMU's cpu
	// time from its start to /init's marker on the data channel (0: only
	// Timeout bounds it); a bigger guest gets it times vcpus/8. See Boot,
	// QEMU and DefaultBootCPU.
	BootCPU time.Duration
	// QEMU is the emulator binary ("" for each guest's arch's): a test's
	// fake.
	QEMU string
	// Retries are the boots Boot retried, one line each ("NAME: why"),
	// for the lab's last line.
	Retries []string

	// Keep, where set, is a directory Check writes every output of each
	// guest into, as Keep/<topology>-<kernel release>/<output name>: the
	// files a step emitted (a results file), for what the lab's checks do
	// not keep (vmlab history's counts), and console.N.log of each boot
	// that crashed before the one that ran.
	Keep string
	// Kept is where Check kept the last guest's outputs ("" none).
	Kept string

	kernel, base string
	foreign      map[string]*Lab // by GOARCH, prepared when a guest needs it
}

// UseKernel boots later guests of the host's arch on bzImage, after
// Prepare: one prepared lab boots several kernels in turn.
func (l *Lab) UseKernel(bzImage string) { l.kernel = bzImage }

// keep writes a transcript's outputs under Keep (see Keep), and the
// consoles of the guest's crashed boots, returning the directory.
func (l *Lab) keep(t Topology, tr *Transcript) (string, error) {
	release := "unknown"
	if o := tr.Get("kernel-release"); o != nil && o.RC == 0 {
		release = strings.TrimSpace(string(o.Data))
	}
	dir := filepath.Join(l.Keep, t.Name+"-"+filepath.Base(release))
	if err := os.RemoveAll(dir); err != nil { // an earlier guest's outputs
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, o := range tr.Outputs {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(o.Name)), o.Data, 0o644); err != nil {
			return "", err
		}
	}
	// The consoles of boots that crashed before this one (boot keeps
	// them as console.N.log in the guest's directory, which the next
	// guest's boot empties): what an Oops says of its cause.
	crashed, _ := filepath.Glob(filepath.Join(l.Out, t.Name, "console.[0-9]*.log"))
	for _, c := range crashed {
		b, err := os.ReadFile(c)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(c)), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Prepare makes everything a guest needs: the host packages, the kernel,
// the static binaries and the shared initramfs.
func (l *Lab) Prepare() error {
	if err := l.EnsurePackages(); err != nil {
		return err
	}
	k, err := l.Host.Kernel(l.Kernel)
	if err != nil {
		return err
	}
	l.kernel = k
	bin := filepath.Join(l.Out, "bin")
	tests, err := l.Binaries(bin)
	if err != nil {
		return err
	}
	l.base = filepath.Join(l.Out, "base.cpio")
	return l.BaseInitramfs(bin, tests, l.base)
}

// Boot runs the script body in a guest of topology t and returns what came
// back. Its files are in Out/<name>/.
//
// A boot that makes no progress (a *BootFailure: no init marker within
// BootCPU of QEMU's cpu time or within Timeout, a kernel crash on the
// console before it, QEMU gone before it) is the emulator's: under TCG on a loaded host every vcpu can sit in
// a soft lockup in stop_machine at boot, and a 6.12 kernel can oops in
// sched_clock_cpu. Boot then boots once more from scratch, keeps the first
// attempt's console as console.1.log, says so in the log and in Retries
// and the Boot's Retried, and fails only if the second boot fails too.
// A kernel crash on the console after the marker is retried the same way,
// up to twice (see boot). A guest whose steps stall after the marker is not retried:
// RunCPU or Timeout ends it and it fails.
func (l *Lab) Boot(ctx context.Context, t Topology, name string, body []string) (*Transcript, *Boot, error) {
	dir := filepath.Join(l.Out, name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	initrd := filepath.Join(dir, "initramfs.cpio")
	kernel, base, err := l.assets(t)
	if err != nil {
		return nil, nil, err
	}
	if err := GuestInitramfs(base, InitScript(t, body), initrd); err != nil {
		return nil, nil, err
	}
	b, bootErr := l.boot(ctx, t, name, kernel, initrd, dir, l.silence(body))
	os.Remove(initrd) // 60 MB of copies of the base
	if b == nil {
		return nil, nil, bootErr
	}
	f, err := os.Open(b.Data)
	if err != nil {
		return nil, b, errors.Join(bootErr, fmt.Errorf("no data from the guest: %w", err))
	}
	defer f.Close()
	tr, err := ParseTranscript(f)
	if err != nil {
		return nil, b, errors.Join(bootErr, fmt.Errorf("reading %s: %w", b.Data, err))
	}
	tr.Accel = accelName(l.Accel)
	if err := save(dir, t, tr); err != nil {
		return tr, b, errors.Join(bootErr, err)
	}
	if bootErr == nil && !tr.Done {
		bootErr = fmt.Errorf("guest powered off before the end of /init (see %s)", b.Console)
	}
	return tr, b, bootErr
}

// DefaultBootCPU is cmd/vmlab's -boot-cpu. Measured here (2 cpus, Debian's
// 6.1), QEMU used 10.0-11.6 s of cpu time to /init's marker in each amd64
// guest of the matrix (8 vcpus), whether the host's load was 16 or 19 and
// the boot 21 s or 87 s of wall time, and 22 s booting virt-arm64 (4 vcpus,
// its virtio modules loaded first; load 21-26): 60 s is 5× the amd64 boots
// and 2.7× the arm64 one. A guest hung in soft lockups spins on every vcpu,
// so it uses cpu time at least as fast as a boot does.
const DefaultBootCPU = 60 * time.Second

// DefaultRunCPU is cmd/vmlab's -run-cpu: the most cpu time QEMU may use
// running a guest's steps, after /init's marker. The longest guest, the
// arm64 one (11 steps under TCG's arm64-on-x86 emulation), ran them in
// 480 s of wall time at load 9-13, on a share of 2 cpus; 30 minutes of cpu
// time is at least 2× that however the host is loaded, and a guest that
// spins without end (a soft lockup) still reaches it in 15 minutes on 2
// cpus.
const DefaultRunCPU = 30 * time.Minute

// DefaultSilenceMargin is the slack over a guest's longest command
// timeout before silence on its data channel means it is wedged. The
// guest's clock follows the host's under TCG, so its `timeout N` fires N
// seconds of wall time in whatever the load; the margin is for the
// output's emission on a starved guest (the arm64 guest's slowest emits
// took seconds at load 9-13).
const DefaultSilenceMargin = 5 * time.Minute

// guestTimeout matches a guest command's own bound in a step's script.
var guestTimeout = regexp.MustCompile(`\btimeout (\d+)\b`)

// silence is the wall time a guest running body may stay silent on its
// data channel: its longest `timeout N` plus the margin, since each output
// comes at the end of one bounded command; 0 (no bound) where a command
// has none (vmlab run's).
func (l *Lab) silence(body []string) time.Duration {
	longest := 0
	for _, s := range body {
		for _, line := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "run ") {
				continue
			}
			m := guestTimeout.FindStringSubmatch(line)
			if m == nil {
				return 0
			}
			n, _ := strconv.Atoi(m[1])
			longest = max(longest, n)
		}
	}
	margin := l.SilenceMargin
	if margin == 0 {
		margin = DefaultSilenceMargin
	}
	return time.Duration(longest)*time.Second + margin
}

// bootBound is BootCPU for t: TCG brings vcpus up one after another, so a
// guest of more than 8 gets it times vcpus/8.
func (l *Lab) bootBound(t Topology) time.Duration {
	return l.BootCPU * time.Duration(max(1, (t.UpCPUs()+7)/8))
}

// boot is Boot's QEMU run, retried once after a *BootFailure or a wedged
// guest, and up to twice after a kernel crash on the console after the
// marker, never more than three boots in all.
//
// A crash mid-run is TCG's too: the kernel oracle's guests oopsed (an int3
// in code being patched, a call through NULL in try_to_wake_up) in 3 of
// about 30 boots, twice as `contend kernel count` set or restored
// sched_schedstats, whose static key patches kernel text; a CI run of
// 326cc11 then had a 6.12 guest oops mid-count (try_to_wake_up+0x154
// calling 0x0). At that rate one retry still fails CI about once in a
// hundred of the oracle's guests; two make it one in a thousand, and a
// crash that contend causes still fails, since it comes on every boot.
// The crashes are not independent, though: on 2026-12-05 they came in
// bursts that crashed all three boots of a run (in CI, then twice here,
// once before the init marker, with contend not yet started), between
// runs that passed. So CI runs those guests under single-threaded TCG
// (-accel tcg,thread=single), where no vcpu runs while another patches.
// The last crash fails the guest, whatever its steps say: a crash is
// never a pass, and every retry is said in the log, in Retries and in the
// Boot's Retried.
func (l *Lab) boot(ctx context.Context, t Topology, name, kernel, initrd, dir string, silence time.Duration) (*Boot, error) {
	const hangRetries, crashRetries, maxBoots = 1, 2, 3
	var whys []string
	hangs, crashes := 0, 0
	for attempt := 1; ; attempt++ {
		b, err := QEMU(ctx, t, kernel, initrd, dir, l.Accel, l.QEMU, l.bootBound(t), l.RunCPU, silence, l.Timeout)
		var failed *BootFailure
		var wedged *Wedged
		var why string
		switch {
		case ctx.Err() != nil:
			return b, err
		case errors.As(err, &failed), errors.As(err, &wedged):
			if failed != nil {
				why = failed.Why
			} else {
				why = wedged.Why
			}
			if hangs++; hangs > hangRetries {
				return b, fmt.Errorf("boot failed twice: %w; before: %s", err, strings.Join(whys, "; then "))
			}
			if attempt == maxBoots {
				return b, fmt.Errorf("boot failed on the last of %d boots: %w; before: %s", maxBoots, err, strings.Join(whys, "; then "))
			}
		case b != nil && b.crash() != "":
			why = "kernel crash after boot: " + b.crash()
			if crashes++; crashes > crashRetries || attempt == maxBoots {
				return b, errors.Join(err, fmt.Errorf("kernel crash after boot, on the last of %d boots: %s (see %s); before: %s", attempt, b.crash(), b.Console, strings.Join(whys, "; then ")))
			}
		default:
			if b != nil && len(whys) > 0 {
				b.Retried = strings.Join(whys, "; then ")
				l.Retries = append(l.Retries, name+": "+b.Retried)
			}
			return b, err
		}
		kept := filepath.Join(dir, fmt.Sprintf("console.%d.log", attempt))
		if rerr := os.Rename(b.Console, kept); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return b, errors.Join(err, rerr)
		}
		whys = append(whys, fmt.Sprintf("%s (see %s)", why, kept))
		l.logf("%s: boot failed (%s; console in %s): retrying on a fresh boot (boot %d of at most %d)", name, why, kept, attempt+1, maxBoots)
	}
}

// save writes each output into dir. Text outputs get a first line saying
// where they were made, so none can pass for a measurement of a real
// machine; tar archives are kept as they came.
func save(dir string, t Topology, tr *Transcript) error {
	var times strings.Builder
	for _, o := range tr.Outputs {
		fmt.Fprintf(&times, "%8.1f  rc=%-3d %s\n", o.At, o.RC, o.Name)
	}
	if err := os.WriteFile(filepath.Join(dir, "times.txt"), []byte(times.String()), 0o644); err != nil {
		return err
	}
	head := fmt.Sprintf("# vmlab: made in a QEMU guest (topology %s, accelerator TCG unless -accel says otherwise): timings mean nothing\n", t.Name)
	for _, o := range tr.Outputs {
		data := o.Data
		if !strings.HasSuffix(o.Name, ".tgz") {
			data = append([]byte(head), data...)
		}
		if err := os.WriteFile(filepath.Join(dir, o.Name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// A Failure is one topology's failed checks.
type Failure struct {
	Topology string
	Problems []string // "step: what"
}

func (f *Failure) Error() string {
	return fmt.Sprintf("topology %s: %d problems:\n  %s", f.Topology, len(f.Problems), strings.Join(f.Problems, "\n  "))
}

// Check boots t with its steps and judges each.
func (l *Lab) Check(ctx context.Context, t Topology) error {
	if err := t.Validate(); err != nil {
		return err
	}
	var steps []Step
	var body []string
	for _, n := range t.Steps {
		s, err := LookupStep(n)
		if err != nil {
			return fmt.Errorf("topology %s: %w", t.Name, err)
		}
		steps = append(steps, s)
		body = append(body, s.Script(t))
	}
	tr, b, err := l.Boot(ctx, t, t.Name, body)
	f := &Failure{Topology: t.Name}
	if err != nil {
		f.Problems = append(f.Problems, "boot: "+err.Error())
	}
	l.Kept = ""
	if tr != nil {
		for _, s := range steps {
			f.Problems = append(f.Problems, s.Check(t, tr)...)
		}
		if l.Keep != "" {
			if dir, err := l.keep(t, tr); err != nil {
				f.Problems = append(f.Problems, "keeping the outputs: "+err.Error())
			} else {
				l.Kept = dir
				l.logf("%s: outputs kept in %s", t.Name, dir)
			}
		}
	}
	if b != nil {
		retried := ""
		if b.Retried != "" {
			retried = "; retried after: " + b.Retried
		}
		l.logf("%s: booted in %.1fs (%.1fs of QEMU's cpu time), %d steps in %.1fs (%s)%s", t.Name, b.Booted.Seconds(), b.BootCPU.Seconds(), len(steps), b.Elapsed.Seconds(), strings.Join(t.Steps, " "), retried)
	}
	if tr != nil {
		for _, n := range tr.Notes {
			l.logf("%s: %s", t.Name, n)
		}
	}
	if len(f.Problems) > 0 {
		return f
	}
	return nil
}

// Untar unpacks a tar.gz that came back from a guest into dir, refusing
// names that would leave it.
func Untar(data io.Reader, dir string) error {
	zr, err := gzip.NewReader(data)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if name == "." {
			continue
		}
		if filepath.IsAbs(name) || strings.HasPrefix(name, "..") {
			return fmt.Errorf("tar entry %q leaves the directory", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
		}
	}
}
