package reproduce

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contend/contend/internal/results"
)

// kernelFile is contend kernel count's results from both lab kernels, two
// workloads each (the lab's files of one session, concatenated).
const kernelFile = "testdata/kernel-6.1-6.12.txt"

func TestKernelRows(t *testing.T) {
	set, err := results.Read([]string{kernelFile})
	if err != nil {
		t.Fatal(err)
	}
	rows, counted := KernelRows(set)
	if !counted || len(rows) != 2 {
		t.Fatalf("KernelRows = %d rows (counted %v), want 2", len(rows), counted)
	}
	for _, r := range rows {
		if !strings.HasPrefix(r.Before, "6.1.") || !strings.HasPrefix(r.After, "6.12.") {
			t.Errorf("%s: before %s, after %s: want 6.1 before 6.12", r.Workload, r.Before, r.After)
		}
	}
	var b strings.Builder
	WriteKernelRows(&b, rows)
	for _, want := range []string{"shape=pipe/pairs=2/levels=2", "shape=migrate/pairs=2/levels=2", "before:    6.1.0-57-amd64 (no rate limit)", "after:     6.12.117+deb12-amd64 (1 ms rate limit)", "ratio:", "holds:"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("rows lack %q:\n%s", want, b.String())
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("line of %d runes, over %d: %q", n, Width, l)
		}
	}
}

// TestKernelRowVerdicts holds the verdict to KernelCutYes: yes at the cut,
// partly under it, no with no cut; and a workload counted on one kernel
// only gives no row.
func TestKernelRowVerdicts(t *testing.T) {
	dir := t.TempDir()
	file := func(before, after string) string {
		one := func(kernel, limit, v string) string {
			return "kernel: " + kernel + "\nkernel-rate-limit: " + limit + "\n\nBenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1000 tx/s " + v + " tg-writes/enqueue\n"
		}
		s := one("6.1.0-57-amd64", "no", before)
		if after != "" {
			s += one("6.12.117+deb12-amd64", "yes", after)
		}
		p := filepath.Join(dir, before+"-"+after)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ before, after, verdict string }{
		{"0.69", "0.34", "yes"},
		{"0.6", "0.4", "yes"},
		{"0.6", "0.41", "partly"},
		{"0.5", "0.6", "no"},
		{"0.5", "0.5", "no"},
	} {
		set, err := results.Read([]string{file(c.before, c.after)})
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := KernelRows(set)
		if len(rows) != 1 || rows[0].Verdict != c.verdict {
			t.Errorf("%s → %s: %+v, want %s", c.before, c.after, rows, c.verdict)
		}
	}
	set, err := results.Read([]string{file("0.69", "")})
	if err != nil {
		t.Fatal(err)
	}
	if rows, counted := KernelRows(set); len(rows) != 0 || !counted {
		t.Errorf("one kernel only: %d rows, counted %v; want none, counted", len(rows), counted)
	}
}

// Findings 5 and 8 on the history's real counts: the newest kernel that
// takes the flag before the interval test (6.16) against the oldest that
// tests first (6.19), 6.18.y on neither side (6.16's one attempt per
// pass within 1 %: its two probes are read a moment apart); and finding 1 on the same
// files brackets 6.1 | 6.12, not the newest kernel with the limit.
func TestFlagRowsHistory(t *testing.T) {
	files, err := filepath.Glob("../oracle/testdata/count-history-*.txt")
	if err != nil || len(files) < 8 {
		t.Fatalf("history counts: %v, %v", files, err)
	}
	set, err := results.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	rows := FlagRows(set)
	if len(rows) != 1 {
		t.Fatalf("FlagRows = %d rows, want 1", len(rows))
	}
	r := rows[0]
	if !strings.HasPrefix(r.Before, "6.16.") || !strings.HasPrefix(r.After, "6.19.") || r.Verdict != "yes" || math.Abs(r.BeforeV-1) > 0.01 {
		t.Errorf("flag row %+v: want 6.16's 1 attempt per pass against 6.19's, yes", r)
	}
	krows, _ := KernelRows(set)
	if len(krows) != 1 || !strings.HasPrefix(krows[0].Before, "6.1.") || !strings.HasPrefix(krows[0].After, "6.12.") {
		t.Errorf("finding 1's rows %+v: want the 6.1 | 6.12 bracket", krows)
	}
	// Finding 14: 6.19 keeps nohz.nr_cpus, 7.0 takes the mask's weight;
	// four locked writes per entry into the mask, then two.
	nrows := NohzRows(set)
	if len(nrows) != 1 {
		t.Fatalf("NohzRows = %d rows, want 1", len(nrows))
	}
	n := nrows[0]
	if !strings.HasPrefix(n.Before, "6.19.") || !strings.HasPrefix(n.After, "7.0.") || n.Verdict != "yes" ||
		math.Abs(n.BeforeV-4) > 0.1 || math.Abs(n.AfterV-2) > 0.1 {
		t.Errorf("nohz row %+v: want 6.19's 4 locked writes per mask entry against 7.0's 2, yes", n)
	}
	var b strings.Builder
	WriteFlagRows(&b, rows)
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("line of %d runes, over %d: %q", n, Width, l)
		}
	}
}

