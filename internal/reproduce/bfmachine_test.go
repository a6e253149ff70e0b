package reproduce

import (
	"strings"
	"testing"
)

// Findings 5 and 8 run on the seed's machine as this one can stand for it:
// the OLTP load everywhere, two SD_SERIALIZE levels (snc=2) only where there
// are nodes, a span holding every worker.
func TestBalanceFlagMachine(t *testing.T) {
	for _, tt := range []struct {
		e    Env
		want string
	}{
		{Env{nodes: 1, threads: 4, place: "compact"}, "order=cmpxchg-first/pace=off/busy=90/newidle=2"},
		{Env{nodes: 2, threads: 4, place: "spread"}, "order=cmpxchg-first/pace=off/span=512/group=128/snc=2/busy=90/newidle=2"},
		{Env{nodes: 8, threads: 1000, place: "spread"}, "order=cmpxchg-first/pace=off/span=1024/group=128/snc=2/busy=90/newidle=2"},
	} {
		x := tt.e.balanceflag(bfBefore)
		if x.Variant != tt.want {
			t.Errorf("%d nodes, %d workers: variant %s, want %s", tt.e.nodes, tt.e.threads, x.Variant, tt.want)
		}
		if _, err := x.prefix(); err != nil {
			t.Errorf("%s: %v", x.Variant, err)
		}
		if p := tt.e.balanceflagPaced(bfAfter); !strings.Contains(p.Variant, "pace=on") || !strings.HasSuffix(p.Variant, strings.TrimPrefix(tt.want, "order=cmpxchg-first/pace=off")) {
			t.Errorf("paced: %s, want pace=on on the same machine as %s", p.Variant, tt.want)
		}
	}
}
