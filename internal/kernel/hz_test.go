package kernel

import (
	"bufio"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestMeasuredHZ(t *testing.T) {
	for _, c := range []struct {
		dj   uint64
		d    time.Duration
		hz   int
		want bool
	}{
		{500, 2 * time.Second, 250, true},
		{2000, 2 * time.Second, 1000, true},
		{2090, 2 * time.Second, 1000, true}, // a late read
		{300, 3 * time.Second, 100, true},
		{610, 2 * time.Second, 300, true},
		{560, 2 * time.Second, 0, false}, // 280/s: neither 250 nor 300
		{0, 2 * time.Second, 0, false},   // jiffies stalled
		{5, 0, 0, false},
	} {
		hz, ok := MeasuredHZ(c.dj, c.d)
		if hz != c.hz || ok != c.want {
			t.Errorf("MeasuredHZ(%d, %v) = %d, %v; want %d, %v", c.dj, c.d, hz, ok, c.hz, c.want)
		}
	}
}

func TestParseJiffies(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		err  string
	}{
		{"version 15\ntimestamp 4295012345\ncpu0 0 0 1 2 3 4 5 6 7\n", 4295012345, ""},
		{"version 17\ntimestamp 4294937296\n", 4294937296, ""},
		{"version 15\ncpu0 0 0\n", 0, "no timestamp line"},
		{"version 15\ntimestamp x\n", 0, `timestamp "x"`},
	} {
		j, err := parseJiffies("schedstat", bufio.NewScanner(strings.NewReader(c.in)))
		switch {
		case c.err == "" && (err != nil || j != c.want):
			t.Errorf("parseJiffies(%q) = %d, %v; want %d", c.in, j, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("parseJiffies(%q) = %d, %v; want an error containing %q", c.in, j, err, c.err)
		}
	}
}

func TestHZOverRun(t *testing.T) {
	for _, c := range []struct {
		j0, j1 uint64
		err    error
		hz     int
		note   string
	}{
		{1000, 1591, nil, 250, "HZ 250 measured (no kernel config): jiffies advanced 591 in 2.36s"},
		{1000, 1560, nil, 0, "give none of 100, 250, 300, 1000"},
		{1591, 1000, nil, 0, "jiffies went back over the bare run (1591 then 1000)"},
		{0, 0, errors.New("open /proc/schedstat: no such file or directory"), 0, "no jiffies: open /proc/schedstat"},
	} {
		hz, note := hzOverRun(c.j0, c.j1, c.err, 2360*time.Millisecond)
		if hz != c.hz || !strings.Contains(note, c.note) {
			t.Errorf("hzOverRun(%d, %d, %v) = %d, %q; want %d, %q", c.j0, c.j1, c.err, hz, note, c.hz, c.note)
		}
	}
}
