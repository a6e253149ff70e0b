package rule

import (
	"strings"
	"testing"
)

// Judge decides as reproduce decides a measured finding: yes, else partly, else no, and a
// failed guard turns a yes or partly into no (wins by not ...).
func TestSimJudge(t *testing.T) {
	lower := func(b, a, min float64) Figure {
		return Figure{What: "x", Before: b, After: a, Kind: Lower, Min: min}
	}
	kept := Figure{What: "found", Before: 30, After: 27, Kind: NotBelow, Min: 0.9, Doing: "finding"}
	lost := Figure{What: "found", Before: 30, After: 26.9, Kind: NotBelow, Min: 0.9, Doing: "finding"}
	for _, tt := range []struct {
		name      string
		yes       []Figure
		partly    [][]Figure
		guards    []Figure
		want, why string
	}{
		{"yes at the minimum", []Figure{lower(10, 1, 10)}, nil, []Figure{kept}, "yes", "held"},
		{"under yes, at partly", []Figure{lower(10, 1.01, 10)}, [][]Figure{{lower(10, 1.01, 2)}}, nil, "partly", "short of yes"},
		{"under partly", []Figure{lower(10, 6, 10)}, [][]Figure{{lower(10, 6, 2)}}, nil, "no", "needs ≥10×"},
		{"opposite", []Figure{lower(1, 10, 10)}, nil, nil, "no", "higher"},
		{"yes, but the guard fails", []Figure{lower(10, 1, 10)}, nil, []Figure{lost}, "no (wins by not finding)", "found"},
		{"partly, but the guard fails", []Figure{lower(10, 2, 10)}, [][]Figure{{lower(10, 2, 2)}}, []Figure{lost}, "no (wins by not finding)", "needs ≥90%"},
		{"no stays no whatever the guard", []Figure{lower(10, 9, 10)}, nil, []Figure{lost}, "no", "short"},
		{"precondition below", []Figure{{What: "share", After: 1.9, Kind: AtLeast, Min: 2}}, nil, nil, "no", "below 2"},
		{"error within slack", []Figure{lower(10, 1, 10)}, nil, []Figure{{What: "err", Before: 1, After: 4.5, Kind: NoWorseBy, Min: 3.5, Doing: "keeping"}}, "yes", ""},
		{"wait within its factor", []Figure{lower(10, 1, 10)}, nil, []Figure{{What: "wait", Before: 8, After: 8.8, Kind: NotAbove, Min: 1.1, Doing: "placing"}}, "yes", ""},
		{"wait past it", []Figure{lower(10, 1, 10)}, nil, []Figure{{What: "wait", Before: 8, After: 8.875, Kind: NotAbove, Min: 1.1, Doing: "placing"}}, "no (wins by not placing)", "allows ≤110%"},
		{"fewer kept", []Figure{lower(10, 1, 10)}, nil, []Figure{{What: "probes", Before: 8, After: 7.875, Kind: Fewer, Doing: "probing less"}}, "yes", ""},
		{"fewer lost", []Figure{lower(10, 1, 10)}, nil, []Figure{{What: "probes", Before: 8, After: 8, Kind: Fewer, Doing: "probing less"}}, "no (wins by not probing less)", "not lower"},
		{"more kept", []Figure{lower(10, 1, 10)}, nil, []Figure{{What: "affine", Before: 8, After: 8.125, Kind: More, Doing: "pulling"}}, "yes", ""},
		{"more lost", []Figure{lower(10, 1, 10)}, nil, []Figure{{What: "affine", Before: 8, After: 8, Kind: More, Doing: "pulling"}}, "no (wins by not pulling)", "not higher"},
		{"error past slack", []Figure{lower(10, 1, 10)}, nil, []Figure{{What: "err", Before: 1, After: 4.625, Kind: NoWorseBy, Min: 3.5, Doing: "keeping"}}, "no (wins by not keeping)", "allows 3.5"},
	} {
		v := &SimVerdict{}
		Judge(v, tt.yes, tt.partly, tt.guards)
		if v.Verdict() != tt.want || !strings.Contains(v.Why, tt.why) {
			t.Errorf("%s: %s — %s; want %s (why containing %q)", tt.name, v.Verdict(), v.Why, tt.want, tt.why)
		}
		if !strings.HasPrefix(v.Criterion, "yes if ") || !strings.Contains(v.Criterion, "else no") {
			t.Errorf("%s: criterion %q", tt.name, v.Criterion)
		}
	}
}
