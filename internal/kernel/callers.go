package kernel

import (
	"fmt"
	"sort"
)

// callerChain is how many addresses a sampled write keeps: the site's,
// the caller of update_load_avg() next, and room for a frame or two
// unwound inside it; short records keep the ring's room for the run.
const callerChain = 4

// Callers are one sampled site's hits by the function that called the
// function holding the site: the breakpoint on the out-of-line
// update_load_avg()'s lock add samples each hit's call chain, and the
// first address outside update_load_avg is its caller
// (enqueue_task_fair, task_tick_fair, ...; static callees such as
// enqueue_entity() are inlined there). On 6.1 and 6.12 every
// update_load_avg() write but the inlined copies' (sites.go's Via) goes
// through this one site; it says which of the models' paths
// (counter.Path) each came from.
type Callers struct {
	Site    string            `json:"site"`    // func+off of the sampled site
	By      map[string]uint64 `json:"by"`      // samples by caller ("?" where no address fell in a symbol)
	Sampled uint64            `json:"sampled"` // samples read
	Lost    uint64            `json:"lost"`    // samples the rings dropped (PERF_RECORD_LOST)
}

// RingLoss is the samples a sampled breakpoint lost: what its rings
// said (PERF_RECORD_LOST), or, where more, its count less the samples
// read. The rings sample from the breakpoint's enable to its disable, a
// window holding the count's, so fewer samples than counted hits is a
// ring that filled, and a ring never drained writes no PERF_RECORD_LOST
// (the kernel writes one only once room returns).
func RingLoss(sampled, lost uint64, counted int64) uint64 {
	if n := uint64(max(counted, 0)); sampled+lost < n {
		return n - sampled
	}
	return lost
}

// SampledSite says whether s is the site whose breakpoint samples its
// callers: the tg->load_avg write in update_load_avg()'s own body.
func SampledSite(s Site) bool {
	return s.Kind == "tg-load-avg" && baseName(s.Func) == "update_load_avg" && s.Via == ""
}

// CallersOf attributes each chain (its first address the site's, the
// rest return addresses) to its first function other than the site's.
// A return address is looked up one byte back, inside its call, as perf
// does: a call that ends its function returns past its end.
func CallersOf(site Site, chains [][]uint64, lost uint64, syms *Symbols) *Callers {
	c := &Callers{Site: fmt.Sprintf("%s+%#x", site.Func, site.Off), By: map[string]uint64{}, Lost: lost}
	self := baseName(site.Func)
	for _, chain := range chains {
		caller := "?"
		for i, a := range chain {
			if i > 0 {
				a--
			}
			sym, ok := syms.At(a)
			if !ok {
				break
			}
			if name := baseName(sym.Name); name != self {
				caller = name
				break
			}
		}
		c.By[caller]++
		c.Sampled++
	}
	return c
}

// The paths of a tg->load_avg write, as the models split them
// (counter.Path's names), and OtherPath for the writes no model makes:
// a task's attach or detach on a cgroup or class change, shares set,
// a cpu going offline.
const OtherPath = "other"

// writePaths maps the functions that hold or call a tg->load_avg write
// to its path: callers of update_load_avg() (and the hosts its copies
// are inlined into, from Debian's 7.0) by their names in 6.1 to 7.3.
var writePaths = map[string]string{
	"enqueue_task_fair": "enqueue", "enqueue_entity": "enqueue", "requeue_delayed_entity": "enqueue",
	// dequeue_entities() is v6.12's; 7.3's fair.c has __dequeue_task()
	// instead, "the part of dequeue_task_fair() that is needed to
	// dequeue delayed tasks" (linux-source-7.3).
	"dequeue_task_fair": "dequeue", "dequeue_entity": "dequeue", "dequeue_entities": "dequeue", "__dequeue_task": "dequeue",
	"task_tick_fair": "tick", "entity_tick": "tick",
	// __update_blocked_fair(): a group entity's update_load_avg() on
	// its parent, the blocked-load walk's (update_blocked_averages
	// renamed sched_balance_update_blocked_averages in v6.10).
	"update_blocked_averages": "blocked-entity", "__update_blocked_fair": "blocked-entity",
	"sched_balance_update_blocked_averages": "blocked-entity", "__sched_balance_update_blocked_averages": "blocked-entity",
	"set_next_task_fair": "switch", "set_next_entity": "switch", "pick_next_task_fair": "switch",
	"put_prev_task_fair": "switch", "put_prev_entity": "switch", "pick_task_fair": "switch",
}

// WritePath is the path of a write by its caller (Callers.By's key), or
// of a site by its host function: OtherPath for the rest.
func WritePath(fn string) string {
	if p, ok := writePaths[baseName(fn)]; ok {
		return p
	}
	return OtherPath
}

// SitePath is the path of a tg->load_avg site other than the sampled
// one: an inlined update_load_avg() by its host, the blocked-load walk's
// own update_tg_load_avg() as "blocked", others by their host.
func SitePath(s Site) string {
	p := WritePath(s.Func)
	if p == "blocked-entity" && s.Via == "" {
		return "blocked"
	}
	return p
}

// Paths is the order the paths are reported in.
var Paths = []string{"enqueue", "dequeue", "tick", "blocked-entity", "blocked", "switch", OtherPath}

// Top returns the callers, most samples first (ties by name), for the
// text output.
func (c *Callers) Top() []string {
	names := make([]string, 0, len(c.By))
	for n := range c.By {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if c.By[names[i]] != c.By[names[j]] {
			return c.By[names[i]] > c.By[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}
