package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench/loadavg"
)

func init() { kernelSubs["model"] = kernelModelCmd }

// modelTolerance is how far the loadavg model may be from the kernel's
// count, as a factor either way, before the table says it misses. Not
// tighter, because the kernel's writes include paths the model leaves out
// (update_blocked_averages, attach and detach on a cgroup change) and a
// guest's events are spread over an emulator's stretched time, so the
// model is held to the count's size and to the direction 6.1 → 6.12 takes,
// not its digits; not looser, because a model off by more than half again
// would put the seed's finding on the wrong side.
const modelTolerance = 1.5

// kernelModelCmd holds simulate loadavg, fed a count's measured rates,
// against the count: one row per quantity, kernel, model, model/kernel.
func kernelModelCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "model FILE... (results files of contend kernel count -o)")
	dur := fs.Duration("duration", time.Second, "kernel time the model simulates per count")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("kernel model: want one or more results files of contend kernel count -o")
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "kernel\tworkload\tquantity\tkernel\tmodel\tmodel/kernel\twithin ×%.1f\n", modelTolerance)
	n := 0
	for _, path := range files {
		counts, err := readKernelCounts(path)
		if err != nil {
			return fmt.Errorf("kernel model: %w", err)
		}
		for _, kc := range counts {
			rows, err := modelRows(kc, *dur)
			if err != nil {
				return fmt.Errorf("kernel model: %s: %w", path, err)
			}
			for _, r := range rows {
				ratio := r.model / r.kernel
				within := "yes"
				if !(ratio <= modelTolerance && ratio >= 1/modelTolerance) {
					within = "NO"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.3g\t%.3g\t%.2f\t%s\n", kc.kernel, kc.workload, r.name, r.kernel, r.model, ratio, within)
				n++
			}
		}
	}
	if n == 0 {
		return errors.New("kernel model: no KernelCount results in the files")
	}
	return tw.Flush()
}

// kernelCountResult is one KernelCount line of a results file.
type kernelCountResult struct {
	kernel, workload string
	cpus, hz, levels int
	pairs            int
	shape            string
	rateLimit        bool
	v                map[string]float64
}

func readKernelCounts(path string) ([]kernelCountResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []kernelCountResult
	rd := benchfmt.NewReader(f, path)
	for rd.Scan() {
		r, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		base, parts := r.Name.Parts()
		if string(base) != "KernelCount" {
			continue
		}
		kc := kernelCountResult{v: map[string]float64{}, workload: strings.Join(strings.Fields(strings.ReplaceAll(string(r.Name), "/", " "))[1:], "/")}
		for _, p := range parts {
			k, v, _ := strings.Cut(strings.TrimPrefix(string(p), "/"), "=")
			switch k {
			case "shape":
				kc.shape = v
			case "pairs":
				kc.pairs, _ = strconv.Atoi(v)
			case "levels":
				kc.levels, _ = strconv.Atoi(v)
			}
		}
		kc.kernel = r.GetConfig("kernel")
		kc.cpus, _ = strconv.Atoi(r.GetConfig("kernel-cpus"))
		kc.hz, _ = strconv.Atoi(r.GetConfig("kernel-hz"))
		kc.rateLimit = r.GetConfig("kernel-rate-limit") == "yes"
		for _, v := range r.Values {
			kc.v[v.Unit] = v.Value
		}
		if kc.cpus < 1 || kc.levels < 1 || kc.pairs < 1 {
			return nil, fmt.Errorf("%s: %s lacks kernel-cpus, levels or pairs", path, r.Name)
		}
		out = append(out, kc)
	}
	return out, rd.Err()
}

type modelRow struct {
	name          string
	kernel, model float64
}

// modelConfig is the simulation fed the count's own rates: its cpus and
// levels, an event (enqueue or dequeue) every 1/(2·enqueues per cpu per
// second), the measured migrations per wakeup, tasks per cpu from the
// workload's threads, the kernel's HZ, and the rate limit where the kernel
// has it (v6.7+: the rate preset, else base).
func modelConfig(kc kernelCountResult, dur time.Duration) (loadavg.SimConfig, error) {
	perCPU := 2 * kc.v["enqueue/s"] / float64(kc.cpus)
	if perCPU <= 0 {
		return loadavg.SimConfig{}, errors.New("no enqueue rate")
	}
	threads := 2 * kc.pairs
	if kc.shape == "server" {
		threads = kc.pairs + 1
	}
	var mig loadavg.SimMig
	pct := int(math.Round(100 * kc.v["migrations/wakeup"]))
	if err := mig.Set(strconv.Itoa(min(max(pct, 0), 100))); err != nil {
		return loadavg.SimConfig{}, err
	}
	variant := "base"
	if kc.rateLimit {
		variant = "rate"
	}
	hz := kc.hz
	if hz != 250 && hz != 1000 {
		hz = 250 // Debian's
	}
	return loadavg.SimConfig{
		CPUs: kc.cpus, Nodes: 1, Levels: kc.levels, Duration: dur,
		Gap:   time.Duration(float64(time.Second) / perCPU),
		Mig:   mig,
		Tasks: max(1, int(math.Round(float64(threads)/float64(kc.cpus)))),
		HZ:    hz, Seed: 1, Variants: []string{variant},
	}, nil
}

func modelRows(kc kernelCountResult, dur time.Duration) ([]modelRow, error) {
	cfg, err := modelConfig(kc, dur)
	if err != nil {
		return nil, err
	}
	tab, err := loadavg.Simulate(cfg)
	if err != nil {
		return nil, err
	}
	row := tab.Rows[0]
	enq := math.Max(float64(row.Events)/2, 1)
	rows := []modelRow{
		{"tg writes per enqueue (update_load_avg)", kc.v["ula-writes/enqueue"], float64(row.Writes) / enq},
		{"tg writes per enqueue (all sites)", kc.v["tg-writes/enqueue"], float64(row.Writes) / enq},
	}
	if kc.rateLimit && kc.v["ula-tests/enqueue"] > 0 {
		rows = append(rows, modelRow{"writes per 1 ms test (update_load_avg)",
			kc.v["ula-writes/enqueue"] / kc.v["ula-tests/enqueue"], float64(row.Writes) / math.Max(float64(row.Calls), 1)})
	}
	return rows, nil
}
