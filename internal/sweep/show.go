package sweep

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/nodemask"
)

// runOverhead is what one run costs beside its Duration: starting and
// pinning the workers, each building its state on its thread, a GC before
// the release, Finish's checks, fsyncing the result. About 5-10 ms on the
// 2-CPU development machine; more workers take longer to start.
const runOverhead = 10 * time.Millisecond

// perWorkerStart is the extra start-up of each worker beyond the first:
// creating and pinning a thread, verifying it, building its state.
const perWorkerStart = 100 * time.Microsecond

// floorEstimate bounds one handoff-floor measurement as a sweep makes it
// (FloorConfig): one pair per topology class of the CPU set, each preheated
// and sampled at a pessimistic handoff time, plus the pair's set-up.
var floorEstimate = func() time.Duration {
	p := &c2c.Plan{}
	for _, c := range c2c.Classes {
		p.Pairs = append(p.Pairs, c2c.Pair{Class: c})
	}
	return p.Estimate(FloorConfig, 1)
}()

// Estimate returns how long the plan takes to run: each job's rounds of
// its Duration and overhead, and, with Floor, two handoff floors (before
// and after) for each distinct CPU set. With adaptive rounds (Target) it
// is a range: lo if every job stops at MinRounds, hi if every job runs
// Count; without, lo = hi. It is an estimate, made before anything runs.
func (p *Plan) Estimate() (lo, hi time.Duration) {
	sets := p.floorSets()
	return p.estimate(p.minRounds(), sets), p.estimate(p.Count, sets)
}

// minRounds is the fewest rounds a job of the plan runs.
func (p *Plan) minRounds() int {
	if p.Target > 0 {
		return min(p.Count, MinRounds)
	}
	return p.Count
}

// estimate is Estimate with every job run rounds times, and sets floors
// measured.
func (p *Plan) estimate(rounds, sets int) time.Duration {
	var perRound time.Duration
	for _, j := range p.Jobs {
		perRound += p.runCost(j)
	}
	return time.Duration(rounds)*perRound + 2*time.Duration(sets)*floorEstimate
}

// runCost is what one run of j costs: its Duration and overhead. A job's
// configurations that share its run (Job.Also) cost nothing more.
func (p *Plan) runCost(j Job) time.Duration {
	return p.Duration + runOverhead + time.Duration(j.Threads-1)*perWorkerStart
}

// Fit trims the plan until it runs within budget even if no job stops
// before Count rounds, giving up first what answers the fewest of the
// seeds' questions, and records each step in Trimmed: bench.ThreadLadder's
// rungs beyond the seeds', then rounds down to MinRounds (the fewest with
// a 95% confidence interval), then the 25 % and 75 % rungs. Where even that
// does not fit, it is an error saying what the least would take.
func (p *Plan) Fit(budget time.Duration) error {
	if budget <= 0 {
		return fmt.Errorf("-budget %v: want a positive duration", budget)
	}
	sets := func() int { return p.floorSets() }
	over := func() bool { return p.estimate(p.Count, sets()) > budget }
	drop := func(r rank, what string) {
		if !over() {
			return
		}
		n := 0
		var threads []int
		p.Jobs = slices.DeleteFunc(p.Jobs, func(j Job) bool {
			if j.rank != r {
				return false
			}
			n += 1 + len(j.Also)
			if !slices.Contains(threads, j.Threads) {
				threads = append(threads, j.Threads)
			}
			return true
		})
		if n > 0 {
			slices.Sort(threads)
			p.Trimmed = append(p.Trimmed, fmt.Sprintf("%s (%s threads): %d configurations", what, strings.ReplaceAll(strings.Trim(fmt.Sprint(threads), "[]"), " ", ", "), n))
		}
	}
	drop(rankLadder, "the ladder's rungs beyond the seeds'")
	// Rounds down to MinRounds if that fits; else the quarters too, and
	// back up to as many rounds as then fit.
	if lo := min(p.Count, MinRounds); p.estimate(lo, sets()) > budget {
		drop(rankQuarter, "the 25% and 75% rungs")
	}
	if c := p.Count; over() {
		for p.Count > min(c, MinRounds) && over() {
			p.Count--
		}
		if p.Count != c {
			p.Trimmed = append(p.Trimmed, fmt.Sprintf("rounds: at most %d a configuration instead of %d", p.Count, c))
		}
	}
	if est := p.estimate(p.Count, sets()); est > budget {
		trimmed := ""
		if len(p.Trimmed) > 0 {
			trimmed = " after trimming " + strings.Join(p.Trimmed, "; ")
		}
		return fmt.Errorf("-budget %v: the plan needs %v even%s (%d runs a round, %d rounds): raise -budget, or name fewer scenarios, variants, -threads or -place",
			budget, est.Round(time.Second), trimmed, len(p.Jobs), p.Count)
	}
	return nil
}

