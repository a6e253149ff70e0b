package vmlab

import (
	"os"
	"strings"
	"testing"
)

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		less bool
	}{
		{"linux-image-6.12.99+deb12-amd64", "linux-image-6.12.117+deb12-amd64", true},
		{"linux-image-6.1.0-9-amd64", "linux-image-6.1.0-57-amd64", true},
		{"linux-image-6.1.0-57-amd64", "linux-image-6.1.0-57-amd64", false},
	} {
		if got := versionLess(c.a, c.b); got != c.less {
			t.Errorf("versionLess(%q, %q) = %v, want %v", c.a, c.b, got, c.less)
		}
	}
	for series, re := range DebianKernels {
		if !re.MatchString(map[string]string{"6.1": "linux-image-6.1.0-57-amd64", "6.12": "linux-image-6.12.117+deb12-amd64"}[series]) {
			t.Errorf("%s's pattern %s misses its package", series, re)
		}
	}
	if DebianKernels["6.1"].MatchString("linux-image-6.1.0-57-cloud-amd64") {
		t.Error("6.1's pattern takes the cloud flavour")
	}
}

// TestKernelSitesCheck holds the check to internal/kernel's fixture
// reports: what the guests printed (the same lines; the fixtures are the
// images those kernels boot).
func TestKernelSitesCheck(t *testing.T) {
	for _, c := range []struct{ release, fixture string }{
		{"6.1.0-57-amd64", "debian-6.1"},
		{"6.12.117+deb12-amd64", "debian-6.12"},
	} {
		b, err := os.ReadFile("../kernel/testdata/" + c.fixture + ".sites")
		if err != nil {
			t.Fatal(err)
		}
		tr := &Transcript{Outputs: []Output{{Name: "kernel-release", Data: []byte(c.release + "\n")}, {Name: "kernel-sites", Data: b}}}
		if bad := kernelSitesCheck(Topology{}, tr); len(bad) > 0 {
			t.Errorf("%s: %v", c.release, bad)
		}
		// The other kernel's report fails this one's check.
		other := map[string]string{"6.1.0-57-amd64": "6.12.117+deb12-amd64", "6.12.117+deb12-amd64": "6.1.0-57-amd64"}[c.release]
		tr.Outputs[0].Data = []byte(other)
		if bad := kernelSitesCheck(Topology{}, tr); len(bad) == 0 {
			t.Errorf("%s's sites pass as %s's", c.release, other)
		}
	}
}

func TestLeftCheck(t *testing.T) {
	for _, c := range []struct {
		out string
		ok  bool
	}{
		{"kprobes:\ncgroups:\nschedstats: 0\n", true},
		{"kprobes:\np:contend/contend_enqueue enqueue_task_fair\ncgroups:\nschedstats: 0\n", false},
		{"kprobes:\ncgroups:\n/sys/fs/cgroup/contend-system.slice\nschedstats: 0\n", false},
		{"kprobes:\ncgroups:\nschedstats: 1\n", false},
	} {
		tr := &Transcript{Outputs: []Output{{Name: "after", Data: []byte(c.out)}}}
		if bad := leftCheck(tr, "after"); (len(bad) == 0) != c.ok {
			t.Errorf("leftCheck(%q) = %v, want ok=%v", c.out, bad, c.ok)
		}
	}
	if !strings.Contains(afterCount, "kprobe_events") || !strings.Contains(afterCount, "sched_schedstats") {
		t.Error("afterCount does not look at kprobe_events and sched_schedstats")
	}
}
