package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/contend/contend/internal/kernel"
	"github.com/contend/contend/internal/oracle"
)

func init() {
	kernelSubs["history"] = kernelHistoryCmd
}

const historySynopsis = "history [-o FILE] [-format text|csv] RESULTS..."

// historyRow is one measure of one word, as the table shows it: from a
// results file's value per unit, divided by the counted cpus where it is a
// rate per cpu-second.
type historyRow struct {
	word, measure, unit string
	perCPU              bool
}

// historyRows are the words kernel count counts (oracle.WriteResults'
// units), per event and per cpu-second: rates per cpu-second compare
// kernels counted on guests of one size; per event, any.
var historyRows = []historyRow{
	{"tg->load_avg", "writes/enqueue", "tg-writes/enqueue", false},
	{"tg->load_avg", "writes/cpu-s", "tg-writes/s", true},
	{"balancer flag", "attempts/pass", "flag-ops/balance", false},
	{"balancer flag", "attempts/cpu-s", "flag-ops/s", true},
	{"balancer", "passes/cpu-s", "balances/s", true},
	{"nohz line", "locked/mask entry", "nohz-locked/mask-entry", false},
	{"nohz line", "locked/cpu-s", "nohz-locked/s", true},
	{"nohz", "mask entries/cpu-s", "nohz-mask-entries/s", true},
	{"nohz", "tick stops/cpu-s", "nohz-tick-stops/s", true},
	{"idle", "entries/cpu-s", "nohz-run-idle/s", true},
	{"idle loop", "stop asks/cpu-s", "idle-stop-asks/s", true},
	{"idle loop", "retains/cpu-s", "idle-retains/s", true},
	{"workload", "enqueues/cpu-s", "enqueue/s", true},
	{"workload", "tx/s (bare)", "tx/s", false},
}

// historyKernel is one results file's count and, where a sites file lies
// beside it (sites-RELEASE.txt, as vmlab history writes them), its
// words' forms.
type historyKernel struct {
	release string
	tcg     bool // the count ran in a QEMU TCG guest (hypervisor: TCGTCGTCGTCG)
	count   oracle.CountResult
	forms   map[string]string // kind -> its form, "found" or "absent: why"
}

func kernelHistoryCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", historySynopsis)
	out := fs.String("o", "", "write the table to `file` (through a temporary file, renamed into place) instead of stdout")
	format := fs.String("format", "text", "text (the table and each change's bracket) or csv (one line per kernel and measure, for a plot)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("kernel history: want results files of contend kernel count (-o), one per kernel")
	}
	if *format != "text" && *format != "csv" {
		return fmt.Errorf("kernel history: -format %q: want text or csv", *format)
	}
	var ks []historyKernel
	for _, path := range files {
		counts, err := oracle.ReadCounts(path)
		if err != nil {
			return fmt.Errorf("kernel history: %w", err)
		}
		if len(counts) != 1 {
			return fmt.Errorf("kernel history: %s: %d KernelCount results, want one (one count per kernel)", path, len(counts))
		}
		k := historyKernel{release: counts[0].Kernel, count: counts[0], tcg: underTCG(path)}
		if k.release == "" {
			return fmt.Errorf("kernel history: %s: no kernel configuration line", path)
		}
		if slices.ContainsFunc(ks, func(o historyKernel) bool { return o.release == k.release }) {
			return fmt.Errorf("kernel history: two results files of kernel %s", k.release)
		}
		sites := filepath.Join(filepath.Dir(path), "sites-"+k.release+".txt")
		if f, err := os.Open(sites); err == nil {
			k.forms, err = readForms(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("kernel history: %s: %w", sites, err)
			}
		}
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b historyKernel) int { return releaseCmp(a.release, b.release) })
	w, finish, err := outputTo(stdout, *out)
	if err != nil {
		return fmt.Errorf("kernel history: -o: %w", err)
	}
	if *format == "csv" {
		err = writeHistoryCSV(w, ks)
	} else {
		err = writeHistory(w, ks)
	}
	return finish(err)
}

