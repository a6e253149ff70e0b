package affinity

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// llcKey identifies one last-level cache: its level and the cpus that share
// it, as the kernel's shared_cpu_map says. That map, not the cache's id, is
// what the kernel itself groups by: on x86 both come from the same CPUID
// leaf and agree, but on AMD without TOPOEXT (QEMU's -cpu max under TCG)
// the kernel emulates leaf 4 in amd_cpuid4() with num_threads_sharing 0, so
// get_cache_id() in arch/x86/kernel/cpu/cacheinfo.c gives every cache the
// cpu's own APIC id, while __cache_amd_cpumap_setup() takes the L3's
// shared_cpu_map from cpu_llc_shared_mask, the socket. Keyed by id, such a
// machine's 2 L3s were 8 groups, one per cpu. Two distinct caches at one
// level cannot have the same sharing set, since a cpu has one cache per
// level and every set holds the cpu that reported it, so the set alone
// tells caches apart.
type llcKey struct {
	level int
	cpus  string
}

// llcGroups collects the last-level cache groups as the cpus are read, and
// checks the ids the kernel gave them against the sharing sets.
type llcGroups struct {
	groups []CacheGroup
	byKey  map[llcKey]int
	ids    []int          // the id the group's first cpu reported, -1 for none
	byID   map[[2]int]int // level and id: the group that id named first

	// anyLine is the first coherency_line_size a data or unified cache
	// gave, anyLineFrom which cache that was ("L1d"), for machines whose
	// LLC groups report none; seen lists the kinds of cache read
	// ("L1d", "L1i"), to say what sysfs did report where no cache is an LLC.
	anyLine     int
	anyLineFrom string
	seen        []string
}

// see records a kind of cache sysfs listed, once.
func (l *llcGroups) see(kind string) {
	if !slices.Contains(l.seen, kind) {
		l.seen = append(l.seen, kind)
	}
}

// cacheKind names a cache as people do: L1d, L1i, L2, L3; "cache" where the
// level is unknown.
func cacheKind(level int, typ string) string {
	if level <= 0 {
		return "cache"
	}
	kind := fmt.Sprintf("L%d", level)
	switch typ {
	case "Data":
		kind += "d"
	case "Instruction":
		kind += "i"
	}
	return kind
}

// consistent reports whether the cache id a cpu reported for group i fits
// the sharing sets: one id per group, and no id naming two groups at one
// level. An id that does not fit is noted and otherwise ignored.
func (l *llcGroups) consistent(i, level, id int) bool {
	if id < 0 || level <= 0 {
		return true
	}
	ok := true
	if l.ids[i] < 0 {
		l.ids[i] = id
	} else if l.ids[i] != id {
		ok = false
	}
	if j, seen := l.byID[[2]int{level, id}]; !seen {
		l.byID[[2]int{level, id}] = i
	} else if j != i {
		ok = false
	}
	return ok
}

// llc finds the CPU's last-level cache, the highest-level data or unified
// cache of level 2 or above, and assigns it to a group. An L1 is never the
// last-level cache: a machine whose kernel lists only L1s (an arm64 guest
// without cache information in its device tree or PPTT) has no LLC group,
// which says what sysfs says, rather than a "group" per cpu.
func (r sysfs) llc(c *CPU, dir string, l *llcGroups) error {
	best, bestLevel, err := r.lastLevel(dir, l)
	if err != nil || best == "" {
		return err
	}
	g := CacheGroup{Level: bestLevel}
	shared, _, err := r.optSet(best+"/shared_cpu_list", "shared_cpu_map", "cache taken as the cpu's own")
	if err != nil {
		return err
	}
	shared.Set(c.ID)
	g.CPUs = shared
	id, err := r.optInt(best+"/id", -1, "cache id unknown")
	if err != nil {
		return err
	}
	if g.LineSize, err = r.optInt(best+"/coherency_line_size", 0, "line size unknown"); err != nil {
		return err
	}
	size, _ := r.optString(best+"/size", "size unknown")
	if g.Size, err = parseSize(size); err != nil {
		return fmt.Errorf("%s/size: %w", best, err)
	}
	key := llcKey{bestLevel, shared.String()}
	i, ok := l.byKey[key]
	if !ok && bestLevel == 0 {
		// A cache whose level could not be read is the group its
		// neighbours named, if one has the same cpus.
		for k, j := range l.byKey {
			if k.cpus == key.cpus && (!ok || j < i) {
				i, ok = j, true
			}
		}
	}
	if !ok {
		i = len(l.groups)
		g.Index = i
		l.byKey[key] = i
		l.groups = append(l.groups, g)
		l.ids = append(l.ids, -1)
	}
	if !l.consistent(i, bestLevel, id) {
		r.notes.add(best+"/id", "does not match shared_cpu_list (one id per shared cache expected); grouped by shared_cpu_list")
	}
	c.LLC = i
	return nil
}

// lastLevel returns the index directory of the highest-level data or
// unified cache of level 2 or above under a cpu's cache dir, and its level;
// "" where there is none. On the way it records in l the kinds of cache it
// saw and the first line size any data or unified cache gave.
func (r sysfs) lastLevel(dir string, l *llcGroups) (best string, bestLevel int, err error) {
	ents, err := fs.ReadDir(r.fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, nil
	}
	if err != nil {
		r.notes.add(dir, fmt.Sprintf("unreadable (%v); last-level cache unknown", unwrapPath(err)))
		return "", 0, nil
	}
	bestUnified := false
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		idx := path.Join(dir, e.Name())
		typ, _ := r.optString(idx+"/type", "cache skipped")
		if typ == "Instruction" {
			// Never an LLC; only listed, so its files are read quietly.
			l.see(cacheKind(r.quietInt(idx+"/level"), typ))
			continue
		}
		if typ != "Unified" && typ != "Data" {
			continue
		}
		level, err := r.optInt(idx+"/level", 0, "cache level unknown")
		if err != nil {
			return "", 0, err
		}
		l.see(cacheKind(level, typ))
		if l.anyLine == 0 {
			if n := r.quietInt(idx + "/coherency_line_size"); plausibleLine(n) {
				l.anyLine, l.anyLineFrom = n, cacheKind(level, typ)
			}
		}
		if level == 1 {
			continue
		}
		unified := typ == "Unified"
		if level > bestLevel || level == bestLevel && unified && !bestUnified {
			best, bestLevel, bestUnified = idx, level, unified
		}
	}
	return best, bestLevel, nil
}

// quietInt reads an integer file for a fallback nobody needs to hear about:
// 0 when it is missing, unreadable or not a number.
func (r sysfs) quietInt(name string) int {
	b, err := fs.ReadFile(r.fsys, name)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return n
}

// parseSize reads a sysfs cache size such as "32K"; "" is 0 (unknown).
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'K':
		mult = 1 << 10
	case 'M':
		mult = 1 << 20
	case 'G':
		mult = 1 << 30
	}
	num := s
	if mult != 1 {
		num = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("cache size %q is not a number of bytes with an optional K, M or G", s)
	}
	return n * mult, nil
}
