package bench

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseSchedstat(t *testing.T) {
	tests := []struct {
		in                string
		run, wait, slices int64
		ok                bool
	}{
		{"838483 320340 2\n", 838483, 320340, 2, true},
		{"0 0 0\n", 0, 0, 0, true},
		{"123 456 789", 123, 456, 789, true},
		{"18446744 1 2\n", 18446744, 1, 2, true},
		{"", 0, 0, 0, false},
		{"1 2\n", 0, 0, 0, false},
		{"a b c\n", 0, 0, 0, false},
	}
	for _, tt := range tests {
		run, wait, slices, ok := parseSchedstat([]byte(tt.in))
		if run != tt.run || wait != tt.wait || slices != tt.slices || ok != tt.ok {
			t.Errorf("parseSchedstat(%q) = %d, %d, %d, %v; want %d, %d, %d, %v", tt.in, run, wait, slices, ok, tt.run, tt.wait, tt.slices, tt.ok)
		}
	}
	b, err := os.ReadFile("testdata/proc/schedstat")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := parseSchedstat(b); !ok {
		t.Errorf("parseSchedstat(testdata/proc/schedstat = %q) failed", b)
	}
}

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		file string
		want map[int]cpuTicks
	}{
		// A 2-vCPU KVM guest: user nice system idle iowait irq softirq steal guest guest_nice.
		{"stat-kvm-2cpu", map[int]cpuTicks{
			0: {irq: 143, steal: 312},
			1: {irq: 331, steal: 323},
		}},
		// Sparse CPU ids, and a line without the steal column.
		{"stat-old-kernel", map[int]cpuTicks{
			0: {irq: 0, steal: 0},
			3: {irq: 6 + 7, steal: 8},
		}},
	}
	for _, tt := range tests {
		b, err := os.ReadFile("testdata/proc/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseProcStat(b)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d cpus %v, want %v", tt.file, len(got), got, tt.want)
		}
		for cpu, w := range tt.want {
			if got[cpu] != w {
				t.Errorf("%s: cpu %d = %+v, want %+v", tt.file, cpu, got[cpu], w)
			}
		}
	}
	for _, bad := range []string{
		"", "intr 1 2 3\n", "cpux 1 2 3 4 5 6 7 8\n", "cpu0 1 2 x 4 5 6 7 8\n",
		"cpu-1 1 2 3 4 5 6 7 8\n",                   // a negative cpu
		"cpu1 99999999999999999999 0 0 0 0 0 0 0\n", // a tick count beyond int64
	} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("parseProcStat(%q) succeeded, want an error", bad)
		}
	}
}

// FuzzParseProcStat: whatever /proc/stat holds, the parser returns an
// error or ticks, never a panic.
func FuzzParseProcStat(f *testing.F) {
	for _, name := range []string{"stat-kvm-2cpu", "stat-old-kernel"} {
		b, err := os.ReadFile("testdata/proc/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		parseProcStat(b)
		parseSchedstat(b)
	})
}

// The arithmetic of a worker's disturbance, on readings whose answer is
// known.
func TestWorkerStats(t *testing.T) {
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	info := WorkerInfo{Index: 1, CPU: 3}
	tests := []struct {
		name            string
		a, b            threadTimes
		ca, cb          map[int]cpuTicks
		lost, wait      float64 // per cent
		disturbed       bool
		cause, notCause string
	}{
		{"undisturbed",
			threadTimes{wall: 0, run: 0, ok: true, sched: true},
			threadTimes{wall: ms(1000), run: ms(999), wait: ms(0), nivcsw: 3, ok: true, sched: true},
			nil, nil, 0.1, 0, false, "", "another task"},
		{"a busy thread on the cpu",
			threadTimes{wall: ms(100), run: ms(10), wait: ms(5), nivcsw: 10, ok: true, sched: true},
			threadTimes{wall: ms(1100), run: ms(510), wait: ms(505), nivcsw: 260, ok: true, sched: true},
			nil, nil, 50, 50, true, "another task ran on cpu 3 (run-queue wait 50.0%, 250 preemptions)", "steal"},
		{"hypervisor steal, accounted apart",
			threadTimes{wall: 0, run: 0, ok: true, sched: true},
			threadTimes{wall: ms(1000), run: ms(900), ok: true, sched: true},
			map[int]cpuTicks{3: {steal: 100}}, map[int]cpuTicks{3: {steal: 110}}, 10, 0, true, "hypervisor steal on cpu 3 (10.0%", "another task"},
		{"hypervisor steal counted as run time",
			threadTimes{wall: 0, run: 0, ok: true, sched: true},
			threadTimes{wall: ms(1000), run: ms(1000), ok: true, sched: true},
			map[int]cpuTicks{3: {steal: 100}}, map[int]cpuTicks{3: {steal: 110}}, 9, 0, true, "hypervisor steal", ""},
		{"one tick of steal is within /proc/stat's resolution",
			threadTimes{wall: 0, run: 0, ok: true, sched: true},
			threadTimes{wall: ms(100), run: ms(100), ok: true, sched: true},
			map[int]cpuTicks{3: {steal: 100}}, map[int]cpuTicks{3: {steal: 101}}, 0, 0, false, "", ""},
		{"the thread slept",
			threadTimes{wall: 0, run: 0, ok: true, sched: true},
			threadTimes{wall: ms(1000), run: ms(950), nvcsw: 7, ok: true, sched: true},
			nil, nil, 5, 0, true, "no run-queue wait or steal to show for it (7 voluntary context switches", "another task"},
		{"another task, then sleeps: largest cause first",
			threadTimes{wall: 0, run: 0, ok: true, sched: true},
			threadTimes{wall: ms(1000), run: ms(600), wait: ms(300), nivcsw: 30, nvcsw: 4, ok: true, sched: true},
			nil, nil, 40, 30, true, "30 preemptions); off cpu 10.0%", "hypervisor"},
		{"sleeps, then another task: largest cause first",
			threadTimes{wall: 0, run: 0, ok: true, sched: true},
			threadTimes{wall: ms(1000), run: ms(600), wait: ms(100), nivcsw: 2, nvcsw: 9, ok: true, sched: true},
			nil, nil, 40, 10, true, "or interrupts); another task ran on cpu 3 (run-queue wait 10.0%", "hypervisor"},
		{"a part under a tenth of the loss is no cause",
			threadTimes{wall: 0, run: 0, ok: true, sched: true},
			threadTimes{wall: ms(1000), run: ms(500), wait: ms(480), nivcsw: 5, nvcsw: 1, ok: true, sched: true},
			nil, nil, 50, 48, true, "another task ran on cpu 3", "off cpu"},
		{"no accounting",
			threadTimes{wall: 0},
			threadTimes{wall: ms(1000)},
			nil, nil, 0, 0, false, "", ""},
	}
	for _, tt := range tests {
		w := workerStats(info, 42, tt.a, tt.b, tt.ca, tt.cb)
		if d := w.LostPct() - tt.lost; d > 0.01 || d < -0.01 {
			t.Errorf("%s: LostPct() = %.3f, want %.3f", tt.name, w.LostPct(), tt.lost)
		}
		if d := w.WaitPct() - tt.wait; d > 0.01 || d < -0.01 {
			t.Errorf("%s: WaitPct() = %.3f, want %.3f", tt.name, w.WaitPct(), tt.wait)
		}
		if w.Disturbed() != tt.disturbed {
			t.Errorf("%s: Disturbed() = %v, want %v", tt.name, w.Disturbed(), tt.disturbed)
		}
		warn := w.Warning()
		if tt.cause != "" && !strings.Contains(warn, tt.cause) {
			t.Errorf("%s: Warning() = %q, want it to say %q", tt.name, warn, tt.cause)
		}
		if tt.notCause != "" && strings.Contains(warn, tt.notCause) {
			t.Errorf("%s: Warning() = %q, must not say %q", tt.name, warn, tt.notCause)
		}
		if !strings.HasPrefix(warn, "worker 1 on cpu 3 lost ") || strings.Contains(warn, "\n") {
			t.Errorf("%s: Warning() = %q, want one line naming worker 1 and cpu 3", tt.name, warn)
		}
	}
}