// outputTo returns where to write: stdout, or a temporary file beside
// path that finish renames into place (and removes on error).
func outputTo(stdout io.Writer, path string) (io.Writer, func(error) error, error) {
	if path == "" {
		return stdout, func(err error) error { return err }, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".history-*")
	if err != nil {
		return nil, nil, err
	}
	return f, func(err error) error {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
		}
		return err
	}, nil
}

// historyValue is a row's value for one kernel, and whether it has one.
func historyValue(k historyKernel, r historyRow) (float64, bool) {
	v, ok := k.count.V[r.unit]
	if !ok {
		return 0, false
	}
	if r.perCPU {
		v /= float64(max(k.count.CPUs, 1))
	}
	return v, true
}

func writeHistory(w io.Writer, ks []historyKernel) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# contend kernel history: the scheduler's contended words counted on %d kernels (contend kernel count, one results file each)\n", len(ks))
	if n := len(slices.DeleteFunc(slices.Clone(ks), func(k historyKernel) bool { return !k.tcg })); n > 0 {
		fmt.Fprintf(bw, "# %d of %d counts from QEMU TCG guests (hypervisor: TCGTCGTCGTCG): counts per event hold; rates and tx/s are the emulator's\n", n, len(ks))
	}
	fmt.Fprintf(bw, "# workload: %s; '|' between two kernels marks a change in the code of a word (the brackets below)\n\n", ks[0].count.Workload)
	changes := historyChanges(ks)
	bracket := map[int]bool{}
	for _, c := range changes {
		bracket[c.at] = true
	}
	tw := tabwriter.NewWriter(bw, 0, 8, 2, ' ', 0)
	head := "word\tmeasure\t"
	for i, k := range ks {
		if bracket[i] {
			head += "|\t"
		} else if i > 0 {
			head += "\t"
		}
		head += k.release + "\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range historyRows {
		line := r.word + "\t" + r.measure + "\t"
		for i, k := range ks {
			if i > 0 {
				if bracket[i] {
					line += "|\t"
				} else {
					line += "\t"
				}
			}
			if v, ok := historyValue(k, r); ok {
				line += fmt.Sprintf("%.4g\t", v)
			} else {
				line += "-\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(changes) > 0 {
		fmt.Fprintf(bw, "\nbrackets (each word's code, read by contend kernel sites in the kernel on each side):\n")
		for _, c := range changes {
			fmt.Fprintf(bw, "  %s | %s  %s: %s\n", ks[c.at-1].release, ks[c.at].release, c.kind, c.what)
		}
	}
	if missing := slices.ContainsFunc(ks, func(k historyKernel) bool { return k.forms == nil }); missing {
		fmt.Fprintf(bw, "\nnot bracketed: kernels without a sites-RELEASE.txt beside their results file (contend kernel sites > sites-RELEASE.txt)\n")
	}
	return bw.Flush()
}

func writeHistoryCSV(w io.Writer, ks []historyKernel) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "kernel,word,measure,value")
	for _, k := range ks {
		for _, r := range historyRows {
			if v, ok := historyValue(k, r); ok && !math.IsNaN(v) {
				fmt.Fprintf(bw, "%s,%s,%s,%g\n", k.release, r.word, r.measure, v)
			}
		}
	}
	return bw.Flush()
}

// historyChange is a word whose code differs between kernel at-1 and at.
type historyChange struct {
	at         int
	kind, what string
}

