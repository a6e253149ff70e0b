package machine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// lockFile is the one file every run that changes the machine holds an
// exclusive flock on, for as long as it may have changes out: kprobes in
// ProbeGroup, cgroups with cgroupPrefix, sysctls saved under stateDir.
// Two runs at once would each take the other's changes for a killed run's
// leftovers and remove them under it: in a 6.12 guest a second count
// removing the first's kprobes while they fired Oopsed the kernel (int3 at
// a probed function's entry, 2 boots of 2). The kernel drops a flock when
// its holder's last descriptor closes, however the process died, so
// holding the lock is itself the proof that no other run's changes are
// live: whatever carries contend's names is a dead run's, and only the
// holder removes it.
const lockFile = stateDir + "/lock"

// ErrBusy says another run holds the machine.
var ErrBusy = errors.New("another contend kernel run holds the machine")

// Lock is a held machine lock.
type Lock struct {
	f *os.File
}

// Holder is who holds the lock, as the holder wrote it.
type Holder struct {
	PID     int
	Started time.Time
	What    string // the holder's command, e.g. "kernel count"
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "a run that has not written its pid yet"
	}
	s := fmt.Sprintf("pid %d", h.PID)
	if h.What != "" {
		s += " (" + h.What + ")"
	}
	if !h.Started.IsZero() {
		s += ", started " + h.Started.UTC().Format(time.RFC3339)
	}
	return s
}

// TakeLock takes the machine's lock for what (a command's name), without
// waiting: where another process holds it, the error wraps ErrBusy and
// names the holder in one line. The holder's pid, start time and command
// are written into the file for the next one to read.
func TakeLock(root, what string) (*Lock, error) {
	path := filepath.Join(root, lockFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("the machine lock: %w", err)
	}
	// Never removed: a process that opened the file just before it went
	// would lock an inode no other run sees.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("the machine lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s; one at a time (%s)", ErrBusy, ReadHolder(root), path)
		}
		return nil, fmt.Errorf("the machine lock %s: %w", path, err)
	}
	rec := fmt.Sprintf("pid %d\nstarted %s\nwhat %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano), what)
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(rec), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("the machine lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// Release empties the record and drops the lock. Safe on nil and twice.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Truncate(0)
	err = errors.Join(err, l.f.Close()) // closing drops the flock
	l.f = nil
	return err
}

// ReadHolder reads the record the lock's holder wrote; a holder that has
// not written it yet (the instant between flock and write) has PID 0.
func ReadHolder(root string) Holder {
	b, _ := os.ReadFile(filepath.Join(root, lockFile))
	return parseHolder(string(b))
}

func parseHolder(s string) Holder {
	var h Holder
	for _, line := range strings.Split(s, "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "pid":
			h.PID, _ = strconv.Atoi(v)
		case "started":
			h.Started, _ = time.Parse(time.RFC3339Nano, v)
		case "what":
			h.What = v
		}
	}
	return h
}
