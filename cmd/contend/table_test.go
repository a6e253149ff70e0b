package main

import (
	"testing"
)

func TestTableGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"table-default", []string{"table", res("new.txt")}},
		{"table-rows", []string{"table", "-row", "/store", "-unit", "ns/op,cas/op", res("old.txt")}},
		{"table-filter", []string{"table", "-filter", "/store:pernode", "-unit", "ns/op", res("fake2.txt")}},
		{"table-gotest", []string{"table", "-unit", "ns/op", res("gotest.txt")}},
		{"table-nothreads", []string{"table", res("c2c.txt")}},
		{"table-by-place", []string{"table", "-col", "/threads,/place", "-row", "/line,/work", "-unit", "ns/op", res("gotest.txt")}},
		// Cells whose samples include disturbed runs carry a note; the
		// disturbance figures themselves show only when asked for.
		{"table-disturbed", []string{"table", res("disturbed.txt")}},
		{"table-disturbed-lost", []string{"table", "-unit", "lost-%,preempt/s", res("disturbed.txt")}},
		{"table-json", []string{"table", "-json", "-unit", "ns/op", res("disturbed.txt")}},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args) })
	}
}

func TestTableErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no file", []string{"table"}, []string{"table: want one results file, got 0 arguments"}},
		{"two files", []string{"table", res("old.txt"), res("new.txt")}, []string{"want one results file, got 2"}},
		{"missing file", []string{"table", res("nope.txt")}, []string{"table: open testdata/results/nope.txt"}},
		{"malformed", []string{"table", res("bad-iters.txt")}, []string{"table: testdata/results/bad-iters.txt:4: parsing iteration count"}},
		{"no results", []string{"table", res("empty.txt")}, []string{"table: testdata/results/empty.txt: no benchmark results"}},
		{"unknown col", []string{"table", "-col", "/cpus", res("new.txt")}, []string{"table: -col: no result has key /cpus"}},
		{"unknown unit", []string{"table", "-unit", "ops/s", res("new.txt")}, []string{"table: -unit ops/s: no result measures it"}},
		{"empty filter result", []string{"table", "-filter", "goos:darwin", res("new.txt")}, []string{`no results match -filter "goos:darwin"`}},
	} {
		t.Run(tc.name, func(t *testing.T) { badRun(t, tc.args, tc.want...) })
	}
}
