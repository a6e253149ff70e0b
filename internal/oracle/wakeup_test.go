package oracle

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/internal/kernel"
	"github.com/contend/contend/internal/kernel/schedstat"
	"github.com/contend/contend/internal/kernel/wakeups"
)

// The wakeups fixtures are what the lab's 6.1 guests sent back (scripts/
// vmlab.sh -debian-kernel 6.1 -topology oracle-llc1,oracle-llc4), as the
// lab keeps them: headed by its "# vmlab:" line.
var wakeupFixtures = []string{"testdata/wakeups-6.1-llc1.json", "testdata/wakeups-6.1-llc4.json"}

func TestReadWakeups(t *testing.T) {
	for _, path := range wakeupFixtures {
		w, err := ReadWakeups(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(w.Kernel, "6.1.") || w.Statements == 0 || w.Client["nr_wakeups"] == 0 || len(w.Sched.Domains) == 0 {
			t.Errorf("%s: %+v", path, w)
		}
	}
}

func TestReadWakeupsRejects(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, data, want string }{
		{"not json", "cpus: 4\n", "invalid character"},
		{"incomplete", `{"cpus": 4, "clients": 2, "servers": 2}`, "not a complete contend kernel wakeups run"},
		{"no schedstat", `{"cpus": 4, "clients": 2, "servers": 2, "seconds": 5, "statements": 10}`, "not a complete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadWakeups(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestWakeupModelConfig holds the inputs to what the guest measured: its
// topology, threads, each side's cpu per statement, and nothing from the
// counts the model is checked against.
func TestWakeupModelConfig(t *testing.T) {
	w := &wakeups.Run{CPUs: 8, LLCSize: 4, Clients: 4, Servers: 4, WarmupNs: int64(2 * time.Second), Seconds: 5, Statements: 1000,
		Client: schedstat.Task{"sum_exec_runtime": 100, "wait_sum": 10, "nr_migrations": 1e6, "nr_wakeups_affine": 1e6},
		Server: schedstat.Task{"sum_exec_runtime": 200, "wait_sum": 30},
		Sched:  &schedstat.Stats{Version: 15}}
	c := WakeupModelConfig(w)
	// 5 s × 4 clients / 1000 statements = 20 ms a round trip; cpu 100 µs
	// + 200 µs, queued 40 µs: the rest, halved, is each wakeup's.
	want := struct {
		topo                    string
		think, service, idle, _ time.Duration
	}{"llc4", 100 * time.Microsecond, 200 * time.Microsecond, (20000 - 340) * time.Microsecond / 2, 0}
	if c.Topology != want.topo || c.Think != want.think || c.Service != want.service || c.HZ != 250 || c.CPUs[0] != 8 ||
		c.Threads != 4 || c.Servers != 4 || c.Policies[0] != "v6.1" || c.Warmup != 2*time.Second {
		t.Errorf("config %+v", c)
	}
	if c.IdleWake != min(want.idle, 10*time.Millisecond) {
		t.Errorf("idlewake %s, want %s", c.IdleWake, min(want.idle, 10*time.Millisecond))
	}
	// With the send syscalls measured, the tail (a quarter of the two
	// sends' sum: 1 ms, clamped to think's 100 µs) runs beside the
	// partner, so each wakeup's residual grows by a tail.
	w.ClientSendNs, w.ServerSendNs = 1e6, 3e6
	if c := WakeupModelConfig(w); c.Tail != 100*time.Microsecond || c.IdleWake != min(want.idle+c.Tail, 10*time.Millisecond) {
		t.Errorf("tail %s idlewake %s, want 100µs and %s", c.Tail, c.IdleWake, min(want.idle+100*time.Microsecond, 10*time.Millisecond))
	}
	w.LLCSize, w.Servers = 1, 1
	if c := WakeupModelConfig(w); c.Topology != "s390" || c.IdleWake != 0 {
		t.Errorf("one-cpu LLCs, one server: topo %s idlewake %s, want s390 and the default", c.Topology, c.IdleWake)
	}
}

// TestWakeupMissing holds the named mechanisms to the rows and topologies
// they explain, and their evidence to the count's figures.
func TestWakeupMissing(t *testing.T) {
	llc1, err := ReadWakeups(wakeupFixtures[0])
	if err != nil {
		t.Fatal(err)
	}
	llc4, err := ReadWakeups(wakeupFixtures[1])
	if err != nil {
		t.Fatal(err)
	}
	rows := []WakeupRow{{Name: "wakeups/s", Kernel: 100, Model: 100}, {Name: "affine attempts/s", Kernel: 75, Model: 90}, {Name: "local wakeups/s", Kernel: 25, Model: 10}}
	for _, tc := range []struct {
		k    *wakeups.Run
		r    WakeupRow
		want string
	}{
		{llc4, WakeupRow{Name: "wakeup migrations/s", Kernel: 1, Model: 3}, "local wakeups 10/s against the kernel's 25, and wakeups with no wake_affine() attempt (cpu == prev_cpu: a pair on one cpu) 10% against 25%"},
		{llc4, WakeupRow{Name: "wakeup migrations/s", Kernel: 1, Model: 3}, "37 wakeups in 5.2 s"},
		{llc1, WakeupRow{Name: "balance migrations/s", Kernel: 3, Model: 1}, "against the kernel's 240/s involuntary switches (the other threads' 8 in 5.1 s)"},
		{llc1, WakeupRow{Name: "balance migrations/s", Kernel: 3, Model: 1}, "of the kernel's 91 CPU_IDLE moves the other threads made 42 migrations, the workload's tasks 50); what is short is the workload's own moves: the kernel's pairs share a cpu (local wakeups 25/s against the model's 10"},
		{llc1, WakeupRow{Name: "affine attempts/s", Kernel: 1, Model: 0}, "6 attempts in 5.1 s (0.14% of the workload's wakeups)"},
		{llc1, WakeupRow{Name: "affine attempts/s", Kernel: 1, Model: 3}, "not named: no mechanism"},
		{llc4, WakeupRow{Name: "balance migrations/s", Kernel: 3, Model: 1}, "not named: no mechanism"},
	} {
		if got := wakeupMissing(tc.k, WakeupModelConfig(tc.k), rows, tc.r); !strings.Contains(got, tc.want) {
			t.Errorf("llc %d %s %g→%g: %q lacks %q", tc.k.LLCSize, tc.r.Name, tc.r.Kernel, tc.r.Model, got, tc.want)
		}
	}
}

// TestWakePlacementRows: a run with the wake trace gets the placement's
// rows, the kernel's from the trace and the model's counted the same way
// (ksim.Placements); on LLCs of 4 the stacked pairs' rows and the
// migrations they move name the emulator's host, with the trace's
// figures; a run on one-cpu LLCs, or one without the trace, does not.
func TestWakePlacementRows(t *testing.T) {
	llc4, err := ReadWakeups("testdata/wakeups-6.1-llc4-trace.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, rows, err := WakeupRows(llc4, ksim.IdleTickGovernor)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.IdleWakeShape) != kernel.PendingQuantiles {
		t.Errorf("idlewake shape %v, want the trace's %d quantiles", cfg.IdleWakeShape, kernel.PendingQuantiles)
	}
	byName := map[string]WakeupRow{}
	for _, r := range rows {
		byName[strings.TrimSpace(r.Name)] = r
	}
	tr := llc4.Wakes
	stacked, parted := byName["wakeups stacked (prev_cpu the waking cpu), %"], byName["stacked ones parted (put elsewhere), %"]
	if !stacked.Held || math.Abs(stacked.Kernel-100*float64(tr.Stacked)/float64(tr.Wakes)) > 1e-9 || stacked.Model <= 0 || parted.Model <= 0 {
		t.Fatalf("placement rows %+v, %+v (trace %+v)", stacked, parted, tr)
	}
	for _, r := range []WakeupRow{stacked, parted} {
		if got := wakeupMissing(llc4, cfg, rows, r); !strings.Contains(got, "the emulator's host, not modelled") || !strings.Contains(got, "ttwu_pending") || !strings.Contains(got, "pending spells: median") {
			t.Errorf("%s: %q", r.Name, got)
		}
	}
	if got := stackedByTheHost(llc4, rows, WakeupRow{Name: "affine wakeups/s", Kernel: 1, Model: 3}); got != "" {
		t.Errorf("affine wakeups named by the host: %q", got)
	}
	llc1, err := ReadWakeups("testdata/wakeups-6.1-llc1-trace.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := stackedByTheHost(llc1, rows, stacked); got != "" {
		t.Errorf("one-cpu LLCs: %q", got)
	}
	old, err := ReadWakeups(wakeupFixtures[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, rows, err := WakeupRows(old, ksim.IdleTickGovernor); err != nil || len(rows) != 10 {
		t.Errorf("a run without the trace: %d rows, %v; want the 10 without placement", len(rows), err)
	}
}

func TestWakeupRowWithin(t *testing.T) {
	for _, tc := range []struct {
		k, m float64
		want bool
	}{{0, 0, true}, {0, 1, false}, {1, 0, false}, {10, 20, true}, {10, 5, true}, {10, 21, false}, {10, 4.9, false}} {
		if got := (WakeupRow{Kernel: tc.k, Model: tc.m}).Within(); got != tc.want {
			t.Errorf("kernel %v model %v: within %v, want %v", tc.k, tc.m, got, tc.want)
		}
	}
}

func TestWriteWakeupTable(t *testing.T) {
	var b strings.Builder
	if err := WriteWakeupTable(&b, wakeupFixtures); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"migrations/s", "wakeup migrations/s", "balance migrations/s", "affine wakeups/s", "llc 1", "llc 4", "the 6.1 check"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// Every held row outside the tolerance says what the model lacks.
	var no, outside int
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasSuffix(line, " NO"):
			no++
		case strings.HasPrefix(line, "outside: "):
			outside++
		}
	}
	if no != outside {
		t.Errorf("%d rows outside, %d outside lines:\n%s", no, outside, out)
	}
	if err := WriteWakeupTable(&b, nil); err == nil {
		t.Error("no files: no error")
	}
}

// A run from the lab's TCG guests takes its kernel's driver-less idle-loop
// form from the sites file beside it (6.1.0-57: the tick stops after the
// idle's first tick); the same run without the lab's header, a machine
// whose driver is not known to be absent, takes the governor.
func TestWakeupIdleTick(t *testing.T) {
	w, tcg, err := readWakeups(wakeupFixtures[0])
	if err != nil || !tcg {
		t.Fatalf("readWakeups(%s): TCG %v, %v; want the lab's TCG header read", wakeupFixtures[0], tcg, err)
	}
	if rule, from := wakeupIdleTick(wakeupFixtures[0], w, tcg); rule != ksim.IdleTickAfterTick || !strings.Contains(from, "sites-6.1.0-57-amd64.txt") {
		t.Errorf("wakeupIdleTick = %v (%s), want after-tick from the sites file", rule, from)
	}
	raw, err := os.ReadFile(wakeupFixtures[0])
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, l := range strings.SplitAfter(string(raw), "\n") {
		if !strings.HasPrefix(l, "#") {
			body = append(body, l)
		}
	}
	bare := filepath.Join(t.TempDir(), "bare.json")
	if err := os.WriteFile(bare, []byte(strings.Join(body, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, tcg, err := readWakeups(bare); err != nil || tcg {
		t.Fatalf("readWakeups(bare): TCG %v, %v; want no header", tcg, err)
	}
	if rule, _ := wakeupIdleTick(bare, w, false); rule != ksim.IdleTickGovernor {
		t.Errorf("wakeupIdleTick(no header) = %v, want the governor", rule)
	}
}

// On one-cpu LLCs the trace, where the run has one, says no wakeup
// brought the pairs together; without it the row says it has none.
func TestPairsTogether(t *testing.T) {
	old, err := ReadWakeups(wakeupFixtures[0])
	if err != nil {
		t.Fatal(err)
	}
	traced, err := ReadWakeups("testdata/wakeups-6.1-llc1-trace.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := pairsTogether(old); !strings.Contains(got, "no wake trace") {
		t.Errorf("no trace: %q", got)
	}
	w := traced.Wakes
	if got := pairsTogether(traced); w.Joined != 0 || !strings.Contains(got, fmt.Sprintf("none of its %d split wakeups joined", w.Wakes-w.Stacked)) {
		t.Errorf("traced: %q", got)
	}
	joined := *traced
	joined.Wakes = &kernel.WakeTrace{Wakes: 100, Stacked: 10, Joined: 3}
	if got := pairsTogether(&joined); !strings.Contains(got, "3 of its 90 split wakeups joining a pair and 0 of 10 stacked ones parting") {
		t.Errorf("with joins: %q", got)
	}
}

// TestColdPulls: on one-cpu LLCs a run with the move records names the
// emulator's host for the balancer's moves, with the records' figures;
// one without them says where the naming comes from.
func TestColdPulls(t *testing.T) {
	var b bytes.Buffer
	if err := WriteWakeupTable(&b, []string{"testdata/wakeups-6.1-llc1-moves.json", "testdata/wakeups-6.1-llc1-trace.json"}); err != nil {
		t.Fatal(err)
	}
	moves, err := ReadWakeups("testdata/wakeups-6.1-llc1-moves.json")
	if err != nil {
		t.Fatal(err)
	}
	m := moves.Wakes.Moves
	if m == nil || m.Balanced == 0 {
		t.Fatalf("the moves run has no move records: %+v", moves.Wakes)
	}
	var named, borrowed int
	for _, line := range strings.Split(b.String(), "\n") {
		if !strings.HasPrefix(line, "outside: ") || !strings.Contains(line, "balance migrations/s") {
			continue
		}
		switch {
		case strings.Contains(line, fmt.Sprintf("moved the workload's tasks %d times", m.Balanced)) && strings.Contains(line, "the emulator's host, not modelled:"):
			named++
		case strings.Contains(line, "this run has no move records"):
			borrowed++
		default:
			t.Errorf("balance row: %s", line)
		}
	}
	if named != 1 || borrowed != 1 {
		t.Errorf("%d rows named by their own move records, %d by the later run's; want 1 and 1:\n%s", named, borrowed, b.String())
	}
}

// TestAffineAttemptsNamed: the oldest one-cpu-LLC run's affine attempts,
// which the model never makes, name the wakeups it lacks: the other
// threads' wakeups of the workload (its wakeups without WF_SYNC, more
// than the attempts).
func TestAffineAttemptsNamed(t *testing.T) {
	var b bytes.Buffer
	if err := WriteWakeupTable(&b, []string{"testdata/wakeups-6.1-llc1.json"}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "outside: ") && strings.Contains(line, "affine attempts/s") {
			found = true
			if !strings.Contains(line, ": the other threads' wakeups of the workload, not modelled: 6 attempts") {
				t.Errorf("affine attempts row: %s", line)
			}
		}
	}
	if !found {
		t.Errorf("no affine attempts row outside:\n%s", b.String())
	}
}