// floorSets counts the handoff floors a sweep measures before it (and
// again after): one for each distinct CPU set of two or more CPUs the jobs
// run on (cpuSet); none without Floor.
func (p *Plan) floorSets() int {
	if !p.Floor {
		return 0
	}
	seen := map[string]bool{}
	for _, j := range p.Jobs {
		if key, set := cpuSet(j.CPUs); set.Weight() >= 2 {
			seen[key] = true
		}
	}
	return len(seen)
}

// Write prints the plan for a person to inspect before it runs: every job
// with the CPUs its workers get (in worker order), then the totals and the
// estimated wall time. It runs nothing.
func (p *Plan) Write(w io.Writer) error {
	fmt.Fprintf(w, "sweep plan: topology %s, %d allowed cpus, %d nodes\n",
		p.Topology.Label(), p.Topology.AllowedCPUs.Weight(), len(p.Topology.Nodes))
	if p.Topology.IsFake() {
		fmt.Fprintf(w, "NOTE: topology fake-%d: nodes are a split of this machine's cpus\n", p.Topology.FakeNodes)
	}
	// The cpus come last: a spread list of 224 workers is some 800
	// columns, and a column before others would pad every row to it.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tvariant\tthreads\tplace\tnodes\tcpus")
	nodesCovered := nodemask.BitmapOf()
	cpusCovered := nodemask.BitmapOf()
	for _, j := range p.Jobs {
		cpus := j.CPUs
		var nodes nodemask.Bitmap
		for _, c := range cpus {
			nodes.Set(p.Topology.NodeOf(c))
			cpusCovered.Set(c)
		}
		nodesCovered = nodesCovered.Or(nodes)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", j.Spec.Name, j.Variant, j.Threads, j.Place, nodes.String(), workerList(cpus))
		for _, a := range j.Also {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t= %s\n", a.Spec.Name, a.Variant, a.Threads, a.Place, nodes.String(), j.Place)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	shared := p.Configurations() - len(p.Jobs)
	fmt.Fprintf(w, "%d configurations: %d runs a round", p.Configurations(), len(p.Jobs))
	if shared > 0 {
		fmt.Fprintf(w, "; %d share another's run (\"= PLACE\": the same worker cpus in the same order, run once and recorded under each name)", shared)
	}
	fmt.Fprintf(w, "; cpus used %s, nodes used %s\n", cpusCovered.String(), nodesCovered.String())
	if p.Rungs != "" {
		fmt.Fprintf(w, "threads: %s\n", p.Rungs)
	}
	if p.Target > 0 && p.minRounds() == p.Count {
		fmt.Fprintf(w, "rounds: %d of %s a configuration, each one's 95%% confidence interval checked against ±%g%% (%d is the fewest with a 95%% interval: no configuration stops earlier)\n",
			p.Count, p.Duration, 100*p.Target, MinRounds)
	} else if p.Target > 0 {
		fmt.Fprintf(w, "rounds: %d to %d of %s a configuration: it stops once the 95%% confidence interval of its ns/op median is within ±%g%% (at least %d rounds, the fewest with a 95%% interval)\n",
			p.minRounds(), p.Count, p.Duration, 100*p.Target, MinRounds)
	} else {
		fmt.Fprintf(w, "rounds: %d of %s a configuration\n", p.Count, p.Duration)
	}
	for _, t := range p.Trimmed {
		fmt.Fprintf(w, "trimmed to fit the budget: %s\n", t)
	}
	sets := p.floorSets()
	lo, hi := p.estimate(p.minRounds(), sets), p.estimate(p.Count, sets)
	floor := ""
	if p.Floor {
		floor = fmt.Sprintf(", including a handoff floor before and after for each of %d cpu sets", sets)
	}
	est := hi.Round(time.Second).String()
	if lo != hi {
		est = fmt.Sprintf("%s to %s (every configuration stopping at %d rounds, or running %d)", lo.Round(time.Second), est, p.minRounds(), p.Count)
	}
	_, err := fmt.Fprintf(w, "estimated wall time: %s%s\n", est, floor)
	return err
}

// workerList writes CPUs in worker order, runs of consecutive CPUs folded
// ("0-3,8,16-19"): the order of spread and cross placements matters.
func workerList(cpus []int) string {
	var s []byte
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if len(s) > 0 {
			s = append(s, ',')
		}
		s = fmt.Appendf(s, "%d", cpus[i])
		if j > i {
			s = fmt.Appendf(s, "-%d", cpus[j])
		}
		i = j + 1
	}
	return string(s)
}
