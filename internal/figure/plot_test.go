package figure

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/internal/results"
)

// res names one of the results fixtures, which live with the reader.
func res(name string) string { return filepath.Join("..", "results", "testdata", "results", name) }

func TestShortLabels(t *testing.T) {
	labels, common := shortLabels([]string{
		"LoadAvg/store=global/write=ratelimit/place=spread-2",
		"LoadAvg/store=pernode/write=ratelimit/place=spread-2",
		"LoadAvg/store=pernode/write=every/place=spread-2",
	})
	want := []string{"store=global/write=ratelimit", "store=pernode/write=ratelimit", "store=pernode/write=every"}
	if strings.Join(labels, ",") != strings.Join(want, ",") || common != "LoadAvg place=spread" {
		t.Errorf("shortLabels = %q, %q; want %q, %q", labels, common, want, "LoadAvg place=spread")
	}
	labels, common = shortLabels([]string{"C2C/mode=rw-2"})
	if len(labels) != 1 || labels[0] != "C2C/mode=rw-2" || common != "C2C mode=rw" {
		t.Errorf("shortLabels(one name) = %q, %q; want the whole name and %q", labels, common, "C2C mode=rw")
	}
}

func TestSILabel(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {5, "5"}, {2500, "2.5k"}, {1e8, "100M"}, {1.5e9, "1.5G"}, {0.25, "250m"}, {-3e6, "-3M"},
	} {
		if got := siLabel(tc.v); got != tc.want {
			t.Errorf("siLabel(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestPairAttributes(t *testing.T) {
	rs, err := results.Read([]string{res("c2c-real.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if got := pairAttributes(rs.Results, "/cpu_a", "/cpu_b"); strings.Join(got, " ") != "/class" {
		t.Errorf("pairAttributes(c2c-real.txt) = %q, want [/class]: mode varies within a pair, class does not", got)
	}
	rs, err = results.Read([]string{res("c2c.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if got := pairAttributes(rs.Results, "/a", "/b"); len(got) != 0 {
		t.Errorf("pairAttributes(c2c.txt) = %q, want none", got)
	}
}

// FuzzFigure feeds arbitrary bytes that the reader accepts through the
// plots, as report's FuzzReadResults does through the tables: whatever the
// input, nothing may panic, and a figure that New accepts renders (a gonum
// panic recovered by Render comes back as an error, and fails here).
func FuzzFigure(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "results", "testdata", "results", "*.txt"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := results.Parse(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return // the reader's errors are report's FuzzReadResults's to check
		}
		fo := Options{X: "threads", A: "a", B: "b", Filter: "*"}
		if fig, err := New(rs, fo); err == nil && len(rs.Results) < 100 {
			if _, err := fig.Render("svg"); err != nil {
				t.Fatalf("render: %v", err)
			}
		} else if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("New: error %q is more than one line", err)
		}
	})
}
