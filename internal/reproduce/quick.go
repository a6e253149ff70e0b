package reproduce

import (
	"fmt"
	"time"

	"github.com/contend/contend/internal/sweep"
)

// reproduce -quick must finish in under 30 s on a 2-cpu machine (#35),
// the simulations at the seeds' sizes included. What it runs is a count:
// rounds × configurations × the run's length, and each run costs about
// half its length again beside it (starting the workers, a scenario's
// setup: wakeup's simulates its guest), measured at 1.45× on a 2-vCPU
// guest at load 7 (240 runs: 38 s at 100 ms, 21 s at 50 ms, 2.3 s at
// 1 ms). So -quick's runs are shortened until they hold quickRuns of
// runs in all, never below quickMinRun; the full run keeps its preset's.
// 12 s of runs is about 18 s of sweep with that overhead, leaving the
// simulations at a quarter of their kernel time (4 s here) and the
// judging room under 30 s.
const (
	quickRuns   = 12 * time.Second
	quickMinRun = 20 * time.Millisecond
)

// fitQuick shortens a quick plan's runs to fit quickRuns, saying so in
// its Trimmed lines.
func fitQuick(p *sweep.Plan) {
	runs := p.Count * len(p.Jobs)
	d := max(min(p.Duration, (quickRuns/time.Duration(runs)).Truncate(time.Millisecond)), quickMinRun)
	if d == p.Duration {
		return
	}
	p.Trimmed = append(p.Trimmed, fmt.Sprintf("-quick: runs of %v instead of %v, so that %d configurations × %d rounds are %v of runs",
		d, p.Duration, len(p.Jobs), p.Count, time.Duration(runs)*d))
	p.Duration = d
}
