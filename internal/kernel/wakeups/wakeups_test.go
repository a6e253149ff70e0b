package wakeups

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/internal/kernel/schedstat"
)

// The runs in testdata are two that the lab's guests sent back (copies of
// internal/oracle/testdata/wakeups-6.1-*.json less vmlab's "#" header);
// their .txt files are what contend kernel wakeups printed for them before
// the text moved here from cmd/contend.
func TestWriteText(t *testing.T) {
	for _, name := range []string{"run-6.1-llc1", "run-6.1-llc4"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var w Run
			if err := json.Unmarshal(b, &w); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := w.WriteText(&got); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("WriteText:\n%s\nwant:\n%s", got.String(), want)
			}
			// The JSON round-trips: what -o writes is what wakeups-model reads.
			again, err := json.MarshalIndent(&w, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			var w2 Run
			if err := json.Unmarshal(again, &w2); err != nil || w2.Statements != w.Statements || w2.Sched == nil ||
				len(w2.Sched.Domains) != len(w.Sched.Domains) || w2.Client["nr_wakeups"] != w.Client["nr_wakeups"] {
				t.Errorf("round trip: %v, %+v", err, w2)
			}
		})
	}
}

func TestConfigCheck(t *testing.T) {
	ok := Config{Clients: 4, Servers: 2, Think: time.Microsecond, Service: time.Microsecond, Duration: time.Second}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // "" for no error
	}{
		{"ok", func(*Config) {}, ""},
		{"warmup 0", func(c *Config) { c.Warmup = 0 }, ""},
		{"one server", func(c *Config) { c.Servers = 1 }, ""},
		{"no clients", func(c *Config) { c.Clients, c.Servers = 0, 0 }, "want 1 ≤ servers ≤ clients"},
		{"no servers", func(c *Config) { c.Servers = 0 }, "want 1 ≤ servers ≤ clients"},
		{"more servers", func(c *Config) { c.Servers = 5 }, "want 1 ≤ servers ≤ clients"},
		{"think 0", func(c *Config) { c.Think = 0 }, "want all positive"},
		{"service 0", func(c *Config) { c.Service = 0 }, "want all positive"},
		{"duration 0", func(c *Config) { c.Duration = 0 }, "want all positive"},
		{"warmup < 0", func(c *Config) { c.Warmup = -time.Second }, "want all positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Check()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check() = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	w := &Run{Kernel: "6.1", Client: schedstat.Task{"nr_wakeups": 3}}
	if err := w.Save(p); err != nil {
		t.Fatal(err)
	}
	var back Run
	if b, err := os.ReadFile(p); err != nil || json.Unmarshal(b, &back) != nil || back.Kernel != "6.1" ||
		back.Client["nr_wakeups"] != 3 || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("read back %q, %v", b, err)
	}
	if _, err := os.Stat(p + ".tmp"); err == nil {
		t.Error("the temporary file was left")
	}
	if err := w.Save(filepath.Join(dir, "none", "run.json")); err == nil {
		t.Error("a file in a missing directory: no error")
	}
}

func TestSub(t *testing.T) {
	d := sub(schedstat.Task{"nr_wakeups": 10, "wait_sum": 2.5}, schedstat.Task{"nr_wakeups": 4})
	if d["nr_wakeups"] != 6 || d["wait_sum"] != 2.5 || len(d) != 2 {
		t.Errorf("sub = %v", d)
	}
}
