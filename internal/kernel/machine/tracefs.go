package machine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ProbeGroup is the tracefs event group every kprobe a count adds lives
// in: a later run removes whatever is left in it (Tracefs.RemoveStale).
const ProbeGroup = "contend"

// Tracefs is a mounted tracefs: kprobe_events, kprobe_profile, events/.
type Tracefs struct{ Dir string }

// FindTracefs returns the mounted tracefs under root (/sys/kernel/tracing,
// or debugfs's tracing/), or an error saying where it looked.
func FindTracefs(root string) (*Tracefs, error) {
	for _, d := range []string{"sys/kernel/tracing", "sys/kernel/debug/tracing"} {
		dir := filepath.Join(root, d)
		if _, err := os.Stat(filepath.Join(dir, "kprobe_events")); err == nil {
			return &Tracefs{dir}, nil
		}
	}
	return nil, errors.New("no tracefs with kprobe_events under /sys/kernel/tracing or /sys/kernel/debug/tracing (mount -t tracefs nodev /sys/kernel/tracing; kernel needs CONFIG_KPROBE_EVENTS)")
}

func (t *Tracefs) path(p string) string { return filepath.Join(t.Dir, p) }

// AddKprobe adds kprobe ProbeGroup/name at target (SYMBOL or
// SYMBOL+0xOFF), enables it, and records its removal. With tracing_on at
// 0 an enabled kprobe counts its hits in kprobe_profile and records
// nothing.
func (t *Tracefs) AddKprobe(u *Undo, name, target string) error {
	def := fmt.Sprintf("p:%s/%s %s\n", ProbeGroup, name, target)
	if err := writeFile(t.path("kprobe_events"), def, os.O_APPEND); err != nil {
		return fmt.Errorf("kprobe on %s refused (not traceable: notrace, inline or a blacklisted function?): %w", target, err)
	}
	enable := t.path(filepath.Join("events", ProbeGroup, name, "enable"))
	remove := func() error { return t.removeProbe(name) }
	if err := writeFile(enable, "1", 0); err != nil {
		remove()
		return fmt.Errorf("enabling kprobe on %s: %w", target, err)
	}
	u.Push("kprobe "+ProbeGroup+"/"+name, remove)
	return nil
}

// removeProbe disables and deletes one of the group's probes.
func (t *Tracefs) removeProbe(name string) error {
	enable := t.path(filepath.Join("events", ProbeGroup, name, "enable"))
	if _, err := os.Stat(enable); err == nil {
		if err := writeFile(enable, "0", 0); err != nil {
			return err
		}
	}
	return writeFile(t.path("kprobe_events"), fmt.Sprintf("-:%s/%s\n", ProbeGroup, name), os.O_APPEND)
}

// Probes lists the group's probes in kprobe_events.
func (t *Tracefs) Probes() ([]string, error) {
	f, err := os.Open(t.path("kprobe_events"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "p:contend/enqueue enqueue_task_fair"
		def, _, _ := strings.Cut(sc.Text(), " ")
		_, ev, ok := strings.Cut(def, ":")
		if name, found := strings.CutPrefix(ev, ProbeGroup+"/"); ok && found {
			names = append(names, name)
		}
	}
	return names, sc.Err()
}

// RemoveStale removes probes an earlier run left in the group, and the
// group's trace instances (first: a probe enabled there cannot be
// removed), and says which.
func (t *Tracefs) RemoveStale() ([]string, error) {
	var done []string
	for _, suffix := range InstanceSuffixes {
		inst := t.path(filepath.Join("instances", ProbeGroup+suffix))
		if _, err := os.Stat(inst); err == nil {
			if err := os.Remove(inst); err != nil {
				return done, fmt.Errorf("removing stale trace instance: %w", err)
			}
			done = append(done, "trace instance "+ProbeGroup+suffix+" removed")
		}
	}
	names, err := t.Probes()
	if err != nil {
		return done, err
	}
	for _, n := range names {
		if err := t.removeProbe(n); err != nil {
			return done, fmt.Errorf("removing stale kprobe %s/%s: %w", ProbeGroup, n, err)
		}
		done = append(done, "kprobe "+ProbeGroup+"/"+n+" removed")
	}
	return done, nil
}

// Hits reads kprobe_profile: each probe's hit count, by name, and its
// missed count (hits the kprobe saw but did not handle: another kprobe
// was running on that cpu).
func (t *Tracefs) Hits() (hits, missed map[string]uint64, err error) {
	b, err := os.ReadFile(t.path("kprobe_profile"))
	if err != nil {
		return nil, nil, err
	}
	return parseProfile(string(b))
}

// parseProfile reads kprobe_profile's "  NAME  NHIT  NMISSED" lines.
func parseProfile(s string) (hits, missed map[string]uint64, err error) {
	hits, missed = map[string]uint64{}, map[string]uint64{}
	for i, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, nil, fmt.Errorf("kprobe_profile line %d: want NAME NHIT NMISSED, got %q", i+1, line)
		}
		n, err := strconv.ParseUint(f[1], 10, 64)
		m, err2 := strconv.ParseUint(f[2], 10, 64)
		if err != nil || err2 != nil {
			return nil, nil, fmt.Errorf("kprobe_profile line %d: hits %q, missed %q: not counts", i+1, f[1], f[2])
		}
		hits[f[0]], missed[f[0]] = n, m
	}
	return hits, missed, nil
}

