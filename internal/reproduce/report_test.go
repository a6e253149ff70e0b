package reproduce

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Where a verdict stands: a "no" this machine's size explains is "not
// here", one at the seed's size is "no", and a fix that wins by not doing
// its job is "no" at any size.
func TestStanding(t *testing.T) {
	small := testEnv()
	big := &Env{threads: 512, place: "spread", nodes: 2, machine: "big"}
	oneNode := &Env{threads: 2, place: "compact", nodes: 1, machine: "one node"}
	rate := figures{"base": 120, "rate": 100}
	for _, tt := range []struct {
		name      string
		e         *Env
		id        int
		data      func(f *Finding) sampleSet
		want      Standing
		wantWords string // in Line()
	}{
		{"yes", small, 1, func(f *Finding) sampleSet { return fill(f, rate, 6, 1, "") }, StandYes, "ns per event"},
		{"no at 2 workers", small, 1, func(f *Finding) sampleSet { return fill(f, nil, 6, 1, "") }, StandTooSmall, "2 workers here; the seed had 224 cpus; here ns per event"},
		{"no at the seed's size", big, 1, func(f *Finding) sampleSet { return fill(f, nil, 6, 1, "") }, StandNo, "ns per event: "},
		{"no, no seed size", small, 13, func(f *Finding) sampleSet { return fill(f, nil, 6, 1, "") }, StandNo, "update_tg_load_avg % of time: "},
		{"one node", oneNode, 3, func(f *Finding) sampleSet { return sampleSet{} }, StandTooSmall, "one NUMA node here"},
		{"no results", small, 1, func(f *Finding) sampleSet { return sampleSet{} }, StandNA, "no results for"},
		{"wins by not", small, 6, func(f *Finding) sampleSet {
			s := winning(f)
			breaking(s, f.Mechanism[0])
			return s
		}, StandNo, "wins by not probing fewer runqueues"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := findingByID(t, tt.e, tt.id)
			r := f.judge(tt.e, tt.data(f))
			if r.Standing != tt.want || !strings.Contains(r.Line(), tt.wantWords) {
				t.Errorf("finding %d: standing %s, reason %q; want %s, reason with %q", tt.id, r.Standing.Word(), r.Line(), tt.want.Word(), tt.wantWords)
			}
		})
	}
	f := findingByID(t, small, 9)
	f.modelGap = func(*Env) string { return "not reproduced by this model" }
	if r := f.judge(small, sampleSet{}); r.Standing != StandNA || r.Line() != "not reproduced by this model" {
		t.Errorf("a model that cannot show finding 9: standing %s, reason %q; want n/a, the model's gap", r.Standing.Word(), r.Line())
	}
}

func TestTally(t *testing.T) {
	rows := []Row{{Standing: StandYes}, {Standing: StandYes}, {Standing: StandNo}, {Standing: StandTooSmall}, {Standing: StandNA}}
	if got, want := tally(rows), "5 findings: 2 yes, 1 no (contradicted), 1 not here (machine too small), 1 n/a (not judged)"; got != want {
		t.Errorf("tally = %q, want %q", got, want)
	}
}

// The first screen is the verdict table: the heading, one row per finding
// in order (a reason takes at most reasonLines), the tally, and where the
// details are; nothing is wider than Width, with -v or without.
func TestWriteTextFirstScreen(t *testing.T) {
	e := testEnv()
	e.machine = "a machine whose description runs on past the width of a terminal, as a long cpu brand and hypervisor name make it, with 2 workers"
	rows := e.judge(sampleSet{})
	var b bytes.Buffer
	WriteText(&b, e, rows, false, "r.md")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	i := 0
	for i < len(lines) && lines[i] != "" { // the heading
		i++
	}
	i++
	if !strings.HasPrefix(lines[i], " #  finding ") || !strings.HasSuffix(lines[i], "  verdict   reason") {
		t.Fatalf("line %d is not the table's heading: %q\n%s", i+1, lines[i], b.String())
	}
	i++
	for _, r := range rows {
		if want := fmt.Sprintf("%2d  %s", r.ID, r.Short); !strings.HasPrefix(lines[i], want) {
			t.Fatalf("line %d: %q, want finding %d's row %q\n%s", i+1, lines[i], r.ID, want, b.String())
		}
		i++
		for n := 1; strings.HasPrefix(lines[i], "      "); n++ {
			if n == reasonLines {
				t.Errorf("finding %d's reason takes more than %d lines\n%s", r.ID, reasonLines, b.String())
			}
			i++
		}
	}
	if !strings.HasPrefix(lines[i], fmt.Sprintf("%d findings: ", len(rows))) {
		t.Errorf("line %d: %q, want the tally\n%s", i+1, lines[i], b.String())
	}
	if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), "add -v, or see the Markdown table r.md") || strings.Contains(b.String(), "criterion:") {
		t.Errorf("without -v the details must be named, not printed:\n%s", b.String())
	}
	var v bytes.Buffer
	WriteText(&v, e, rows, true, "")
	if !strings.HasPrefix(v.String(), b.String()[:strings.Index(b.String(), "findings: ")]) {
		t.Errorf("-v must start with the same verdict table:\n%s", v.String())
	}
	if n := strings.Count(v.String(), "\n   criterion: yes if "); n != NumFindings() {
		t.Errorf("-v has %d criteria, want one per finding:\n%s", n, v.String())
	}
	for _, out := range []string{b.String(), v.String()} {
		for _, l := range strings.Split(out, "\n") {
			if utf8.RuneCountInString(l) > Width {
				t.Errorf("line of %d runes, over %d: %q", utf8.RuneCountInString(l), Width, l)
			}
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		lead, s string
		width   int
		want    []string
	}{
		{"", "one two three", 7, []string{"one two", "three"}},
		{"   a:  ", "one two three", 13, []string{"   a:  one", "       two", "       three"}},
		{"", "abcdefghij", 4, []string{"abcd", "  ef", "  gh", "  ij"}},
		{"", "", 10, nil},
	} {
		indent := strings.Repeat(" ", utf8.RuneCountInString(tt.lead))
		if tt.lead == "" && tt.width == 4 {
			indent = "  "
		}
		got := wrap(tt.lead, tt.s, tt.width, indent)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("wrap(%q, %q, %d) = %q, want %q", tt.lead, tt.s, tt.width, got, tt.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"ns per event 1.009× lower", 20, "ns per event …"},
		{"abcdefghijkl", 6, "abcd …"},
		{"ns per tick: 1.009× lower, needs ≥1.05×", 22, "ns per tick: …"},
	} {
		if got := cut(tt.s, tt.width); got != tt.want || utf8.RuneCountInString(got) > tt.width {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}
