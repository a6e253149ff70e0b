package machine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A count's workload runs in a cgroup-v2 hierarchy shaped like seed 000's
// docker containers: system.slice/docker-<id>.scope, each level a task
// group of its own (the cpu controller on), so each level's tg->load_avg
// is written as the workload's cfs_rqs change. Levels beyond two are
// nested scopes. Every directory the count creates carries the prefix
// below in its name, so a later run finds what a killed one left.
const cgroupPrefix = "contend-"

// Cgroups is a cgroup-v2 mount.
type Cgroups struct{ Dir string }

// FindCgroup2 returns the cgroup-v2 mount listed in mountinfo.
func FindCgroup2(root string) (*Cgroups, error) {
	f, err := os.Open(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		return nil, fmt.Errorf("reading mountinfo: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		if f := strings.Fields(pre); len(f) >= 5 {
			return &Cgroups{filepath.Join(root, f[4])}, nil
		}
	}
	return nil, errors.New("no cgroup2 file system mounted (mount -t cgroup2 none /sys/fs/cgroup)")
}

// Hierarchy is the chain of cgroups a count made, outermost first; Leaf
// is where the workload runs.
type Hierarchy struct {
	Dirs []string
	Leaf string
}

// LevelNames returns the directories of a hierarchy of depth levels:
// system.slice, then docker-<id>.scope, then deeper scopes. Each carries
// the prefix; id names this run.
func LevelNames(levels int, id string) []string {
	names := []string{cgroupPrefix + "system.slice"}
	if levels >= 2 {
		names = append(names, "docker-"+cgroupPrefix+id+".scope")
	}
	for l := 3; l <= levels; l++ {
		names = append(names, fmt.Sprintf("%slevel%d.scope", cgroupPrefix, l))
	}
	return names[:levels]
}

// MakeHierarchy creates the levels under the mount, with the cpu controller
// enabled down to the leaf, and records removing each directory and
// disabling the controller where it was not already enabled.
func (c *Cgroups) MakeHierarchy(u *Undo, levels int, id string) (*Hierarchy, error) {
	if levels < 1 {
		return nil, fmt.Errorf("cgroup levels %d: need at least 1", levels)
	}
	h := &Hierarchy{}
	dir := c.Dir
	for _, name := range LevelNames(levels, id) {
		if err := enableCPU(u, dir); err != nil {
			return nil, err
		}
		dir = filepath.Join(dir, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating cgroup: %w", err)
		}
		d := dir
		u.Push("cgroup "+d, func() error { return removeCgroup(c.Dir, d) })
		h.Dirs = append(h.Dirs, d)
	}
	h.Leaf = dir
	return h, nil
}

// enableCPU turns on the cpu controller for dir's children.
func enableCPU(u *Undo, dir string) error {
	ctl := filepath.Join(dir, "cgroup.subtree_control")
	cur, err := readTrim(ctl)
	if err != nil {
		return fmt.Errorf("cgroup %s: %w", dir, err)
	}
	if slices.Contains(strings.Fields(cur), "cpu") {
		return nil
	}
	if err := writeFile(ctl, "+cpu", 0); err != nil {
		return fmt.Errorf("enabling the cpu controller (is it bound to cgroup v1, or are there processes in %s?): %w", dir, err)
	}
	u.Push("+cpu in "+ctl, func() error { return writeFile(ctl, "-cpu", 0) })
	return nil
}

// removeCgroup moves any process left in dir to the mount's root and
// removes dir: the workload has exited by then, so normally nothing moves.
func removeCgroup(mount, dir string) error {
	if procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
		top := mount
		for _, pid := range strings.Fields(string(procs)) {
			writeFile(filepath.Join(top, "cgroup.procs"), pid, 0) // best effort; rmdir says if it failed
		}
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// RemoveStale removes, deepest first, every cgroup under the mount whose
// name carries the prefix (an earlier run's), and says which.
func (c *Cgroups) RemoveStale() ([]string, error) {
	var stale []string
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if depth > 8 {
			return nil
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			if strings.Contains(e.Name(), cgroupPrefix) {
				stale = append(stale, sub)
			}
			if err := walk(sub, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(c.Dir, 0); err != nil {
		return nil, err
	}
	var done []string
	for i := len(stale) - 1; i >= 0; i-- { // children were appended after parents
		if err := removeCgroup(c.Dir, stale[i]); err != nil {
			return done, fmt.Errorf("removing stale cgroup %s: %w", stale[i], err)
		}
		done = append(done, "cgroup "+stale[i]+" removed")
	}
	return done, nil
}
