package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// writeConfig prints the file configuration of results as key: value lines,
// the way benchstat heads its tables. A key whose value differs between
// results (the contend commit of old and new, say) lists its values in order,
// separated by " | "; keys in ignore are printed only when they agree, since
// they were declared noise (the date of each run).
func writeConfig(w io.Writer, results []*benchfmt.Result, ignore map[string]bool) {
	var keys []string
	vals := map[string][]string{}
	for _, r := range results {
		for _, c := range r.Config {
			if !c.File {
				continue
			}
			v, seen := vals[c.Key]
			if !seen {
				keys = append(keys, c.Key)
			}
			if !slices.Contains(v, string(c.Value)) {
				vals[c.Key] = append(v, string(c.Value))
			}
		}
	}
	for _, k := range keys {
		v := vals[k]
		switch {
		case len(v) == 1:
			fmt.Fprintf(w, "%s: %s\n", k, v[0])
		case ignore[k]:
		case len(v) > 4:
			fmt.Fprintf(w, "%s: %s | ... (%d values)\n", k, strings.Join(v[:3], " | "), len(v))
		default:
			fmt.Fprintf(w, "%s: %s\n", k, strings.Join(v, " | "))
		}
	}
}

// differingKeys returns the file configuration keys whose values differ
// between the input files (their .file labels), in order of first
// appearance: the keys that make plain benchstat, whose default -table is
// .config, put the files' results in separate tables. A key one file lacks
// differs too (benchstat reads it as empty there).
func differingKeys(results []*benchfmt.Result) []string {
	type fileVals map[string]string // key → value in one file ("" if absent)
	var files []string
	perFile := map[string]fileVals{}
	var keys []string
	for _, r := range results {
		f := r.GetConfig(".file")
		if perFile[f] == nil {
			perFile[f] = fileVals{}
			files = append(files, f)
		}
		for _, c := range r.Config {
			if !c.File {
				continue
			}
			if !slices.Contains(keys, c.Key) {
				keys = append(keys, c.Key)
			}
			perFile[f][c.Key] = string(c.Value)
		}
	}
	if len(files) < 2 {
		return nil
	}
	var diff []string
	for _, k := range keys {
		for _, f := range files[1:] {
			if perFile[f][k] != perFile[files[0]][k] {
				diff = append(diff, k)
				break
			}
		}
	}
	return diff
}