// historyChanges compares each pair of neighbouring kernels' forms, kind
// by kind: a kind that appears, goes, or changes form.
func historyChanges(ks []historyKernel) []historyChange {
	var out []historyChange
	for i := 1; i < len(ks); i++ {
		a, b := ks[i-1].forms, ks[i].forms
		if a == nil || b == nil {
			continue
		}
		var kinds []string
		for k := range a {
			kinds = append(kinds, k)
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				kinds = append(kinds, k)
			}
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			fa, fb := a[k], b[k]
			if sameForm(fa, fb) {
				continue
			}
			var what string
			switch {
			case strings.HasPrefix(fa, "absent") && !strings.HasPrefix(fb, "absent"):
				what = "appears: " + fb
				if fb == "found" {
					what = "appears: " + kindWhat(k)
				}
			case !strings.HasPrefix(fa, "absent") && strings.HasPrefix(fb, "absent"):
				what = "goes: " + strings.TrimPrefix(fb, "absent: ")
			default:
				what = fa + " → " + fb
			}
			out = append(out, historyChange{at: i, kind: k, what: what})
		}
	}
	return out
}

// codeOffset is a place in a kernel's text as a form may cite it
// (do_idle+0xd6): where the compiler put the code, which moves between
// kernels whose code did not change.
var codeOffset = regexp.MustCompile(`\+0x[0-9a-f]+`)

// sameForm says whether two kernels' forms of a word are the same code:
// equal once the offsets they cite are left out.
func sameForm(a, b string) bool {
	return codeOffset.ReplaceAllString(a, "") == codeOffset.ReplaceAllString(b, "")
}

// kindWhat is what contend kernel sites says a kind is.
func kindWhat(kind string) string {
	for _, k := range kernel.Kinds {
		if k.Name == kind {
			return k.What
		}
	}
	return "found"
}

var (
	sitesKindRE = regexp.MustCompile(`^([a-z][a-z-]+): `)
	sitesFormRE = regexp.MustCompile(`^\s+form: (.*)$`)
	sitesMissRE = regexp.MustCompile(`^\s+([a-z][a-z-]+)\s+(not in this kernel: .*)$`)
)

// readForms reads contend kernel sites' text: each kind found ("found",
// or its form line), and each named absent ("absent: why"). Only the
// kinds it names absent as "not in this kernel" count as absent; a kind
// not found for another reason is left out, being no fact of the code.
func readForms(r io.Reader) (map[string]string, error) {
	forms := map[string]string{}
	sc := bufio.NewScanner(r)
	kind := ""
	for sc.Scan() {
		line := sc.Text()
		if m := sitesFormRE.FindStringSubmatch(line); m != nil && kind != "" {
			forms[kind] = m[1]
			continue
		}
		if m := sitesMissRE.FindStringSubmatch(line); m != nil {
			forms[m[1]] = "absent: " + strings.TrimPrefix(m[2], "not in this kernel: ")
			continue
		}
		if m := sitesKindRE.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "note:") && !strings.HasPrefix(line, "not found") {
			kind = m[1]
			forms[kind] = "found"
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(forms) == 0 {
		return nil, errors.New("no site and no absent word: not contend kernel sites' output")
	}
	return forms, nil
}

var releaseNum = regexp.MustCompile(`\d+|\D+`)

// releaseCmp orders kernel releases by their numbers: 6.12.117 after
// 6.1.0-57, 7.0.13 after 6.19.14.
func releaseCmp(a, b string) int {
	pa, pb := releaseNum.FindAllString(a, -1), releaseNum.FindAllString(b, -1)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] == pb[i] {
			continue
		}
		da, db := pa[i][0] >= '0' && pa[i][0] <= '9', pb[i][0] >= '0' && pb[i][0] <= '9'
		if da && db && len(pa[i]) != len(pb[i]) {
			return len(pa[i]) - len(pb[i])
		}
		return strings.Compare(pa[i], pb[i])
	}
	return len(pa) - len(pb)
}

// underTCG reports whether a results file's provenance names QEMU's TCG
// as the hypervisor (CPUID's signature, as affinity.Host reads it).
func underTCG(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), "\nhypervisor: TCGTCGTCGTCG\n")
}
