package affinity

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/contend/contend/nodemask"
)

// cpus fills the CPU lists and the per-CPU facts except Node.
func (r sysfs) cpus(t *Topology) error {
	possible, err := r.possibleCPUs()
	if err != nil {
		return err
	}
	present, err := r.presentCPUs(possible)
	if err != nil {
		return err
	}
	online, haveOnline, err := r.onlineCPUs()
	if err != nil {
		return err
	}
	t.PossibleCPUs, t.PresentCPUs = possible, present
	t.CPUs = make([]CPU, last(possible)+1)
	llcs := &llcGroups{byKey: map[llcKey]int{}, byID: map[[2]int]int{}}
	for i := range t.CPUs {
		c := &t.CPUs[i]
		*c = CPU{ID: i, Node: -1, Package: -1, Die: -1, Core: -1, Cluster: -1, LLC: -1}
		if !possible.Test(i) {
			continue
		}
		dir := fmt.Sprintf("%s/cpu%d", cpuDir, i)
		if !haveOnline {
			// Without cpu/online, a present CPU is online unless its own
			// online file says 0; cpu0 often has no such file at all.
			on, err := r.optInt(dir+"/online", 1, "taken as online, as a present cpu without the file is")
			if err != nil {
				return err
			}
			if on == 1 && present.Test(i) {
				online.Set(i)
			}
		}
		c.Online = online.Test(i)
		if err := r.cpu(c, dir, llcs); err != nil {
			return err
		}
	}
	t.LLCs = llcs.groups
	t.anyLine, t.anyLineFrom = llcs.anyLine, llcs.anyLineFrom
	if len(t.LLCs) == 0 {
		t.cachesSeen = strings.Join(llcs.seen, ", ")
	}
	t.OnlineCPUs = online.And(possible)
	t.OfflineCPUs = possible.AndNot(t.OnlineCPUs)
	if t.OnlineCPUs.Empty() {
		return fmt.Errorf("%s/online: no online cpus", cpuDir)
	}
	return nil
}

// possibleCPUs reads cpu/possible or, where it is missing, unreadable or
// empty, the cpuN directories.
func (r sysfs) possibleCPUs() (nodemask.Bitmap, error) {
	possible, ok, err := r.optList(cpuDir+"/possible", "cpus found from the cpuN directories")
	if err != nil {
		return possible, err
	}
	if ok && possible.Empty() {
		// The kernel always has a cpu: an empty list is a broken file.
		r.notes.add(cpuDir+"/possible", "empty; cpus found from the cpuN directories")
		ok = false
	}
	if !ok {
		if _, err := fs.Stat(r.fsys, cpuDir); err != nil {
			return possible, fmt.Errorf("%s: %w", cpuDir, unwrapPath(err))
		}
		if possible, err = r.dirIDs(cpuDir, "cpu"); err != nil {
			return possible, err
		}
	}
	if possible.Empty() {
		return possible, fmt.Errorf("%s/possible: no cpus", cpuDir)
	}
	if n := last(possible); n >= maxCPUs {
		return possible, fmt.Errorf("%s/possible: cpu %d is beyond the %d cpus Linux supports", cpuDir, n, maxCPUs)
	}
	return possible, nil
}

// presentCPUs reads cpu/present, every possible cpu where it is missing,
// unreadable or empty.
func (r sysfs) presentCPUs(possible nodemask.Bitmap) (nodemask.Bitmap, error) {
	present, ok, err := r.optList(cpuDir+"/present", "taking every possible cpu as present")
	if err != nil {
		return present, err
	}
	if ok && present.Empty() {
		r.notes.add(cpuDir+"/present", "empty; taking every possible cpu as present")
		ok = false
	}
	if !ok {
		present = possible.Clone()
	}
	return present, nil
}

// onlineCPUs reads cpu/online; ok=false (each cpuN/online to be read
// instead) where it is missing, unreadable or empty.
func (r sysfs) onlineCPUs() (online nodemask.Bitmap, ok bool, err error) {
	online, ok, err = r.optList(cpuDir+"/online", "reading each cpuN/online instead")
	if err != nil {
		return online, false, err
	}
	if ok && online.Empty() {
		// At least the cpu that reads it is online: the file is broken.
		r.notes.add(cpuDir+"/online", "empty; reading each cpuN/online instead")
		ok = false
	}
	return online, ok, nil
}

// cpu reads one CPU's topology, cache and cpufreq directories.
func (r sysfs) cpu(c *CPU, dir string, llcs *llcGroups) error {
	top := dir + "/topology"
	if _, err := fs.Stat(r.fsys, top); err == nil || c.Online {
		// An online CPU without topology files (some VMs, old kernels)
		// is taken as its own core in package 0.
		var err error
		if c.Package, err = r.optInt(top+"/physical_package_id", 0, "package taken as 0"); err != nil {
			return err
		}
		if c.Die, err = r.optInt(top+"/die_id", 0, "die taken as 0"); err != nil {
			return err
		}
		if c.Core, err = r.optInt(top+"/core_id", c.ID, "taken as a core of its own"); err != nil {
			return err
		}
		// Only SchedLLC reads it, and only where no LLC is reported.
		if c.Cluster, err = r.optInt(top+"/cluster_id", -1, "no cluster"); err != nil {
			return err
		}
		sib, ok, err := r.siblings(top)
		if err != nil {
			return err
		}
		if !ok && c.Online {
			if _, err := fs.Stat(r.fsys, top); err == nil {
				r.notes.add(top+"/thread_siblings_list", "no sibling list or map; taken as a core of its own")
			}
		}
		sib.Set(c.ID)
		c.Siblings = sib
	}
	c.Governor, _ = r.optString(dir+"/cpufreq/scaling_governor", "governor unknown")
	return r.llc(c, dir+"/cache", llcs)
}

// siblings reads a cpu's SMT siblings: thread_siblings_list, its newer name
// core_cpus_list, or the hex maps older kernels wrote.
func (r sysfs) siblings(top string) (nodemask.Bitmap, bool, error) {
	if _, err := fs.Stat(r.fsys, top+"/thread_siblings_list"); errors.Is(err, fs.ErrNotExist) {
		if b, ok, err := r.optList(top+"/core_cpus_list", "reading thread_siblings instead"); ok || err != nil {
			return b, ok, err
		}
	}
	return r.optSet(top+"/thread_siblings_list", "thread_siblings", "taken as a core of its own")
}
