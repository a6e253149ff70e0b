package machine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Undo is the list of what a count changed on the machine, undone in
// reverse order by Run: kprobes outlive the process that made them, and so
// do cgroups and sysctls, so every change is recorded here the moment it is
// made, before the next can fail. Run is safe to call more than once and
// from a signal handler's goroutine while the count is still unwinding.
type Undo struct {
	mu    sync.Mutex
	steps []undoStep
	log   io.Writer
}

type undoStep struct {
	what string
	do   func() error
}

// NewUndo returns an empty Undo that says what it undoes on log.
func NewUndo(log io.Writer) *Undo { return &Undo{log: log} }

// Push records how to undo a change just made.
func (u *Undo) Push(what string, do func() error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.steps = append(u.steps, undoStep{what, do})
}

// Run undoes every change, newest first, and returns every failure; a
// failed step does not stop the others.
func (u *Undo) Run() error {
	u.mu.Lock()
	steps := u.steps
	u.steps = nil
	u.mu.Unlock()
	var errs []error
	for i := len(steps) - 1; i >= 0; i-- {
		if err := steps[i].do(); err != nil {
			errs = append(errs, fmt.Errorf("undoing %s: %w", steps[i].what, err))
		}
	}
	return errors.Join(errs...)
}

// Len is how many changes are recorded.
func (u *Undo) Len() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.steps)
}

// writeFile writes s to an existing kernel file (tracefs, cgroupfs, procfs)
// in one write, as echo does: those files act on each write.
func writeFile(path, s string, flag int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|flag, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %q to %s: %w", strings.TrimSpace(s), path, err)
	}
	return nil
}

// readTrim reads a one-value kernel file.
func readTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

// stateDir keeps, for each sysctl a count changed, the value it had: a
// run killed before it could restore one leaves the file, and the next
// run restores the value from it (StaleSysctls).
const stateDir = "run/contend-kernel"

// Sysctl sets /proc/sys/NAME (dots or slashes) to value and records how to
// restore it. Setting it to what it already is records nothing.
func Sysctl(u *Undo, root, name, value string) error {
	path := filepath.Join(root, "proc/sys", strings.ReplaceAll(name, ".", "/"))
	old, err := readTrim(path)
	if err != nil {
		return fmt.Errorf("sysctl %s: %w", name, err)
	}
	if old == value {
		return nil
	}
	state := filepath.Join(root, stateDir, "sysctl."+name)
	if err := os.MkdirAll(filepath.Dir(state), 0o755); err != nil {
		return fmt.Errorf("sysctl %s: keeping the old value: %w", name, err)
	}
	if err := os.WriteFile(state, []byte(old+"\n"), 0o644); err != nil {
		return fmt.Errorf("sysctl %s: keeping the old value: %w", name, err)
	}
	if err := writeFile(path, value, 0); err != nil {
		os.Remove(state)
		return fmt.Errorf("sysctl %s: %w", name, err)
	}
	u.Push("sysctl "+name+"="+old, func() error {
		if err := writeFile(path, old, 0); err != nil {
			return err
		}
		return os.Remove(state)
	})
	return nil
}

// StaleSysctls restores the sysctls an earlier run set and never restored,
// and returns one line per sysctl restored.
func StaleSysctls(root string) ([]string, error) {
	dir := filepath.Join(root, stateDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var done []string
	for _, e := range ents {
		name, ok := strings.CutPrefix(e.Name(), "sysctl.")
		if !ok {
			continue
		}
		state := filepath.Join(dir, e.Name())
		old, err := readTrim(state)
		if err != nil {
			return done, err
		}
		path := filepath.Join(root, "proc/sys", strings.ReplaceAll(name, ".", "/"))
		if err := writeFile(path, old, 0); err != nil {
			return done, fmt.Errorf("restoring sysctl %s: %w", name, err)
		}
		if err := os.Remove(state); err != nil {
			return done, err
		}
		done = append(done, fmt.Sprintf("sysctl %s restored to %s", name, old))
	}
	return done, nil
}
