package machine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// RemoveStale removes probes an earlier run left in the group, and says
// which.
func (t *Tracefs) RemoveStale() ([]string, error) {
	names, err := t.Probes()
	if err != nil {
		return nil, err
	}
	var done []string
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
