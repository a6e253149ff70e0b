package sysbench

// sysbench --test=threads, the seed's second workload (25482.9 → 29577.9
// events/s): sysbench's threads test (src/tests/threads/sb_threads.c), whose
// every event is
//
//	for (i = 0; i < thread_yields; i++) {
//		pthread_mutex_lock(&test_mutexes[lock_num]);
//		YIELD();	/* sched_yield() */
//		pthread_mutex_unlock(&test_mutexes[lock_num]);
//	}
//
// with lock_num the events handed out so far modulo thread_locks
// (ck_pr_faa_uint(&req_performed, 1) % thread_locks), thread_yields 1000
// and thread_locks 8 by default. A glibc mutex is not fair: the holder's
// unlock, seeing waiters, wakes one (futex_wake(): try_to_wake_up() without
// WF_SYNC, from the unlocking task on its cpu) and goes on; the woken
// waiter retries when it runs and sleeps again if the lock is taken by
// then. sched_yield() with the lock held lets the cpu's queued tasks run
// first (yield_task_fair()'s skip buddy), and does nothing on a cpu with
// nothing queued.

// A mutexTest is the threads test's state.
type mutexTest struct {
	owner   []int   // per mutex: the holder, -1 free
	waiters [][]int // per mutex: the tasks asleep in futex_wait(), oldest first
	mutex   []int   // per task: the mutex of its current event
	iter    []int   // per task: the loop's i
	holding []bool  // per task: it holds its mutex and has yielded (its burst is the yield's return and the unlock)
	handed  int     // req_performed: events handed out
	p       *Config
}

func newMutexTest(p *Config) *mutexTest {
	m := &mutexTest{owner: make([]int, p.Locks), waiters: make([][]int, p.Locks), p: p}
	for i := range m.owner {
		m.owner[i] = -1
	}
	return m
}

// grow gives task id its state, its first event's mutex handed out.
func (m *mutexTest) grow(id int) {
	for id >= len(m.mutex) {
		m.mutex = append(m.mutex, m.handed%m.p.Locks)
		m.handed++
		m.iter = append(m.iter, 0)
		m.holding = append(m.holding, false)
	}
}

// act is what thread t does at the end of its burst on c: after the lock's
// burst it takes the mutex and yields, or sleeps on it; after the yield's
// burst it unlocks, waking a waiter, and goes round.
func (m *mutexTest) act(w *Workload, t, cpu int) Next {
	m.grow(t)
	k := w.k
	mx := m.mutex[t]
	if !m.holding[t] {
		if m.owner[mx] >= 0 {
			m.waiters[mx] = append(m.waiters[mx], t)
			k.SetBurst(t, w.draw(m.p.Lock)) // the retry when woken
			return Block
		}
		m.owner[mx] = t
		m.holding[t] = true
		k.SetBurst(t, w.draw(m.p.Yield))
		return Yield
	}
	m.holding[t] = false
	m.owner[mx] = -1
	if ws := m.waiters[mx]; len(ws) > 0 {
		m.waiters[mx] = ws[1:]
		k.Wake(ws[0], cpu, false)
	}
	if m.iter[t]++; m.iter[t] == m.p.Yields {
		m.iter[t] = 0
		k.Count(Transaction) // an event
		m.mutex[t] = m.handed % m.p.Locks
		m.handed++
	}
	k.SetBurst(t, w.draw(m.p.Lock))
	return RunOn
}