// A flag row's verdict follows FlagCutYes, and the side is the release's:
// two kernels on one side give no row.
func TestFlagRowVerdicts(t *testing.T) {
	read := func(kv ...string) *results.Set {
		var s string
		for i := 0; i < len(kv); i += 2 {
			s += "kernel: " + kv[i] + "\n\nBenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1000 tx/s " + kv[i+1] + " flag-ops/balance\n"
		}
		return readSet(t, s)
	}
	for _, tt := range []struct {
		kv   []string
		want string
	}{
		{[]string{"6.12.1", "1", "7.0.1", "0.5"}, "yes"},
		{[]string{"6.12.1", "1", "7.0.1", "0.8"}, "partly"},
		{[]string{"6.12.1", "1", "7.0.1", "1"}, "no"},
		{[]string{"6.12.1", "1", "6.18.15", "0.2"}, ""},
		{[]string{"6.19.1", "0.2", "7.0.1", "0.2"}, ""},
	} {
		rows := FlagRows(read(tt.kv...))
		got := ""
		if len(rows) == 1 {
			got = rows[0].Verdict
		}
		if got != tt.want || len(rows) > 1 {
			t.Errorf("%v: %d rows, verdict %q, want %q", tt.kv, len(rows), got, tt.want)
		}
	}
}

// A nohz row's side is the kernel's text (kernel-nohz-counter), never its
// release, and its verdict follows NohzCutYes.
func TestNohzRowVerdicts(t *testing.T) {
	read := func(kv ...string) *results.Set {
		var s string
		for i := 0; i < len(kv); i += 3 {
			s += "kernel: " + kv[i] + "\nkernel-nohz-counter: " + kv[i+1] + "\n\nBenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1000 tx/s " + kv[i+2] + " nohz-locked/mask-entry\n"
		}
		return readSet(t, s)
	}
	for _, tt := range []struct {
		kv            []string
		want          string
		before, after string
	}{
		{[]string{"6.19.1", "yes", "3.98", "7.0.1", "no", "1.99"}, "yes", "6.19.1", "7.0.1"},
		{[]string{"6.18.1", "yes", "4", "6.19.1", "yes", "3.9", "7.0.1", "no", "2", "7.3.4", "no", "1"}, "yes", "6.19.1", "7.0.1"},
		{[]string{"6.19.1", "yes", "3", "7.0.1", "no", "2.5"}, "partly", "", ""},
		{[]string{"6.19.1", "yes", "2", "7.0.1", "no", "2"}, "no", "", ""},
		// A backport on an older release: the text decides.
		{[]string{"6.18.1", "no", "2", "7.0.1", "no", "2"}, "", "", ""},
		{[]string{"6.1.1", "", "4", "7.0.1", "no", "2"}, "", "", ""},
	} {
		rows := NohzRows(read(tt.kv...))
		got := ""
		if len(rows) == 1 {
			got = rows[0].Verdict
			if tt.before != "" && (rows[0].Before != tt.before || rows[0].After != tt.after) {
				t.Errorf("%v: bracket %s | %s, want %s | %s", tt.kv, rows[0].Before, rows[0].After, tt.before, tt.after)
			}
		}
		if got != tt.want || len(rows) > 1 {
			t.Errorf("%v: %d rows, verdict %q, want %q", tt.kv, len(rows), got, tt.want)
		}
	}
	var b strings.Builder
	WriteNohzRows(&b, NohzRows(read("6.19.1", "yes", "3.98", "7.0.1", "no", "1.99")))
	for _, want := range []string{"14. (real kernels", "6.19.1 (nohz.nr_cpus beside the mask): 3.980", "holds:     yes"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("row text lacks %q:\n%s", want, b.String())
		}
	}
}

// readSet reads body as one results file.
func readSet(t *testing.T, body string) *results.Set {
	t.Helper()
	p := filepath.Join(t.TempDir(), "counts.txt")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := results.Read([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	return set
}
