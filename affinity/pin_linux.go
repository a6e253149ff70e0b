package affinity

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/unix"
)

// Pin locks the calling goroutine to its OS thread and restricts that thread to
// cpu with sched_setaffinity, then proves it: the thread must report running on
// cpu (getcpu) before Pin returns. A thread that runs elsewhere is an error, not
// a footnote.
//
// The returned undo restores the thread's previous affinity mask and only then
// unlocks the thread. The order matters: a goroutine that unlocks a still-pinned
// thread hands a one-CPU thread back to the Go scheduler, and every goroutine
// that later lands on it is silently confined to that CPU. If the mask cannot
// be restored, undo leaves the thread locked, so the runtime destroys it when
// the goroutine exits (exiting while locked is the documented way to throw a
// thread away). undo must be called on the goroutine that called Pin; calling
// it twice is harmless.
func Pin(cpu int) (undo func() error, err error) {
	if cpu < 0 || cpu >= 8*int(unsafe.Sizeof(unix.CPUSet{})) {
		return nil, fmt.Errorf("affinity: cpu %d is outside the range sched_setaffinity accepts", cpu)
	}
	runtime.LockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("affinity: reading thread affinity: %w", err)
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("affinity: pinning to cpu %d: %w", cpu, setaffinityRefused(cpu, err, OnlineNow))
	}
	done := false
	undo = func() error {
		if done {
			return nil
		}
		if err := unix.SchedSetaffinity(0, &old); err != nil {
			// Stay locked: the thread dies with the goroutine instead of
			// leaking a pinned thread into the scheduler's pool.
			return fmt.Errorf("affinity: restoring thread affinity after cpu %d: %w", cpu, err)
		}
		done = true
		runtime.UnlockOSThread()
		return nil
	}
	// sched_setaffinity on the calling thread migrates it before returning,
	// so the very next getcpu must already say cpu.
	got, _, err := GetCPU()
	if err != nil {
		undo()
		return nil, err
	}
	if got != cpu {
		undo()
		return nil, fmt.Errorf("affinity: pinned to cpu %d but the thread runs on cpu %d", cpu, got)
	}
	return undo, nil
}

// GetCPU returns the CPU and NUMA node the calling thread runs on, from the
// getcpu system call. The answer is only stable on a pinned thread.
func GetCPU() (cpu, node int, err error) {
	var c, n uint32
	_, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return -1, -1, fmt.Errorf("affinity: getcpu: %w", e)
	}
	return int(c), int(n), nil
}

// ThreadCPUs returns the affinity mask of the calling thread as CPU ids.
func ThreadCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("affinity: reading thread affinity: %w", err)
	}
	return cpuSetList(&set), nil
}

func cpuSetList(set *unix.CPUSet) []int {
	var cpus []int
	for i := 0; i < 8*int(unsafe.Sizeof(*set)); i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// A CPUProbe answers "which CPU am I on?" cheaply enough to ask inside a
// measured run. Linux writes (node<<12 | cpu) into IA32_TSC_AUX on every CPU,
// and RDTSCP returns it without entering the kernel (tens of cycles against a
// system call's hundreds). Hypervisors do not always pass the MSR through, so
// the probe is trusted only after it agreed with getcpu on every allowed CPU;
// otherwise it falls back to getcpu.
type CPUProbe struct {
	tscAux bool
}

var (
	probeOnce sync.Once
	probe     CPUProbe
)

// Probe returns the process's CPU probe, calibrating it on first use by
// pinning the calling goroutine to each allowed CPU in turn.
func Probe() *CPUProbe {
	probeOnce.Do(func() { probe.tscAux = calibrateTSCAux() })
	return &probe
}

// FastPath reports whether the probe reads TSC_AUX rather than calling getcpu.
func (p *CPUProbe) FastPath() bool { return p.tscAux }

// CPU returns the CPU the calling thread runs on.
func (p *CPUProbe) CPU() int {
	if p.tscAux {
		return int(cpuid.CPU.Ia32TscAux() & 0xfff)
	}
	c, _, err := GetCPU()
	if err != nil {
		return -1
	}
	return c
}

func calibrateTSCAux() bool {
	if !cpuid.CPU.Supports(cpuid.RDTSCP) || os.Getenv("CONTEND_NO_TSCAUX") != "" {
		return false
	}
	agreed := 0
	for _, cpu := range startCPUs() {
		ok := func() bool {
			undo, err := Pin(cpu)
			if err != nil {
				return true // cannot test this CPU; others decide
			}
			defer undo()
			want, node, err := GetCPU()
			if err != nil {
				return false
			}
			aux := cpuid.CPU.Ia32TscAux()
			if int(aux&0xfff) != want || int(aux>>12) != node {
				return false
			}
			agreed++
			return true
		}()
		if !ok {
			return false
		}
	}
	return agreed > 0
}
