package sweep

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contend/contend/internal/results"
)

// progress reports a sweep's progress: a bar redrawn in place on a terminal,
// plain lines otherwise (a log file or CI wants one line per run, not
// carriage returns).
type progress struct {
	w       io.Writer
	tty     bool
	total   int
	n       int // runs done or skipped
	ran     int // runs done in this process (for the rate)
	began   time.Time
	current string
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, tty: isTerminal(w), total: total, began: time.Now()}
}

func (p *progress) start(name string) {
	p.current = name
	p.draw()
}

func (p *progress) skip() { p.n++ }

// drop takes n runs off the total: a configuration that converged runs no
// further round.
func (p *progress) drop(n int) { p.total = max(p.n, p.total-n) }

func (p *progress) done() {
	p.n++
	p.ran++
}

// fail reports a failed run at once, on a line of its own: the sweep goes
// on, and WriteNotes lists every failure again at the end.
func (p *progress) fail(f results.Failure) {
	p.done()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "sweep: FAILED %s (round %d): %s\n", f.Name, f.Round, f.Msg)
}

// eta extrapolates from the runs done so far in this process.
func (p *progress) eta() string {
	if p.ran == 0 {
		return "?"
	}
	per := time.Since(p.began) / time.Duration(p.ran)
	return (per * time.Duration(p.total-p.n)).Round(time.Second).String()
}

func (p *progress) draw() {
	if !p.tty {
		fmt.Fprintf(p.w, "sweep: [%d/%d] %s (left ~%s)\n", p.n+1, p.total, p.current, p.eta())
		return
	}
	const width = 24
	filled := width * p.n / max(p.total, 1)
	name := p.current
	if len(name) > 60 {
		name = "…" + name[len(name)-59:]
	}
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d left ~%s  %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.n, p.total, p.eta(), name)
}

func (p *progress) finish() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