// TracingOff sets tracing_on to 0 for the count and records restoring it,
// so enabled probes count without filling the ring buffer.
func (t *Tracefs) TracingOff(u *Undo) error {
	p := t.path("tracing_on")
	old, err := readTrim(p)
	if err != nil {
		return err
	}
	if old == "0" {
		return nil
	}
	if err := writeFile(p, "0", 0); err != nil {
		return err
	}
	u.Push("tracing_on="+old, func() error { return writeFile(p, old, 0) })
	return nil
}

// InstanceSuffixes name the group's trace instances, each
// instances/ProbeGroup+suffix: the tick trace's, and the wakeups' (their
// records come a hundred times as often as the ticks', so a buffer of
// their own keeps them from overwriting the ticks).
var InstanceSuffixes = []string{"", "-wake"}

// Instance is one of the group's own trace instances
// (instances/ProbeGroup+suffix, suffix one of InstanceSuffixes): a ring
// buffer of its own, so a probe that records its arguments there leaves
// the top buffer, and tracing_on there, as the count found them. It is
// made empty, with tracing off, and its removal recorded; one an earlier
// run left is removed by RemoveStale.
func (t *Tracefs) Instance(u *Undo, suffix string) (*Tracefs, error) {
	if !slices.Contains(InstanceSuffixes, suffix) {
		return nil, fmt.Errorf("trace instance %q: not one of the group's (RemoveStale would leave it)", ProbeGroup+suffix)
	}
	dir := t.path(filepath.Join("instances", ProbeGroup+suffix))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making trace instance %s: %w", dir, err)
	}
	u.Push("trace instance "+ProbeGroup+suffix, func() error { return os.Remove(dir) })
	in := &Tracefs{dir}
	if err := writeFile(in.path("tracing_on"), "0", 0); err != nil {
		return nil, err
	}
	return in, nil
}

// SetBufferKB sizes the instance's ring buffer, kb KiB per cpu
// (buffer_size_kb); the instance's removal frees it.
func (t *Tracefs) SetBufferKB(kb int) error {
	return writeFile(t.path("buffer_size_kb"), strconv.Itoa(kb), 0)
}

// AddTracedKprobe adds kprobe ProbeGroup/name at target with fetch
// arguments args (kprobe_events' "NAME=FETCHARG:TYPE ..."), enabled in
// instance in only, so its hits are recorded with their arguments there
// (and counted in kprobe_profile); it records the probe's removal.
func (t *Tracefs) AddTracedKprobe(u *Undo, in *Tracefs, name, target, args string) error {
	return t.addTraced(u, in, "p", name, target, args)
}

// AddTracedKretprobe is AddTracedKprobe's return probe: it fires as
// target returns, and its fetch arguments may read $retval.
func (t *Tracefs) AddTracedKretprobe(u *Undo, in *Tracefs, name, target, args string) error {
	return t.addTraced(u, in, "r", name, target, args)
}

func (t *Tracefs) addTraced(u *Undo, in *Tracefs, kind, name, target, args string) error {
	def := strings.TrimSpace(fmt.Sprintf("%s:%s/%s %s %s", kind, ProbeGroup, name, target, args)) + "\n"
	if err := writeFile(t.path("kprobe_events"), def, os.O_APPEND); err != nil {
		return fmt.Errorf("kprobe on %s with %s refused: %w", target, args, err)
	}
	enable := in.path(filepath.Join("events", ProbeGroup, name, "enable"))
	remove := func() error {
		if err := writeFile(enable, "0", 0); err != nil {
			return err
		}
		return writeFile(t.path("kprobe_events"), fmt.Sprintf("-:%s/%s\n", ProbeGroup, name), os.O_APPEND)
	}
	if err := writeFile(enable, "1", 0); err != nil {
		writeFile(t.path("kprobe_events"), fmt.Sprintf("-:%s/%s\n", ProbeGroup, name), os.O_APPEND)
		return fmt.Errorf("enabling kprobe on %s in %s: %w", target, in.Dir, err)
	}
	u.Push("kprobe "+ProbeGroup+"/"+name+" (traced)", remove)
	return nil
}

// Record starts (on) or stops recording in the instance; starting
// empties its buffer first.
func (t *Tracefs) Record(on bool) error {
	if !on {
		return writeFile(t.path("tracing_on"), "0", 0)
	}
	if err := writeFile(t.path("trace"), "", os.O_TRUNC); err != nil {
		return err
	}
	return writeFile(t.path("tracing_on"), "1", 0)
}

// Trace opens the instance's recorded text (its "trace" file).
func (t *Tracefs) Trace() (*os.File, error) { return os.Open(t.path("trace")) }
