package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// kernelFixtures are internal/kernel's Debian kernels, each a root.
const kernelFixtures = "../../internal/kernel/testdata/"

func TestKernelSitesFixtures(t *testing.T) {
	for _, k := range []string{"debian-6.1", "debian-6.12"} {
		out, _, err := runContend("kernel", "sites", "-root", kernelFixtures+k)
		if err != nil {
			t.Fatalf("contend kernel sites -root %s: %v", k, err)
		}
		want, err := os.ReadFile(kernelFixtures + k + ".sites")
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("contend kernel sites -root %s =\n%s\nwant %s.sites", k, out, k)
		}
		out, _, err = runContend("kernel", "sites", "-root", kernelFixtures+k, "-json")
		var r struct {
			Sites []struct{ Kind, Func, Inst string }
		}
		if err != nil || json.Unmarshal([]byte(out), &r) != nil || len(r.Sites) < 10 {
			t.Errorf("contend kernel sites -json on %s = %q, %v", k, out, err)
		}
	}
}

// TestKernelSitesSave: -save writes what the finder read as a fixture,
// which -root reads back to the same report; a -save it cannot write is
// one line.
func TestKernelSitesSave(t *testing.T) {
	dir := t.TempDir() + "/saved"
	want, _, err := runContend("kernel", "sites", "-root", kernelFixtures+"debian-6.16", "-save", dir)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := runContend("kernel", "sites", "-root", dir)
	if err != nil || got != want {
		t.Errorf("kernel sites -root (the saved fixture) = %v\n%s\nwant\n%s", err, got, want)
	}
	if !strings.Contains(got, "  form: idle loop without a cpuidle driver: tick_nohz_idle_stop_tick() at every iteration") {
		t.Errorf("6.16's report lacks the idle loop's form:\n%s", got)
	}
	file := t.TempDir() + "/file"
	os.WriteFile(file, nil, 0o644)
	_, _, err = runContend("kernel", "sites", "-root", kernelFixtures+"debian-6.16", "-save", file+"/under")
	if err == nil || !strings.Contains(err.Error(), "kernel sites: -save:") || strings.Contains(err.Error(), "\n") {
		t.Errorf("-save under a file = %v, want one line", err)
	}
}

func TestKernelSitesErrors(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kernel"}, "kernel: want a subcommand (sites, count, model, wakeups, wakeups-model, history)"},
		{[]string{"kernel", "nosuch"}, `kernel: unknown subcommand "nosuch"`},
		{[]string{"kernel", "sites", "extra"}, `unexpected argument "extra"`},
		{[]string{"kernel", "sites", "-root", empty}, "kernel sites: no BTF:"},
		{[]string{"kernel", "count", "-no-tick-trace", "-tick-trace", "t.txt"}, "kernel count: -tick-trace t.txt with -no-tick-trace: there is no trace to save"},
		{[]string{"kernel", "count", "-shape", "nosuch"}, `kernel count: -shape "nosuch"`},
	} {
		out, _, err := runContend(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("contend %v = %v, want one line with %q", c.args, err, c.want)
		}
		if c.args[len(c.args)-1] == empty && out != "" {
			t.Errorf("contend %v printed %q before failing", c.args, out)
		}
	}
}

// TestKernelModel feeds the model a count's results file (internal/oracle's
// fixture) and checks the table has its rows; the figures are the model's,
// not checked here.
func TestKernelModel(t *testing.T) {
	path := "../../internal/oracle/testdata/count-6.12.txt"
	out, _, err := runContend("kernel", "model", "-duration", "50ms", path)
	if err != nil {
		t.Fatalf("contend kernel model: %v", err)
	}
	for _, want := range []string{"tg writes per enqueue (update_load_avg)", "writes per 1 ms test", "shape=pipe/pairs=2/levels=2"} {
		if !strings.Contains(out, want) {
			t.Errorf("kernel model output lacks %q:\n%s", want, out)
		}
	}
	if _, _, err := runContend("kernel", "model", t.TempDir()+"/none"); err == nil {
		t.Error("kernel model on a missing file succeeded")
	}
	// Another seed, another draw of the same model: the rows are there,
	// and the figures may differ.
	out2, _, err := runContend("kernel", "model", "-duration", "50ms", "-seed", "7", path)
	if err != nil || !strings.Contains(out2, "writes per 1 ms test") {
		t.Errorf("kernel model -seed 7: %v\n%s", err, out2)
	}
	for _, bad := range [][]string{{"-seed", "0"}, {"-duration", "0s"}, {"-seed", "x"}, {"-move-run", "-1us"}, {"-move-run", "x"}} {
		if _, _, err := runContend(append(append([]string{"kernel", "model"}, bad...), path)...); err == nil {
			t.Errorf("kernel model %v succeeded", bad)
		}
	}
}

// TestReproduceKernelCounts: reproduce -from a file of kernel counts from
// 6.1 and 6.12 prints finding 1's real-kernel rows and nothing else; a
// file of one kernel's counts is a one-line error.
func TestReproduceKernelCounts(t *testing.T) {
	both := "../../internal/reproduce/testdata/kernel-6.1-6.12.txt"
	out, _, err := runContend("reproduce", "-from", both)
	if err != nil {
		t.Fatalf("reproduce -from %s: %v", both, err)
	}
	if !strings.Contains(out, "1. (real kernels, contend kernel count)") || strings.Count(out, "   holds:") != 2 {
		t.Errorf("reproduce -from %s =\n%s\nwant two real-kernel rows", both, out)
	}
	_, _, err = runContend("reproduce", "-from", "../../internal/oracle/testdata/count-6.12.txt")
	if err == nil || !strings.Contains(err.Error(), "of one side only") {
		t.Errorf("reproduce -from one kernel's counts: %v, want the one-side error", err)
	}
}
