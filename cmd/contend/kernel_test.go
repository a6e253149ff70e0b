package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/contend/contend/internal/kernel"
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

func TestKernelSitesErrors(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kernel"}, "kernel: want a subcommand (sites, count)"},
		{[]string{"kernel", "nosuch"}, `kernel: unknown subcommand "nosuch"`},
		{[]string{"kernel", "sites", "extra"}, `unexpected argument "extra"`},
		{[]string{"kernel", "sites", "-root", empty}, "kernel sites: no BTF:"},
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

// countFixture is a count as a 6.12 guest reported it, cut down.
func countFixture() *kernel.Counted {
	return &kernel.Counted{
		Kernel: "6.12.117+deb12-amd64", CPUs: 4, HZ: 250, RateLimit: true, Shape: "pipe", Pairs: 2, Levels: 2,
		Bare:    &kernel.Load{Transactions: 2000, Seconds: 2},
		Counted: &kernel.Load{Transactions: 1000, Seconds: 2},
		Sites: []kernel.SiteCount{
			{Site: kernel.Site{Kind: "tg-load-avg", Func: "update_load_avg", Off: 0x3fc}, Breakpoint: 300, Kprobe: -1},
			{Site: kernel.Site{Kind: "tg-load-avg-limit", Func: "update_load_avg", Off: 0x3c0}, Breakpoint: 600, Kprobe: -1},
			{Site: kernel.Site{Kind: "tg-load-avg", Func: "attach_entity_cfs_rq", Off: 0xb0}, Breakpoint: -1, Kprobe: 4},
			{Site: kernel.Site{Kind: "tg-load-avg", Func: "switched_from_fair", Off: 0xbe}, Breakpoint: -1, Kprobe: -1},
		},
		Enqueues: 1000, Undone: true,
	}
}

func TestKernelCountText(t *testing.T) {
	var b strings.Builder
	if err := writeCountText(&b, countFixture()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"counting cost 50.0 % of throughput",
		"tg->load_avg writes: 304, 0.304 per enqueue_task_fair, 152/s, 19.0 per cfs_rq per s (4 cpus × 2 levels); 1 sites not counted",
		"rate limit: 600 1 ms tests",
		"undone: every kprobe",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("count text lacks %q:\n%s", want, b.String())
		}
	}
}

func TestKernelCountResults(t *testing.T) {
	path := t.TempDir() + "/k.txt"
	if err := writeCounts(path, countFixture(), []string{"-shape", "pipe"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nkernel: ", "Unit tg-writes/enqueue better=lower", "BenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1000 tx/s", "0.304 tg-writes/enqueue", "50 count-cost-%"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("results file lacks %q:\n%s", want, b)
		}
	}
}

// TestKernelModel feeds the model a count's results file and checks the
// table has its rows; the figures are the model's, not checked here.
func TestKernelModel(t *testing.T) {
	path := t.TempDir() + "/k.txt"
	if err := writeCounts(path, countFixture(), nil); err != nil {
		t.Fatal(err)
	}
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
}
