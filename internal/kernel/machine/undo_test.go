package machine

import (
	"errors"
	"fmt"
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

// The trace instance and its traced kprobe on a stand-in tracefs (plain
// files): what each writes, what undo writes back and in which order, and
// the error paths.
func TestTracefsInstance(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "kprobe_events")
	write(t, events, nil)
	tfs := &Tracefs{dir}
	in := &Tracefs{filepath.Join(dir, "instances", ProbeGroup)}
	enable := filepath.Join(in.Dir, "events", ProbeGroup, "contend_tick", "enable")
	write(t, enable, []byte("0"))
	write(t, filepath.Join(in.Dir, "trace"), []byte("an earlier run's records\n"))
	write(t, filepath.Join(in.Dir, "tracing_on"), []byte("0")) // kernel files take each write whole: one byte here

	u := NewUndo(io.Discard)
	if err := tfs.AddTracedKprobe(u, in, "contend_tick", "sched_balance_trigger", "j=@jiffies_64:u64"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(events); string(b) != "p:contend/contend_tick sched_balance_trigger j=@jiffies_64:u64\n" {
		t.Errorf("kprobe_events = %q", b)
	}
	if b, _ := os.ReadFile(enable); string(b) != "1" {
		t.Errorf("enabled in the instance: %q", b)
	}
	// No arguments: no trailing space in the definition.
	write(t, filepath.Join(in.Dir, "events", ProbeGroup, "contend_idle", "enable"), nil)
	if err := tfs.AddTracedKprobe(u, in, "contend_idle", "nohz_run_idle_balance", ""); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(events); !strings.HasSuffix(string(b), "p:contend/contend_idle nohz_run_idle_balance\n") {
		t.Errorf("kprobe_events = %q", b)
	}
	// A return probe: "r:", its fetch arguments reading $retval.
	write(t, filepath.Join(in.Dir, "events", ProbeGroup, "contend_woke", "enable"), nil)
	if err := tfs.AddTracedKretprobe(u, in, "contend_woke", "select_task_rq_fair", "cpu=$retval:u32"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(events); !strings.HasSuffix(string(b), "r:contend/contend_woke select_task_rq_fair cpu=$retval:u32\n") {
		t.Errorf("kprobe_events = %q", b)
	}
	write(t, filepath.Join(in.Dir, "buffer_size_kb"), []byte("1408"))
	if err := in.SetBufferKB(8192); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(in.Dir, "buffer_size_kb")); string(b) != "8192" {
		t.Errorf("buffer_size_kb = %q", b)
	}
	if err := in.Record(true); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{"trace": "", "tracing_on": "1"} {
		if b, _ := os.ReadFile(filepath.Join(in.Dir, f)); string(b) != want {
			t.Errorf("Record(true): %s = %q, want %q", f, b, want)
		}
	}
	if err := in.Record(false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(in.Dir, "tracing_on")); string(b) != "0" {
		t.Errorf("Record(false): tracing_on = %q", b)
	}
	if err := u.Run(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(enable); string(b) != "0" {
		t.Errorf("after undo the instance's enable = %q, want 0", b)
	}
	if b, _ := os.ReadFile(events); !strings.HasSuffix(string(b), "-:contend/contend_woke\n-:contend/contend_idle\n-:contend/contend_tick\n") {
		t.Errorf("after undo kprobe_events = %q: want the definitions removed, last first", b)
	}

	// An instance with no enable file for the probe: refused, and its
	// definition removed at once, nothing left to undo.
	u = NewUndo(io.Discard)
	if err := tfs.AddTracedKprobe(u, in, "contend_nosuch", "f", ""); err == nil || !strings.Contains(err.Error(), "enabling kprobe on f in") || u.Len() != 0 {
		t.Errorf("AddTracedKprobe without an enable file = %v, %d undo steps", err, u.Len())
	}
	if b, _ := os.ReadFile(events); !strings.HasSuffix(string(b), "-:contend/contend_nosuch\n") {
		t.Errorf("refused probe's definition left: %q", b)
	}

	// Instance: a new directory, which undo removes; one whose tracing_on
	// cannot be written (no tracefs behind it) is an error, and undo still
	// removes the directory.
	fresh := &Tracefs{t.TempDir()}
	os.Mkdir(filepath.Join(fresh.Dir, "instances"), 0o755)
	u = NewUndo(io.Discard)
	if _, err := fresh.Instance(u, ""); err == nil || !strings.Contains(err.Error(), "tracing_on") {
		t.Errorf("Instance on plain files = %v, want tracing_on refused", err)
	}
	if err := u.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(fresh.Dir, "instances", ProbeGroup)); !os.IsNotExist(err) {
		t.Errorf("the instance directory after undo: %v", err)
	}

	// Only the group's instances are made.
	if _, err := fresh.Instance(NewUndo(io.Discard), "-other"); err == nil || !strings.Contains(err.Error(), "contend-other") {
		t.Errorf("Instance(-other) = %v, want it refused", err)
	}

	// Stale instances go first, before the stale probes.
	stale := &Tracefs{t.TempDir()}
	write(t, filepath.Join(stale.Dir, "kprobe_events"), []byte("p:contend/contend_tick f\n"))
	os.MkdirAll(filepath.Join(stale.Dir, "instances", ProbeGroup), 0o755)
	os.MkdirAll(filepath.Join(stale.Dir, "instances", ProbeGroup+"-wake"), 0o755)
	os.MkdirAll(filepath.Join(stale.Dir, "instances", "someone-elses"), 0o755)
	done, err := stale.RemoveStale()
	if want := "[trace instance contend removed trace instance contend-wake removed kprobe contend/contend_tick removed]"; err != nil || fmt.Sprint(done) != want {
		t.Errorf("RemoveStale = %v, %v; want %s", done, err, want)
	}
	if _, err := os.Stat(filepath.Join(stale.Dir, "instances", "someone-elses")); err != nil {
		t.Errorf("RemoveStale removed another's instance: %v", err)
	}
}
