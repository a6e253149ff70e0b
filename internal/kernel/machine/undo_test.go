package machine

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestUndoOrder(t *testing.T) {
	u := NewUndo(io.Discard)
	var got []string
	for _, s := range []string{"a", "b", "c"} {
		u.Push(s, func() error {
			got = append(got, s)
			if s == "b" {
				return errors.New("boom")
			}
			return nil
		})
	}
	err := u.Run()
	if want := []string{"c", "b", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("undo ran %v, want %v", got, want)
	}
	if err == nil || !strings.Contains(err.Error(), "undoing b: boom") {
		t.Errorf("Run = %v, want b's failure", err)
	}
	if err := u.Run(); err != nil || u.Len() != 0 {
		t.Errorf("second Run = %v with %d steps, want nothing to do", err, u.Len())
	}
}

func TestSysctlRestores(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "proc/sys/kernel/sched_schedstats")
	write(t, p, []byte("0\n"))
	u := NewUndo(io.Discard)
	if err := Sysctl(u, root, "kernel.sched_schedstats", "1"); err != nil {
		t.Fatal(err)
	}
	if v, _ := readTrim(p); v != "1" {
		t.Fatalf("sched_schedstats = %q after Sysctl, want 1", v)
	}
	state := filepath.Join(root, stateDir, "sysctl.kernel.sched_schedstats")
	if v, _ := readTrim(state); v != "0" {
		t.Errorf("state file holds %q, want the old value 0", v)
	}
	if err := u.Run(); err != nil {
		t.Fatal(err)
	}
	if v, _ := readTrim(p); v != "0" {
		t.Errorf("sched_schedstats = %q after undo, want 0", v)
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file left after undo: %v", err)
	}

	// A run killed after setting it: the next run restores it.
	write(t, p, []byte("1\n"))
	write(t, state, []byte("0\n"))
	done, err := StaleSysctls(root)
	if err != nil || len(done) != 1 || !strings.Contains(done[0], "restored to 0") {
		t.Errorf("StaleSysctls = %v, %v", done, err)
	}
	if v, _ := readTrim(p); v != "0" {
		t.Errorf("sched_schedstats = %q after StaleSysctls, want 0", v)
	}
	// Already as wanted: nothing recorded.
	if err := Sysctl(u, root, "kernel.sched_schedstats", "0"); err != nil || u.Len() != 0 {
		t.Errorf("Sysctl to the current value: %v, %d undo steps", err, u.Len())
	}
	if err := Sysctl(u, root, "kernel.nosuch", "1"); err == nil || !strings.Contains(err.Error(), "sysctl kernel.nosuch") {
		t.Errorf("Sysctl(nosuch) = %v", err)
	}
}

func TestTracefsFiles(t *testing.T) {
	hits, missed, err := parseProfile("  contend_enqueue                                  1234               0\n  other 5 1\n")
	if err != nil || hits["contend_enqueue"] != 1234 || hits["other"] != 5 || missed["other"] != 1 {
		t.Errorf("parseProfile = %v, %v, %v", hits, missed, err)
	}
	if _, _, err := parseProfile("  x y\n"); err == nil {
		t.Error("parseProfile accepted a two-field line")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "kprobe_events"), []byte("p:kprobes/mine do_sys_open\np:contend/contend_enqueue enqueue_task_fair\nr:contend/contend_r x\n"))
	tfs, err := FindTracefs(filepath.Dir(filepath.Dir(filepath.Dir(dir))) + "/nosuch")
	if err == nil {
		t.Errorf("FindTracefs on an empty root = %v", tfs)
	}
	tfs = &Tracefs{dir}
	names, err := tfs.Probes()
	if want := []string{"contend_enqueue", "contend_r"}; err != nil || !reflect.DeepEqual(names, want) {
		t.Errorf("Probes = %v, %v; want %v (not kprobes/mine)", names, err, want)
	}
	done, err := tfs.RemoveStale()
	if err != nil || len(done) != 2 {
		t.Fatalf("RemoveStale = %v, %v", done, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "kprobe_events"))
	if !strings.Contains(string(b), "-:contend/contend_enqueue\n") || strings.Contains(string(b), "-:kprobes/") {
		t.Errorf("kprobe_events written %q: want only the group's probes removed", b)
	}
}

func TestCgroups(t *testing.T) {
	if got := LevelNames(3, "42"); !reflect.DeepEqual(got, []string{"contend-system.slice", "docker-contend-42.scope", "contend-level3.scope"}) {
		t.Errorf("LevelNames(3) = %v", got)
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "proc/self/mountinfo"), []byte(
		"25 1 0:23 / /sys rw - sysfs sysfs rw\n30 25 0:26 / /sys/fs/cgroup/unified rw,relatime shared:9 - cgroup2 cgroup2 rw\n"))
	cg, err := FindCgroup2(root)
	if err != nil || cg.Dir != filepath.Join(root, "sys/fs/cgroup/unified") {
		t.Errorf("FindCgroup2 = %v, %v", cg, err)
	}
	write(t, filepath.Join(root, "proc/self/mountinfo"), []byte("25 1 0:23 / /sys rw - sysfs sysfs rw\n"))
	if _, err := FindCgroup2(root); err == nil || !strings.Contains(err.Error(), "no cgroup2") {
		t.Errorf("FindCgroup2 with none = %v", err)
	}
	// Stale: what a killed run left, and nothing else.
	mnt := t.TempDir()
	for _, d := range []string{"contend-system.slice/docker-contend-7.scope", "system.slice/docker-real.scope", "system.slice/contend-level3.scope"} {
		os.MkdirAll(filepath.Join(mnt, d), 0o755)
	}
	done, err := (&Cgroups{mnt}).RemoveStale()
	if err != nil || len(done) != 3 {
		t.Errorf("RemoveStale = %v, %v; want 3 removed", done, err)
	}
	for _, d := range []string{"system.slice/docker-real.scope"} {
		if _, err := os.Stat(filepath.Join(mnt, d)); err != nil {
			t.Errorf("RemoveStale removed %s, not its own", d)
		}
	}
	if _, err := os.Stat(filepath.Join(mnt, "contend-system.slice")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("contend-system.slice left: %v", err)
	}
}
