package affinity

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/contend/contend/nodemask"
)

// sysfs reads the files of one tree. Every error it returns names the file,
// relative to the root, and nothing else: the caller adds the root.
//
// Malformed contents are errors: a tree that says something impossible is
// not to be guessed at. A file that exists but cannot be read, or that is
// empty where only a value makes sense, is not: one odd file must not cost
// the whole machine. The reader falls back — to the authoritative file
// (cpu/online rather than each cpuN/online), to the hex map an older kernel
// wrote (nodeN/cpumap for nodeN/cpulist), or to a default — and notes what
// it did in Topology.Notes, which contend topo prints.
type sysfs struct {
	fsys  fs.FS
	notes *notes
}

// notes collects what the reader fell back on, one line per kind of event:
// the same event on many cpus (or nodes) is one line naming them all,
// "cpu{0-63}/cpufreq/scaling_governor: unreadable (...)".
type notes struct {
	order []string
	ids   map[string]*nodemask.Bitmap
}

// numbered finds the first cpuN or nodeN path element of name.
var numbered = regexp.MustCompile(`/(cpu|node)([0-9]+)/`)

// add notes "name: what". The cpu or node number in name, if any, becomes a
// set that later notes of the same kind about other numbers join.
func (n *notes) add(name, what string) {
	key, id := name, -1
	if m := numbered.FindStringSubmatchIndex(name); m != nil {
		num, err := strconv.Atoi(name[m[4]:m[5]])
		if err == nil && num < maxCPUs {
			key, id = name[:m[4]]+"\x00"+name[m[5]:], num
		}
	}
	key += ": " + what
	if n.ids == nil {
		n.ids = map[string]*nodemask.Bitmap{}
	}
	b, ok := n.ids[key]
	if !ok {
		b = &nodemask.Bitmap{}
		n.ids[key] = b
		n.order = append(n.order, key)
	}
	if id >= 0 {
		b.Set(id)
	}
}

// list renders the notes in the order they were first made.
func (n *notes) list() []string {
	var out []string
	for _, key := range n.order {
		ids := n.ids[key]
		switch {
		case ids.Empty():
		case ids.Weight() == 1:
			key = strings.Replace(key, "\x00", ids.String(), 1)
		default:
			key = strings.Replace(key, "\x00", "{"+ids.String()+"}", 1)
		}
		out = append(out, key)
	}
	return out
}

// unwrapPath drops a PathError's own copy of the path (and its "open"), so
// the message names the file once, but keeps the cause for errors.Is.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// optString returns the trimmed contents of name, and ok=false when it
// does not exist or cannot be read; unreadable is noted, followed by
// instead, what the caller does without it. Some kernels pad list files
// with NUL bytes.
func (r sysfs) optString(name, instead string) (s string, ok bool) {
	b, err := fs.ReadFile(r.fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		r.notes.add(name, fmt.Sprintf("unreadable (%v); %s", unwrapPath(err), instead))
		return "", false
	}
	return strings.Trim(string(b), " \t\n\x00"), true
}

// optList reads a list file (0-3,8), ok=false as optString. An empty list
// is a list: the empty set.
func (r sysfs) optList(name, instead string) (b nodemask.Bitmap, ok bool, err error) {
	s, ok := r.optString(name, instead)
	if !ok {
		return b, false, nil
	}
	b, err = nodemask.ParseList(s)
	if err != nil {
		return b, false, fmt.Errorf("%s: %w", name, err)
	}
	return b, true, nil
}

// optSet reads a set of cpus from the list file name or, where it is
// missing or unreadable, from the hex map file hexName beside it, as kernels
// before the list files wrote it (00000000,0000000f). Falling back is noted.
func (r sysfs) optSet(name, hexName, instead string) (b nodemask.Bitmap, ok bool, err error) {
	dir := path.Dir(name)
	b, ok, err = r.optList(name, "reading "+hexName+" instead")
	if ok || err != nil {
		return b, ok, err
	}
	hexPath := dir + "/" + hexName
	s, ok := r.optString(hexPath, instead)
	if !ok {
		return b, false, nil
	}
	if b, err = nodemask.ParseHex(s); err != nil {
		return b, false, fmt.Errorf("%s: %w", hexPath, err)
	}
	if _, err := fs.Stat(r.fsys, name); errors.Is(err, fs.ErrNotExist) {
		r.notes.add(name, "missing (an older kernel); read the hex "+hexName)
	}
	return b, true, nil
}

// optInt returns the integer in name, or def when the file does not exist;
// an unreadable or empty file is def too, noted with instead.
func (r sysfs) optInt(name string, def int, instead string) (int, error) {
	s, ok := r.optString(name, instead)
	if !ok {
		return def, nil
	}
	if s == "" {
		r.notes.add(name, "empty; "+instead)
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return def, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// dirIDs lists the ids of the entries dir/<prefix><id>, the fallback for
// kernels without possible/online lists. A missing dir is no entries.
func (r sysfs) dirIDs(dir, prefix string) (nodemask.Bitmap, error) {
	var ids nodemask.Bitmap
	ents, err := fs.ReadDir(r.fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return ids, nil
	}
	if err != nil {
		return ids, fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	for _, e := range ents {
		num, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if id, err := strconv.Atoi(num); err == nil && id >= 0 && id < maxCPUs && e.IsDir() {
			ids.Set(id)
		}
	}
	return ids, nil
}

// last returns the highest set bit of b, -1 when b is empty.
func last(b nodemask.Bitmap) int {
	bits := b.Bits()
	if len(bits) == 0 {
		return -1
	}
	return bits[len(bits)-1]
}
