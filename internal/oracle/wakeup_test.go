package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if err := WriteWakeupTable(&b, nil); err == nil {
		t.Error("no files: no error")
	}
}
