package affinity

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"
)

// llcKey identifies one last-level cache. The shared CPU list alone would
// merge two caches if a kernel listed only online CPUs in both, so the
// cache id, where the kernel provides it, is part of the key.
type llcKey struct {
	level, id int
	cpus      string
}

// llc finds the CPU's last-level cache, the highest-level data or unified
// cache, and assigns it to a group.
func (r sysfs) llc(c *CPU, dir string, llcs map[llcKey]int, groups *[]CacheGroup) error {
	ents, err := fs.ReadDir(r.fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		r.notes.add(dir, fmt.Sprintf("unreadable (%v); last-level cache unknown", unwrapPath(err)))
		return nil
	}
	best, bestLevel, bestUnified := "", 0, false
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		idx := path.Join(dir, e.Name())
		typ, _ := r.optString(idx+"/type", "cache skipped")
		if typ != "Unified" && typ != "Data" {
			continue
		}
		level, err := r.optInt(idx+"/level", 0, "cache level unknown")
		if err != nil {
			return err
		}
		unified := typ == "Unified"
		if level > bestLevel || level == bestLevel && unified && !bestUnified {
			best, bestLevel, bestUnified = idx, level, unified
		}
	}
	if best == "" {
		return nil
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
	key := llcKey{bestLevel, id, shared.String()}
	i, ok := llcs[key]
	if !ok && bestLevel == 0 {
		// A cache whose level could not be read is the group its
		// neighbours named, if one has the same id and cpus.
		for k, j := range llcs {
			if k.id == id && k.cpus == key.cpus && (!ok || j < i) {
				i, ok = j, true
			}
		}
	}
	if !ok {
		i = len(*groups)
		g.Index = i
		llcs[key] = i
		*groups = append(*groups, g)
	}
	c.LLC = i
	return nil
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
