package main

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestReadResults(t *testing.T) {
	rs, err := readResults([]string{"O=" + res("old.txt"), res("new.txt"), res("new.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rs.labels, ","), "O,"+res("new.txt")+","+res("new.txt")+"#1"; got != want {
		t.Errorf("labels = %s, want %s", got, want)
	}
	if len(rs.results) != 3*36 {
		t.Errorf("read %d results, want %d", len(rs.results), 3*36)
	}
	// The reader reuses its Result: every one kept must be a copy.
	first := rs.results[0]
	if first.Name.String() != "LoadAvg/store=global/write=ratelimit/threads=1/place=spread-2" || first.GetConfig(".file") != "O" {
		t.Errorf("first result = %s (.file %s), want the first line of old.txt", first.Name, first.GetConfig(".file"))
	}
	if got, want := strings.Join(rs.nameKeys(), " "), "/store /write /threads /place /gomaxprocs"; got != want {
		t.Errorf("nameKeys() = %s, want %s", got, want)
	}
	if got := strings.Join(rs.configKeys(), " "); !strings.HasPrefix(got, "goos goarch cpu kernel nodes") || !strings.HasSuffix(got, "contend date") {
		t.Errorf("configKeys() = %s, want goos ... date", got)
	}
	if got, want := strings.Join(rs.unitNames(), " "), "ns/op shared-writes/op cas/op worker-cv-%"; got != want {
		t.Errorf("unitNames() = %s, want %s", got, want)
	}
	if rs.units.GetBetter("cas/op") != -1 || rs.units.GetBetter("sec/op") != -1 {
		t.Errorf("better(cas/op), better(sec/op) = %d, %d; want -1, -1", rs.units.GetBetter("cas/op"), rs.units.GetBetter("sec/op"))
	}
}

func TestSelectUnits(t *testing.T) {
	rs, err := readResults([]string{res("old.txt")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		list, want string
	}{
		{"ns/op", "sec/op"},
		{"sec/op, cas/op", "cas/op sec/op"},
		{"", ""},
	} {
		got, err := rs.selectUnits(tc.list)
		var names []string
		for u := range got {
			names = append(names, u)
		}
		if sortJoin(names) != tc.want || err != nil {
			t.Errorf("selectUnits(%q) = %v, %v; want %s", tc.list, names, err, tc.want)
		}
	}
	if _, err := rs.selectUnits("ns/op,allocs/op"); err == nil || !strings.Contains(err.Error(), "-unit allocs/op") {
		t.Errorf("selectUnits(ns/op,allocs/op) error = %v, want one naming allocs/op", err)
	}
}

func sortJoin(s []string) string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return strings.Join(s, " ")
}

func TestWriteConfig(t *testing.T) {
	rs, err := readResults([]string{res("old.txt"), res("new.txt"), res("fake2.txt")})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeConfig(&b, rs.results, map[string]bool{"date": true})
	for _, want := range []string{"cpu: AMD EPYC 9B14 96-Core Processor\n", "topology: real | fake-2\n", "contend: 0a1b2c3d4e5f | 6a7b8c9d0e1f\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("writeConfig output lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "date") {
		t.Errorf("writeConfig printed the ignored, differing date:\n%s", b.String())
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.svg")
	for _, data := range []string{"first", "second, longer"} {
		if err := writeFileAtomic(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Errorf("after writeFileAtomic(%q): file holds %q", data, got)
		}
	}
	for _, bad := range []string{dir, filepath.Join(dir, "no", "such", "dir", "x.svg"), filepath.Join(path, "x.svg")} {
		if err := writeFileAtomic(bad, []byte("x")); err == nil {
			t.Errorf("writeFileAtomic(%s) succeeded", bad)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries after failed writes, want only out.svg", len(ents))
	}
}

// FuzzReadResults feeds arbitrary bytes through everything that reads a
// results file: the reader, compare's statistics and text layout, and the
// plots. Whatever
// the input, nothing may panic; an error is one line naming the file; a
// success holds finite values that survive a benchfmt write and re-read.
func FuzzReadResults(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "results", "*.txt"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs := newResultSet()
		err := rs.read(bytes.NewReader(data), "fuzz.txt", "fuzz.txt")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "fuzz.txt") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is not one line naming fuzz.txt", msg)
			}
			return
		}
		rs.units = rs.rd.Units()
		if len(rs.results) == 0 {
			t.Fatal("no error and no results")
		}
		var buf bytes.Buffer
		w := benchfmt.NewWriter(&buf)
		for _, r := range rs.results {
			for _, v := range r.Values {
				if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
					t.Fatalf("accepted a non-finite %s value", v.Unit)
				}
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		again := newResultSet()
		if err := again.read(&buf, "again.txt", "again.txt"); err != nil || len(again.results) != len(rs.results) {
			t.Fatalf("rewritten results read back as %d results, %v; want %d\n%s", len(again.results), err, len(rs.results), buf.Bytes())
		}
		// Plots are drawn from the same results; a recovered gonum
		// panic comes back from render as an error, and fails here.
		pf := plotFlags{x: "threads", a: "a", b: "b", filter: "*"}
		if fig, err := pf.figure(rs, false); err == nil && len(rs.results) < 100 {
			if _, err := render(fig, "svg"); err != nil {
				t.Fatalf("render: %v", err)
			}
		}
		for _, compare := range []bool{false, true} {
			rep, err := buildStats(rs, statOpts{row: ".fullname", col: ".file", filter: "*", ignore: "date",
				alpha: 0.05, confidence: 0.95, compare: compare})
			if err != nil {
				t.Fatalf("buildStats: %v", err)
			}
			if err := rep.write(io.Discard); err != nil {
				t.Fatal(err)
			}
		}
	})
}
