package sweep

import (
	"fmt"
	"io"
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

// Estimate returns how long the plan takes to run: Count rounds of every
// job's Duration and overhead, and, with Floor, two handoff floors (before
// and after) for each distinct CPU set. It is an estimate, made before
// anything runs.
func (p *Plan) Estimate() time.Duration { return p.estimate(p.floorSets()) }

// estimate is Estimate with the plan's floorSets counted.
func (p *Plan) estimate(sets int) time.Duration {
	var perRound time.Duration
	for _, j := range p.Jobs {
		perRound += p.Duration + runOverhead + time.Duration(j.Threads-1)*perWorkerStart
	}
	return time.Duration(p.Count)*perRound + 2*time.Duration(sets)*floorEstimate
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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tvariant\tthreads\tplace\tcpus\tnodes")
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
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", j.Spec.Name, j.Variant, j.Threads, j.Place, workerList(cpus), nodes.String())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sets := p.floorSets()
	est := p.estimate(sets)
	fmt.Fprintf(w, "%d configurations × %d rounds = %d runs of %s; cpus used %s, nodes used %s\n",
		len(p.Jobs), p.Count, len(p.Jobs)*p.Count, p.Duration, cpusCovered.String(), nodesCovered.String())
	floor := ""
	if p.Floor {
		floor = fmt.Sprintf(", including a handoff floor before and after for each of %d cpu sets", sets)
	}
	_, err := fmt.Fprintf(w, "estimated wall time: %s%s\n", est.Round(time.Second), floor)
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
