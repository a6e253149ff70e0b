package results

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fixtures in testdata/results are small and synthetic (made to have
// known differences: store=global is 30% faster in new.txt, pernode is
// unchanged) except gotest.txt, which is go test -bench output from the
// 2-vCPU development VM. contend's command tests read them too.
func res(name string) string { return filepath.Join("testdata", "results", name) }

func TestReadResults(t *testing.T) {
	rs, err := Read([]string{"O=" + res("old.txt"), res("new.txt"), res("new.txt")})
	if err != nil {
		t.Fatal(err)
	}
	// Each file's results carry its .file label: label=path names it, and
	// the same file twice is numbered rather than merged into one column.
	var labels []string
	for _, r := range rs.Results {
		if l := r.GetConfig(".file"); !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
	}
	if got, want := strings.Join(labels, ","), "O,"+res("new.txt")+","+res("new.txt")+"#1"; got != want {
		t.Errorf(".file labels = %s, want %s", got, want)
	}
	if len(rs.Results) != 3*36 {
		t.Errorf("read %d results, want %d", len(rs.Results), 3*36)
	}
	// The reader reuses its Result: every one kept must be a copy.
	first := rs.Results[0]
	if first.Name.String() != "LoadAvg/store=global/write=ratelimit/threads=1/place=spread-2" || first.GetConfig(".file") != "O" {
		t.Errorf("first result = %s (.file %s), want the first line of old.txt", first.Name, first.GetConfig(".file"))
	}
	if got, want := strings.Join(rs.NameKeys(), " "), "/store /write /threads /place /gomaxprocs"; got != want {
		t.Errorf("nameKeys() = %s, want %s", got, want)
	}
	if got := strings.Join(rs.ConfigKeys(), " "); !strings.HasPrefix(got, "goos goarch cpu kernel nodes") || !strings.HasSuffix(got, "contend date") {
		t.Errorf("configKeys() = %s, want goos ... date", got)
	}
	if got, want := strings.Join(UnitNames(rs.Results), " "), "ns/op shared-writes/op cas/op worker-cv-%"; got != want {
		t.Errorf("results.UnitNames() = %s, want %s", got, want)
	}
	if rs.Units.GetBetter("cas/op") != -1 || rs.Units.GetBetter("sec/op") != -1 {
		t.Errorf("better(cas/op), better(sec/op) = %d, %d; want -1, -1", rs.Units.GetBetter("cas/op"), rs.Units.GetBetter("sec/op"))
	}
}

func TestSelectUnits(t *testing.T) {
	rs, err := Read([]string{res("old.txt")})
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
		got, err := rs.SelectUnits(tc.list)
		var names []string
		for u := range got {
			names = append(names, u)
		}
		if sortJoin(names) != tc.want || err != nil {
			t.Errorf("selectUnits(%q) = %v, %v; want %s", tc.list, names, err, tc.want)
		}
	}
	if _, err := rs.SelectUnits("ns/op,allocs/op"); err == nil || !strings.Contains(err.Error(), "-unit allocs/op") {
		t.Errorf("selectUnits(ns/op,allocs/op) error = %v, want one naming allocs/op", err)
	}
}

func sortJoin(s []string) string {
	slices.Sort(s)
	return strings.Join(s, " ")
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.svg")
	for _, data := range []string{"first", "second, longer"} {
		if err := WriteFileAtomic(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Errorf("after WriteFileAtomic(%q): file holds %q", data, got)
		}
	}
	for _, bad := range []string{dir, filepath.Join(dir, "no", "such", "dir", "x.svg"), filepath.Join(path, "x.svg")} {
		if err := WriteFileAtomic(bad, []byte("x")); err == nil {
			t.Errorf("WriteFileAtomic(%s) succeeded", bad)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries after failed writes, want only out.svg", len(ents))
	}
}

func TestReadDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Read([]string{dir})
	if want := dir + ": is a directory, not a results file"; err == nil || err.Error() != want {
		t.Errorf("Read(a directory) = %v, want %s", err, want)
	}
}
