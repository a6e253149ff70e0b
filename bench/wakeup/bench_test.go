package wakeup

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkWakeup replays the model's schedule for each policy, topology,
// thread count and working set on pinned cpus. Compare the policies with
//
//	go test -run '^$' -bench 'Wakeup/wake=' -count 10 ./bench/wakeup | tee wk.txt
//	benchstat -col /wake -row /topo wk.txt
func BenchmarkWakeup(b *testing.B) {
	spec, err := bench.Lookup("wakeup")
	if err != nil {
		b.Fatal(err)
	}
	benchtest.Ladder(b, "wakeup", spec.Full)
}

// BenchmarkSimulate is the size: 1000 tasks (500 sysbench threads
// and their server threads) on 64 cpus for 5 s of kernel time, per policy.
// One iteration is one whole simulation: run it with -benchtime=1x. Under
// the race detector (the test command's smoke run, where 5 s took 40-120 s
// a policy) it simulates 100 ms: the same machine, tasks and code paths,
// every balance level's idle interval passed.
func BenchmarkSimulate(b *testing.B) {
	d := 5 * time.Second
	if benchtest.Race {
		d = 100 * time.Millisecond
	}
	for _, pol := range policyNames {
		b.Run("wake="+pol+"/cpus=64/tasks=1000", func(b *testing.B) {
			for range b.N {
				if _, err := Simulate(SimConfig{CPUs: []int{64}, Topology: "llc8", Policies: []string{pol},
					Threads: 500, Duration: d, Warmup: -1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFigures is the seed's four figures at -figures' defaults (s390
// and s390llc8 guests of 16 vCPUs, ivb-ex 4×15×2), reporting each figure's
// model before and after as metrics beside the time it takes. One
// iteration is every run: use -benchtime=1x. Under the race detector (the
// test command's smoke run, where the defaults' 1 s after 3 s of kernel
// time took 75 s) each run is 25 ms after 25 ms: the same machines,
// threads and code paths.
func BenchmarkFigures(b *testing.B) {
	var cfg FigConfig
	if benchtest.Race {
		cfg.Duration, cfg.Warmup = 25*time.Millisecond, 25*time.Millisecond
	}
	var tab *FigTable
	for range b.N {
		var err error
		if tab, err = Figures(cfg); err != nil {
			b.Fatal(err)
		}
	}
	for _, r := range tab.Rows {
		if r.Model == "not run" {
			continue
		}
		name := strings.NewReplacer(" ", "", "/", "-").Replace(fmt.Sprintf("fig%d-%s", r.Figure, r.Topo))
		b.ReportMetric(r.Before, name+"-before")
		b.ReportMetric(r.After, name+"-after")
	}
}
