package vmlab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/internal/vmlab/topology"
)

// fakeQEMU writes a shell script that stands in for QEMU: its nth run does
// plan[n-1] (a fresh count in dir's runs file), writing the console and the
// data channel where the lab's arguments put them (-serial file:, or a
// virtio console's -chardev path= on arm64), both made empty at the start
// as QEMU's file backends are:
//
//	ok     init marker, one output, done; exits 0 (poweroff)
//	hang   a soft lockup on the console, then spins, forever, as a
//	       guest's vcpus do in one
//	idle   nothing, forever, using no cpu
//	crash  an oops on the console, then nothing, forever
//	panic  a kernel panic on the console; exits 0 (panic=-1 -no-reboot)
//	stall  init marker, then spins until it has used stall of cpu time,
//	       then as ok
//	stuck  init marker, then nothing, forever
//	spin   init marker, then spins, forever (steps in a soft lockup)
//	oops   init marker, an oops on the console mid-run, then as ok
//	wedge  init marker, then nothing, forever (= stuck)
func fakeQEMU(t *testing.T, dir string, stall time.Duration, plan ...string) string {
	t.Helper()
	var cases strings.Builder
	for i, p := range plan {
		fmt.Fprintf(&cases, "%d) mode=%s;;\n", i+1, p)
	}
	ok := `printf '@@vmlab init\n@@vmlab begin a\naGk=\n@@vmlab end a rc=0 t=1.0\n@@vmlab done\n' >> "$data"`
	script := `#!/bin/sh
console= data= prev=
for a in "$@"; do
	case $prev in
	-serial) if [ -z "$console" ]; then console=${a#file:}; else data=${a#file:}; fi;;
	-chardev) data=${a##*path=};;
	esac
	prev=$a
done
: > "$console"; : > "$data"
n=$(cat '` + dir + `/runs' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '` + dir + `/runs'
mode=none
case $n in
` + cases.String() + `esac
case $mode in
ok) ` + ok + `;;
hang) echo 'watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [migration/1:21]' > "$console"; while :; do :; done;;
idle) exec sleep 1000;;
crash) printf 'Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\nRIP: 0010:sched_clock_cpu+0x10/0x1a0\n' > "$console"; exec sleep 1000;;
panic) echo 'Kernel panic - not syncing: Attempted to kill the idle task!' > "$console";;
stall) echo '@@vmlab init' > "$data"
	while :; do
		read -r st < /proc/$$/stat; set -- $st
		[ $((${14} + ${15})) -ge ` + fmt.Sprint(int(stall.Seconds()*100)) + ` ] && break
	done
	` + strings.Replace(ok, `@@vmlab init\n`, "", 1) + `;;
stuck|wedge) echo '@@vmlab init' > "$data"; exec sleep 1000;;
spin) echo '@@vmlab init' > "$data"; while :; do :; done;;
oops) printf 'BUG: kernel NULL pointer dereference, address: 0000000000000000\nOops: 0010 [#1] PREEMPT SMP NOPTI\nRIP: 0010:0x0\n' > "$console"; ` + ok + `;;
*) echo "fake qemu: no plan for run $n" >&2; exit 3;;
esac
`
	p := filepath.Join(dir, "qemu")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeLab is a lab whose "kernel" and base initramfs are empty files and
// whose QEMU is fakeQEMU's, booting a one-cpu guest of the host's arch.
func fakeLab(t *testing.T, boot, timeout, stall time.Duration, plan ...string) (*Lab, Topology, *bytes.Buffer) {
	t.Helper()
	if _, ok := topology.Arches[runtime.GOARCH]; !ok {
		t.Skipf("the lab boots no %s guests", runtime.GOARCH)
	}
	dir := t.TempDir()
	log := &bytes.Buffer{}
	l := &Lab{Host: Host{Out: dir, Log: log}, BootCPU: boot, RunCPU: 4 * boot, Timeout: timeout, QEMU: fakeQEMU(t, dir, stall, plan...)}
	l.kernel, l.base = filepath.Join(dir, "kernel"), filepath.Join(dir, "base.cpio")
	for _, f := range []string{l.kernel, l.base} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	topo := Topology{Name: "fake-1", Arch: runtime.GOARCH, CPUModel: "max", Sockets: 1, Cores: 1, Threads: 1}
	return l, topo, log
}

func runs(t *testing.T, l *Lab) int {
	b, err := os.ReadFile(filepath.Join(l.Out, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscan(string(b), &n)
	return n
}

// TestBootRetry: a boot that shows no progress (no init marker after the
// bound of QEMU's cpu time, or within the guest's timeout; an oops or panic
// on the console before it) is killed and retried once, and the retry is
// said in the log, in Retries and in the Boot; a second failure fails; a
// guest that boots and then spins past the bound is not taken for a hung
// boot, and one that boots and never ends fails without a retry: on the
// guest's timeout if it sleeps, on its bound of cpu time if it spins; a
// guest whose kernel oopses mid-run is retried once, and fails on a
// second oops. The fake writes its marker at once, so no outcome
// depends on how fast this machine runs it, only on the order of events.
func TestBootRetry(t *testing.T) {
	if _, ok := procCPU(os.Getpid()); !ok {
		t.Skip("no /proc/PID/stat: the bound is on the wall clock here, which a loaded machine makes a race")
	}
	const boot = 500 * time.Millisecond
	for _, c := range []struct {
		plan    []string
		timeout time.Duration
		err     string // "" for success
		retried string // "" for no retry
		runs    int
	}{
		{[]string{"ok"}, time.Minute, "", "", 1},
		{[]string{"hang", "ok"}, time.Minute, "", "no init marker after 500ms of QEMU's cpu time", 2},
		{[]string{"idle", "ok"}, 3 * time.Second, "", "no init marker within the guest's 3s (nothing on the console)", 2},
		{[]string{"crash", "ok"}, time.Minute, "", "kernel crash at boot: Oops: int3: 0000 [#1] PREEMPT SMP NOPTI", 2},
		{[]string{"panic", "ok"}, time.Minute, "", "the guest powered off before the init marker (console: Kernel panic - not syncing: Attempted to kill the idle task!)", 2},
		{[]string{"hang", "hang"}, time.Minute, "boot failed twice: no init marker after 500ms of QEMU's cpu time", "", 2},
		{[]string{"hang", "crash"}, time.Minute, "boot failed twice: kernel crash at boot: Oops: int3", "", 2},
		{[]string{"stall"}, time.Minute, "", "", 1},
		{[]string{"stuck", "ok"}, 3 * time.Second, "guest did not power off within 3s", "", 1},
		{[]string{"spin", "ok"}, time.Minute, "guest did not power off within 2s of QEMU's cpu time", "", 1},
		{[]string{"oops", "ok"}, time.Minute, "", "kernel crash after boot: BUG: kernel NULL pointer dereference", 2},
		{[]string{"oops", "oops", "ok"}, time.Minute, "", "kernel crash after boot: BUG: kernel NULL pointer dereference", 3},
		{[]string{"oops", "oops", "oops"}, time.Minute, "kernel crash after boot, on the last of 3 boots: BUG: kernel NULL pointer dereference", "", 3},
		{[]string{"oops", "hang", "ok"}, time.Minute, "", "kernel crash after boot: BUG: kernel NULL pointer dereference", 3},
		{[]string{"oops", "hang", "hang"}, time.Minute, "boot failed twice: no init marker", "", 3},
		{[]string{"oops", "oops", "hang"}, time.Minute, "boot failed on the last of 3 boots: no init marker", "", 3},
	} {
		t.Run(strings.Join(c.plan, ","), func(t *testing.T) {
			t.Parallel()
			l, topo, log := fakeLab(t, boot, c.timeout, 2*boot, c.plan...)
			tr, b, err := l.Boot(context.Background(), topo, topo.Name, []string{"run a true"})
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("Boot: %v\nlog:\n%s", err, log)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("Boot = %v, want an error containing %q\nlog:\n%s", err, c.err, log)
			}
			if n := runs(t, l); n != c.runs {
				t.Errorf("QEMU ran %d times, want %d", n, c.runs)
			}
			if c.err == "" && (tr == nil || !tr.Done || tr.Get("a") == nil || string(tr.Get("a").Data) != "hi") {
				t.Errorf("transcript %+v, want output a and done", tr)
			}
			if c.err != "" {
				if len(l.Retries) != 0 {
					t.Errorf("a failed boot listed as retried: %q", l.Retries)
				}
				return
			}
			if b.Booted <= 0 {
				t.Errorf("Booted = %v, want the time the marker came", b.Booted)
			}
			if !strings.HasPrefix(b.Retried, c.retried) || (c.retried == "") != (b.Retried == "") {
				t.Errorf("Retried = %q, want %q", b.Retried, c.retried)
			}
			if c.retried == "" {
				if len(l.Retries) != 0 || strings.Contains(log.String(), "retrying") {
					t.Errorf("a boot that was not retried: Retries %q, log:\n%s", l.Retries, log)
				}
				return
			}
			if want := "fake-1: " + c.retried; len(l.Retries) != 1 || !strings.HasPrefix(l.Retries[0], want) {
				t.Errorf("Retries = %q, want [%q...]", l.Retries, want)
			}
			if !strings.Contains(log.String(), "fake-1: boot failed ("+c.retried) || !strings.Contains(log.String(), "retrying on a fresh boot (boot 2 of at most 3)") {
				t.Errorf("the log does not say the boot was retried and why:\n%s", log)
			}
			if _, err := os.Stat(filepath.Join(l.Out, topo.Name, "console.1.log")); err != nil {
				t.Errorf("the first boot's console was not kept: %v", err)
			}
		})
	}
}

// TestCheckSaysRetried: Check's line for a topology whose boot was retried
// says so and why; the notes a step's check made are printed.
func TestCheckSaysRetried(t *testing.T) {
	if _, ok := procCPU(os.Getpid()); !ok {
		t.Skip("no /proc/PID/stat")
	}
	l, topo, log := fakeLab(t, 500*time.Millisecond, time.Minute, 0, "hang", "ok")
	Steps = append(Steps, Step{"fake-note", "a step whose check only notes", func(Topology) string { return "run a true\n" },
		func(_ Topology, tr *Transcript) []string {
			tr.Notef("a: %d bytes under %s", len(tr.Get("a").Data), tr.Accel)
			return nil
		}})
	defer func() { Steps = Steps[:len(Steps)-1] }()
	topo.Steps = []string{"fake-note"}
	if err := l.Check(context.Background(), topo); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"vmlab: fake-1: booted in ", "1 steps in ", "(fake-note); retried after: no init marker after 500ms of QEMU's cpu time", "vmlab: fake-1: a: 2 bytes under tcg\n"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// TestWedgedRetried: a guest silent on its data channel past its longest
// command's timeout plus the margin is killed and retried once, and fails
// the second time; the bound comes from the script's own timeouts, and a
// command without one (vmlab run's) sets none.
func TestWedgedRetried(t *testing.T) {
	for _, c := range []struct {
		plan    []string
		err     string
		retried string
	}{
		{[]string{"wedge", "ok"}, "", "nothing from the guest's /init for "},
		{[]string{"wedge", "wedge"}, "boot failed twice: nothing from the guest's /init", ""},
	} {
		t.Run(strings.Join(c.plan, ","), func(t *testing.T) {
			t.Parallel()
			l, topo, log := fakeLab(t, time.Minute, time.Minute, 0, c.plan...)
			l.SilenceMargin = time.Second
			_, b, err := l.Boot(context.Background(), topo, topo.Name, []string{"run a timeout 1 true\n"})
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("Boot: %v\nlog:\n%s", err, log)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("Boot = %v, want an error containing %q", err, c.err)
			case c.err == "" && !strings.HasPrefix(b.Retried, c.retried):
				t.Errorf("Retried = %q, want %q...", b.Retried, c.retried)
			}
			if n := runs(t, l); n != 2 {
				t.Errorf("QEMU ran %d times, want 2", n)
			}
		})
	}
}

func TestSilence(t *testing.T) {
	l := &Lab{SilenceMargin: time.Minute}
	for _, c := range []struct {
		body []string
		want time.Duration
	}{
		{[]string{"run a timeout 120 contend topo\nemit a /tmp/a 0\n", "run b timeout 400 contend kernel count\n"}, 460 * time.Second},
		{[]string{"run a timeout 5 true\n", "run contend contend run atomicadd\n"}, 0},
		{[]string{"echo 0 > /sys/devices/system/cpu/cpu7/online\n"}, time.Minute},
	} {
		if got := l.silence(c.body); got != c.want {
			t.Errorf("silence(%q) = %v, want %v", c.body, got, c.want)
		}
	}
	if got := (&Lab{}).silence([]string{"run a timeout 10 true"}); got != 10*time.Second+DefaultSilenceMargin {
		t.Errorf("default margin: silence = %v", got)
	}
}
