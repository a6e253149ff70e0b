package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/contend/contend/internal/kernel/schedstat"
)

// A SchedDomain is one of cpu 0's sched_domain levels as the running
// kernel built them: its name (SMT, CLS, MC, PKG or DIE, NUMA), its span
// in cpus, and whether sd_init() gave it SD_SERIALIZE (NUMA levels only:
// "} else if (sd->flags & SD_NUMA) { ... sd->flags |= SD_SERIALIZE;"),
// the domains whose passes take sched_balance_running. The models build
// their machines from the counted guest's own, not from its node count:
// a one-node guest with two LLCs has MC and PKG and no serialized level.
type SchedDomain struct {
	Name      string `json:"name"`
	Span      int    `json:"span"`
	Serialize bool   `json:"serialize"`
	// NewidleCostNs is the domain's max_newidle_lb_cost, the cost
	// sched_balance_newidle() weighs rq->avg_idle against (0 where the
	// kernel does not show it).
	NewidleCostNs int64 `json:"max_newidle_lb_cost_ns,omitempty"`
}

// ReadDomains reads cpu 0's domains under root: the names and flags from
// debugfs (sched/domains/cpu0/domainN/name and flags, v5.13 on; debugfs
// must be mounted) and the spans from /proc/schedstat's domain lines (the
// widest of each level). nil, with an error saying what was missing,
// where either cannot be read.
func ReadDomains(root string) ([]SchedDomain, error) {
	dir := filepath.Join(root, "sys/kernel/debug/sched/domains/cpu0")
	names, err := filepath.Glob(filepath.Join(dir, "domain*", "name"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("no sched domains in %s (debugfs not mounted, or CONFIG_SCHED_DEBUG off)", dir)
	}
	st, err := readSchedstat(root)
	if err != nil {
		return nil, err
	}
	var out []SchedDomain
	for _, n := range names {
		level, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(n)), "domain"))
		if err != nil || level >= len(st.Domains) {
			return nil, fmt.Errorf("%s: no level %d in /proc/schedstat", n, level)
		}
		name, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		flags, err := os.ReadFile(filepath.Join(filepath.Dir(n), "flags"))
		if err != nil {
			return nil, err
		}
		for len(out) <= level {
			out = append(out, SchedDomain{})
		}
		out[level] = SchedDomain{Name: strings.TrimSpace(string(name)), Span: st.Domains[level].Span,
			Serialize: slices.Contains(strings.Fields(string(flags)), "SD_SERIALIZE")}
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(n), "max_newidle_lb_cost")); err == nil {
			out[level].NewidleCostNs, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		}
	}
	return out, nil
}

// DomainsString is domains as the count's config records them, lowest
// first: "MC:4 PKG:8", a serialized level marked "NUMA:16+serialize".
func DomainsString(ds []SchedDomain) string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%d", d.Name, d.Span)
		if d.Serialize {
			b.WriteString("+serialize")
		}
	}
	return b.String()
}

// NewidleCostsString is each domain's max_newidle_lb_cost in ns, lowest
// first ("2100 37319030"), "" where the kernel shows none.
func NewidleCostsString(ds []SchedDomain) string {
	var f []string
	for _, d := range ds {
		if d.NewidleCostNs <= 0 {
			return ""
		}
		f = append(f, strconv.FormatInt(d.NewidleCostNs, 10))
	}
	return strings.Join(f, " ")
}

// ParseDomains reads DomainsString's form back; an error names the first
// field it cannot read.
func ParseDomains(s string) ([]SchedDomain, error) {
	var out []SchedDomain
	for _, f := range strings.Fields(s) {
		d := SchedDomain{}
		f, d.Serialize = strings.CutSuffix(f, "+serialize")
		name, span, ok := strings.Cut(f, ":")
		n, err := strconv.Atoi(span)
		if !ok || name == "" || err != nil || n < 1 {
			return nil, fmt.Errorf("sched domain %q: want NAME:SPAN[+serialize]", f)
		}
		d.Name, d.Span = name, n
		out = append(out, d)
	}
	return out, nil
}

// readSchedstat reads /proc/schedstat under root (schedstat.Parse).
func readSchedstat(root string) (*schedstat.Stats, error) {
	f, err := os.Open(filepath.Join(root, "proc/schedstat"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := schedstat.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("/proc/schedstat: %w", err)
	}
	return st, nil
}
