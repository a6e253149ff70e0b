package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/history: 6.12's count is internal/oracle's fixture; 6.1's is
// the same file with the kernel, the rate limit, the hypervisor (TCG) and
// the tg->load_avg figures changed (made up, to tell the columns apart);
// the sites files
// are internal/kernel's goldens of the two images.
const historyDir = "testdata/history"

func TestKernelHistory(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(historyDir, "count-*.results"))
	if len(files) != 2 {
		t.Fatalf("%d results files in %s", len(files), historyDir)
	}
	// Either order on the command line: the table runs oldest first.
	for _, args := range [][]string{files, {files[1], files[0]}} {
		var out bytes.Buffer
		if err := kernelHistoryCmd(&out, &out, append([]string{"history"}[1:], args...)); err != nil {
			t.Fatal(err)
		}
		s := squeeze(out.String())
		for _, want := range []string{
			"# 1 of 2 counts from QEMU TCG guests (hypervisor: TCGTCGTCGTCG)",
			"tg->load_avg writes/enqueue 0.506 | 0.304",
			"tg->load_avg writes/cpu-s 63.25 | 38",
			"6.1.0-57-amd64 | 6.12.117+deb12-amd64 tg-load-avg-limit: appears: the 1 ms test",
			"balancing-trylock: goes: the atomic flag sched_balance_running replaced the spinlock balancing",
			"balance-running: appears: cmpxchg before the interval test",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("history lacks %q:\n%s", want, s)
			}
		}
		if strings.Index(s, "6.1.0-57-amd64") > strings.Index(s, "6.12.117") {
			t.Errorf("6.12 before 6.1:\n%s", s)
		}
	}
	var csv bytes.Buffer
	if err := kernelHistoryCmd(&csv, &csv, append([]string{"-format", "csv"}, files...)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), "6.1.0-57-amd64,tg->load_avg,writes/enqueue,0.506\n") {
		t.Errorf("csv:\n%s", csv.String())
	}
	out := filepath.Join(t.TempDir(), "history.txt")
	var none bytes.Buffer
	if err := kernelHistoryCmd(&none, &none, append([]string{"-o", out}, files...)); err != nil || none.Len() != 0 {
		t.Fatalf("-o: %v, printed %q", err, none.String())
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Contains(b, []byte("brackets")) {
		t.Errorf("-o file: %v %q", err, b)
	}
}

func TestKernelHistoryRejects(t *testing.T) {
	one := filepath.Join(historyDir, "count-6.1.0-57-amd64.results")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want results files"},
		{[]string{one, one}, "two results files of kernel 6.1.0-57-amd64"},
		{[]string{"-format", "svg", one}, "want text or csv"},
		{[]string{filepath.Join(historyDir, "sites-6.1.0-57-amd64.txt")}, "0 KernelCount results"},
		{[]string{"nosuchfile"}, "nosuchfile"},
	} {
		var out bytes.Buffer
		err := kernelHistoryCmd(&out, &out, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line with %q", c.args, err, c.want)
		}
	}
}

func TestReleaseCmp(t *testing.T) {
	in := []string{"7.0.13+deb13-amd64", "6.12.117+deb12-amd64", "6.1.0-57-amd64", "6.19.14+deb13-amd64", "6.9.1", "7.3.4+deb13-amd64"}
	want := []string{"6.1.0-57-amd64", "6.9.1", "6.12.117+deb12-amd64", "6.19.14+deb13-amd64", "7.0.13+deb13-amd64", "7.3.4+deb13-amd64"}
	for i := range in {
		for j := range in {
			a, b := indexOf(want, in[i]), indexOf(want, in[j])
			if got := releaseCmp(in[i], in[j]); (got < 0) != (a < b) || (got == 0) != (a == b) {
				t.Errorf("releaseCmp(%q, %q) = %d", in[i], in[j], got)
			}
		}
	}
}

// squeeze collapses each run of spaces, so a column's width is no part of
// what a test holds the table to.
func squeeze(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(strings.Join(strings.Fields(line), " ") + "\n")
	}
	return b.String()
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// Two kernels whose idle loop is the same code, compiled to other offsets,
// mark no bracket; a change of form does.
func TestHistoryChangesOffsets(t *testing.T) {
	form := func(f string) map[string]string { return map[string]string{"idle-loop": f} }
	newForm := "idle loop without a cpuidle driver: the tick stops only after an iteration the tick ended (f4c31b07b136: got_tick; do_idle+0x%s's true side calls tick_nohz_idle_stop_tick, tick_nohz_idle_retain_tick)"
	ks := []historyKernel{
		{release: "6.1", forms: form(fmt.Sprintf(newForm, "d6"))},
		{release: "6.12", forms: form(fmt.Sprintf(newForm, "d1"))},
		{release: "6.16", forms: form("idle loop without a cpuidle driver: tick_nohz_idle_stop_tick() at every iteration (before f4c31b07b136: do_idle+0xb5's true side calls tick_nohz_idle_stop_tick, no tick_nohz_idle_retain_tick)")},
	}
	got := historyChanges(ks)
	if len(got) != 1 || got[0].at != 2 || got[0].kind != "idle-loop" {
		t.Errorf("historyChanges = %+v, want one change, at 6.16", got)
	}
}
