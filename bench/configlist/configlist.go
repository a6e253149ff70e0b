// Package configlist reads the lists of worker counts and placements a
// benchmark runs at, in the one grammar every way of asking for them
// shares: go test's CONTEND_THREADS and CONTEND_PLACE (bench/benchtest) and
// contend sweep's -threads and -place (internal/sweep). Both used to parse
// their own, and a list one of them took ("max", a cpu list, spaces after
// the commas) the other refused.
//
// A thread list is counts separated by commas: "1,56,112,224". "max" stands
// for every usable CPU of the machine and "ladder" for bench.ThreadLadder
// (1, 2, 4, … to every usable CPU, and one node's worth); both may stand
// alone or among counts. Spaces around an item are ignored, a count given
// twice runs once, and the order given is the order run.
//
// A placement list is policies separated by commas ("compact,spread") and
// cpu lists in Linux list syntax ("0,2,4-7"), whose commas are their own, so
// a cpu list is set apart from what comes before and after it by ";":
// "compact,spread;0-3;4-7". A placement given twice runs once.
//
// Errors are one line naming the item at fault; callers prefix the
// variable or flag it came from.
package configlist

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
)

// ParseThreads reads a thread list for topology t, which "max" and
// "ladder" are read against.
func ParseThreads(s string, t *affinity.Topology) ([]int, error) {
	var ns []int
	add := func(n ...int) {
		for _, n := range n {
			if !slices.Contains(ns, n) {
				ns = append(ns, n)
			}
		}
	}
	for _, f := range strings.Split(s, ",") {
		switch f = strings.TrimSpace(f); f {
		case "max":
			add(t.AllowedCPUs.Weight())
		case "ladder":
			add(bench.ThreadLadder(t)...)
		default:
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%q is not a positive worker count (want counts like 1,2,8, max or ladder)", f)
			}
			add(n)
		}
	}
	return ns, nil
}

// ParsePlaces reads a placement list.
func ParsePlaces(s string) ([]affinity.Placement, error) {
	var ps []affinity.Placement
	for _, group := range strings.Split(s, ";") {
		for _, f := range splitGroup(strings.TrimSpace(group)) {
			p, err := affinity.ParsePlacement(f)
			if err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(ps, func(q affinity.Placement) bool { return q.String() == p.String() }) {
				ps = append(ps, p)
			}
		}
	}
	return ps, nil
}

// splitGroup splits one ";"-separated group at the commas that separate
// policies, but not inside a cpu list: "compact, spread" is two, "0,2,4-7"
// is one (a group starting with a digit is a cpu list).
func splitGroup(s string) []string {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		return []string{s}
	}
	fs := strings.Split(s, ",")
	for i := range fs {
		fs[i] = strings.TrimSpace(fs[i])
	}
	return fs
}

// FormatPlaces writes ps as a placement list ParsePlaces reads back: the
// policies joined by commas, each cpu list set apart by ";".
func FormatPlaces(ps []affinity.Placement) string {
	var b strings.Builder
	for i, p := range ps {
		switch {
		case i == 0:
		case p.Policy == affinity.List || ps[i-1].Policy == affinity.List:
			b.WriteByte(';')
		default:
			b.WriteByte(',')
		}
		if p.Policy == affinity.List {
			b.WriteString(p.CPUs.String())
		} else {
			b.WriteString(string(p.Policy))
		}
	}
	return b.String()
}
