package kernel

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// ErrNoSites says the kernel has none of the sites: the finder read it
// and matched nothing, so there is nothing to count.
var ErrNoSites = errors.New("none of the contended sites found")

// WriteText writes the report as contend kernel sites prints it: per kind
// found, its sites as SYMBOL+0xOFF and the instruction; then each kind not
// found and why.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	byKind := map[string][]Site{}
	for _, s := range r.Sites {
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	for _, k := range Kinds {
		sites := byKind[k.Name]
		if len(sites) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s: %s\n", k.Name, k.What)
		for _, s := range sites {
			via := ""
			if s.Via != "" {
				via = "  (" + s.Via + ", inlined)"
			}
			fmt.Fprintf(tw, "\t%s+%#x\t%s%s\n", s.Func, s.Off, s.Inst, via)
		}
		if f := r.Forms[k.Name]; f != "" {
			fmt.Fprintf(tw, "\tform: %s\n", f)
		}
	}
	for _, g := range r.RQ {
		fmt.Fprintf(tw, "%s: %s\n", g.Name, g.What)
		fmt.Fprintf(tw, "\tlines: %s\n", g.lines())
		fmt.Fprintf(tw, "\tform: %s\n", g.Form)
	}
	fmt.Fprintf(tw, "idle-loop: %s\n", IdleWhat)
	if f := r.Idle.Form(); f != "" {
		fmt.Fprintf(tw, "\t%s\tcall %s\n", r.Idle.At, idleNotAvailable)
		fmt.Fprintf(tw, "\tform: %s\n", f)
	} else {
		fmt.Fprintf(tw, "\tform not read: %s\n", r.Idle.Why)
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(tw, "not found (\"not in this kernel\": the word or its code is absent from this version):\n")
		for _, m := range r.Missing {
			fmt.Fprintf(tw, "\t%s\t%s\n", m.Kind, m.Why)
		}
	}
	for _, p := range r.Patched {
		fmt.Fprintf(tw, "note: int3 at %s: a kprobe or breakpoint is armed there; a site under it cannot be seen\n", p)
	}
	for _, h := range r.Scanned {
		if n := r.Undecoded[h]; n > 0 {
			fmt.Fprintf(tw, "note: %d bytes of %s did not decode (skipped)\n", n, h)
		}
	}
	return tw.Flush()
}

// Err is ErrNoSites when the report holds no site, naming why each kind
// is missing; else nil.
func (r *Report) Err() error {
	if len(r.Sites) > 0 {
		return nil
	}
	var why []string
	for _, m := range r.Missing {
		why = append(why, m.Kind+": "+m.Why)
	}
	return fmt.Errorf("%w (%s)", ErrNoSites, strings.Join(why, "; "))
}
