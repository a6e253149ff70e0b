package wakeup

import (
	"slices"
	"testing"

	"github.com/contend/contend/bench/ksim"
)

// place puts a task on cpu c, running (isCurr) or queued, last run at ran
// ns, as the balancer will find it.
func place(k *ksys, c int, isCurr bool, ran int64) *ktask {
	t := k.addTask(c)
	t.wokenAt, t.execStart = k.now, ran
	cpu := k.cpus[c]
	la := t.loadNow(k.now)
	cpu.blocked.Remove(k.now, la)
	cpu.runnable.Add(k.now, la)
	cpu.Enqueue(&t.Task)
	if running := t.State == ksim.TaskRunning; running != isCurr {
		panic("place: a task runs only on an idle cpu")
	}
	if isCurr {
		cpu.tickStopped = false
		k.nohz.ExitIdle(c) // as its first busy tick left it
	}
	return t
}

// A cpu going idle pulls a queued task from an overloaded one: only a
// cold task (task_hot(): ran 500 µs ago or more), only where avg_idle
// passes the version's gate (4.13: sysctl_sched_migration_cost; 6.1: the
// lowest domain's max_newidle_lb_cost, measured is the lbcost= an earlier
// newidle pass took, or sd_init()'s 0 before any).
func TestNewidleBalance(t *testing.T) {
	const now = 10_000_000
	for _, tt := range []struct {
		name     string
		policy   string
		avgIdle  int64
		ranAgo   int64
		measured bool
		pulled   bool
	}{
		{"4.13 cold task", "llcstats", 2 * ksim.MigrationCost, ksim.MigrationCost, false, true},
		{"4.13 hot task", "llcstats", 2 * ksim.MigrationCost, ksim.MigrationCost - 1, false, false},
		{"4.13 short idle", "llcstats", ksim.MigrationCost - 1, ksim.MigrationCost, false, false},
		{"6.1 short idle, cold task", "v6.1", 10_000, ksim.MigrationCost, true, true},
		{"6.1 idle under the balance cost", "v6.1", 1_000, ksim.MigrationCost, true, false},
		{"6.1 idle under the balance cost, none measured yet", "v6.1", 1_000, ksim.MigrationCost, false, true},
	} {
		k := newTestKernel(t, tt.policy, "s390", 4)
		k.now = now
		place(k, 0, true, now)
		q := place(k, 0, false, now-tt.ranAgo)
		k.overload = true
		idle := k.cpus[2]
		idle.AvgIdle = tt.avgIdle
		if tt.measured {
			for _, sd := range idle.sd {
				sd.Balance.MaxNewidleLBCost = k.p.lbCost
			}
		}
		k.goIdle(idle)
		moved := q.CPU == 2
		if moved != tt.pulled || (moved && k.c.migrations[causeNewidle] != 1) {
			t.Errorf("%s: queued task on cpu %d after cpu 2 went idle, newidle migrations %d; want pulled %v",
				tt.name, q.CPU, k.c.migrations[causeNewidle], tt.pulled)
		}
	}
}

// A hot queued task (task_hot()) stays through cache_nice_tries+1 failed
// balances, each resetting the interval to min_interval, and goes on the
// next (nr_balance_failed > cache_nice_tries); balances that find nothing
// to move stretch the interval up to max_interval.
func TestBalanceFailuresAndIntervals(t *testing.T) {
	const now = 10_000_000
	k := newTestKernel(t, "llcstats", "s390", 4)
	k.now = now
	place(k, 0, true, now)
	q := place(k, 0, false, now) // hot: ran just now
	idle := k.cpus[1]
	sd := idle.sd[0]
	for i := 0; i <= sd.cacheNiceTries; i++ {
		if moved, _ := k.loadBalance(idle, sd, ksim.CPUIdle, causeNohz, 3); moved != 0 {
			t.Fatalf("balance %d moved %d hot tasks", i, moved)
		}
		if sd.Balance.Interval != sd.Balance.MinInterval || sd.Balance.NrBalanceFailed != i+1 {
			t.Errorf("balance %d: interval %d ms, nr_balance_failed %d; want min_interval %d and %d", i, sd.Balance.Interval, sd.Balance.NrBalanceFailed, sd.Balance.MinInterval, i+1)
		}
	}
	if moved, _ := k.loadBalance(idle, sd, ksim.CPUIdle, causeNohz, 3); moved != 1 || q.CPU != 1 || k.c.migrations[causeNohz] != 1 || sd.Balance.NrBalanceFailed != 0 {
		t.Errorf("after %d failures: moved %d, the hot task on cpu %d, nohz migrations %d, nr_balance_failed %d; want it moved to cpu 1, failures reset",
			sd.cacheNiceTries+1, moved, q.CPU, k.c.migrations[causeNohz], sd.Balance.NrBalanceFailed)
	}
	// Nothing queued anywhere: balanced, the interval doubles up to the max.
	k2 := newTestKernel(t, "llcstats", "s390", 4)
	sd2 := k2.cpus[1].sd[0]
	for range 4 {
		k2.loadBalance(k2.cpus[1], sd2, ksim.CPUIdle, causeNohz, 1)
	}
	if sd2.Balance.Interval != sd2.Balance.MaxInterval {
		t.Errorf("interval %d ms after balanced passes, want max_interval %d", sd2.Balance.Interval, sd2.Balance.MaxInterval)
	}
}

// loadBalance is load_balance(c, sd, idle) done by cpu from: ksim's
// sched_balance_rq() frame around Pass. It returns the tasks moved and
// continue_balancing.
func (k *ksys) loadBalance(c *kcpu, sd *domain, idle ksim.IdleType, why cause, from int) (int, bool) {
	w := k.walk(c, why, from)
	_, cont := k.kern.BalanceRQ(w, slices.Index(c.sd, sd), idle, false)
	return w.moved, cont
}
