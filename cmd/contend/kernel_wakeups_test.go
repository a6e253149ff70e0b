package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKernelWakeupsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"cpus\": 4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "never.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kernel", "wakeups-model"}, "kernel wakeups-model: want one or more files"},
		{[]string{"kernel", "wakeups-model", filepath.Join(dir, "none.json")}, "no such file"},
		{[]string{"kernel", "wakeups-model", bad}, "not a complete contend kernel wakeups run"},
		{[]string{"kernel", "wakeups", "-clients", "2", "-servers", "3", "-o", out}, "want 1 ≤ servers ≤ clients"},
		{[]string{"kernel", "wakeups", "-think", "0", "-o", out}, "want all positive"},
		{[]string{"kernel", "wakeups", "extra"}, `unexpected argument "extra"`},
	} {
		_, _, err := runContend(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("contend %v = %v, want one line with %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused run wrote %s", out)
	}
}