// RunMetrics reports the worst worker, and leaves out what was not
// measured rather than reporting 0.
func TestRunMetrics(t *testing.T) {
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	ticks := map[int]cpuTicks{0: {}, 1: {}}
	res := &Result{PerWorker: []int64{50, 100}, Latency: new(Latency)}
	for i, run := range []int64{990, 700} {
		res.Workers = append(res.Workers, workerStats(WorkerInfo{Index: i, CPU: i}, res.PerWorker[i],
			threadTimes{ok: true, sched: true},
			threadTimes{wall: ms(1000), run: ms(run), wait: ms(1000 - run), nivcsw: 10 * int64(i+1), ok: true, sched: true},
			ticks, ticks))
	}
	for _, x := range []int64{10, 20, 30, 40, 1000} {
		res.Latency.Record(x)
	}
	// The clock cost is the workers' median calibration.
	res.Workers[0].ClockCost, res.Workers[1].ClockCost = 25, 35
	want := map[string]float64{
		WorkerMinMax.Name: 50, Lost.Name: 30, Wait.Name: 30, Steal.Name: 0, Preempt.Name: 20,
		LatencyP50.Name: 30e-9, LatencyMax.Name: 1000e-9, LatencyClock.Name: 35e-9,
	}
	got := map[string]float64{}
	var order []string
	for _, m := range res.RunMetrics() {
		got[m.Unit.Name] = m.Value
		order = append(order, m.Unit.Name)
	}
	for u, v := range want {
		if d := got[u] - v; d > 1e-9*max(1, v) || d < -1e-9*max(1, v) {
			t.Errorf("RunMetrics %s = %v, want %v", u, got[u], v)
		}
	}
	var unitOrder []string
	for _, u := range RunUnits {
		unitOrder = append(unitOrder, u.Name)
	}
	if strings.Join(order, " ") != strings.Join(unitOrder, " ") {
		t.Errorf("RunMetrics units %v, want RunUnits order %v", order, unitOrder)
	}
	if !res.Disturbed() || len(res.Warnings()) != 1 || !strings.HasPrefix(res.Warnings()[0], "worker 1 on cpu 1 lost 30.0%") {
		t.Errorf("Warnings() = %q, want worker 1's", res.Warnings())
	}

	bare := &Result{PerWorker: []int64{0}}
	for _, m := range bare.RunMetrics() {
		if m.Unit != WorkerCV {
			t.Errorf("a result without operations, samples or accounting reports %s = %v", m.Unit, m.Value)
		}
	}
}

func TestIsDisturbed(t *testing.T) {
	for _, tt := range []struct {
		lost float64
		wall time.Duration
		want bool
	}{
		{0.5, time.Second, false},
		{2, time.Second, false},
		{2.1, time.Second, true},
		{50, time.Second, true},
		{5, 2 * time.Microsecond, false},    // 100 ns: a reading's jitter
		{2.4, 27 * time.Microsecond, false}, // testing.B's b.N = 1 run
		{30, 100 * time.Microsecond, true},
	} {
		if got := IsDisturbed(tt.lost, tt.wall); got != tt.want {
			t.Errorf("IsDisturbed(%v%%, %v) = %v, want %v", tt.lost, tt.wall, got, tt.want)
		}
	}
}
