package wakeups

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root, path, s string) {
	t.Helper()
	p := filepath.Join(root, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLLCSize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string // under cpu0/cache
		want  int
	}{
		{"none", nil, 1},
		{"l3 of 4", map[string]string{"index0/shared_cpu_list": "0", "index2/shared_cpu_list": "0-1", "index3/shared_cpu_list": "0-3\n"}, 4},
		{"l2 last", map[string]string{"index0/shared_cpu_list": "0", "index2/shared_cpu_list": "0,4"}, 2},
		{"ranges", map[string]string{"index3/shared_cpu_list": "0-3,8-11,16"}, 9},
		{"garbage", map[string]string{"index3/shared_cpu_list": "0-x"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, s := range tc.files {
				write(t, root, filepath.Join("sys/devices/system/cpu/cpu0/cache", p), s)
			}
			if got := llcSize(root); got != tc.want {
				t.Errorf("llcSize = %d, want %d", got, tc.want)
			}
		})
	}
}

// sched is a thread's sched file as 6.1 prints it with schedstats on
// (names cut to the counters read), its numbers scaled by k.
func sched(k string) string {
	return strings.NewReplacer("K", k).Replace(`w (1, #threads: 2)
-------------------------------------------------------------------
se.sum_exec_runtime                          :            K.500000
se.nr_migrations                             :                    K
nr_wakeups                                   :                   K0
nr_wakeups_affine                            :                    K
nr_voluntary_switches                        :                   K0
`)
}

// TestReadWakeCounters: of each process the busiest thread is the
// worker's, servers and clients sum apart, the other threads are kept by
// path, and a second read keeps the first read's thread.
func TestReadWakeCounters(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/10/task/10/sched", sched("1")) // a server's runtime thread
	write(t, root, "proc/10/task/11/sched", sched("5")) // the server
	write(t, root, "proc/20/task/20/sched", sched("3")) // a client
	write(t, root, "proc/30/task/30/sched", sched("2")) // a client
	b, err := os.ReadFile("../schedstat/testdata/schedstat-6.1")
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "proc/schedstat", string(b))
	tids := map[int]string{}
	s, c, others, ss, err := readWakeCounters(root, []int{10, 20, 30}, 1, tids)
	if err != nil {
		t.Fatal(err)
	}
	if s["nr_wakeups"] != 50 || c["nr_wakeups"] != 50 || c["sum_exec_runtime"] != 6 || s["nr_migrations"] != 5 {
		t.Errorf("servers %v, clients %v", s, c)
	}
	if len(others) != 1 || others[filepath.Join(root, "proc/10/task/10/sched")]["nr_wakeups"] != 10 {
		t.Errorf("others = %v", others)
	}
	if ss == nil || ss.Version != 15 {
		t.Errorf("schedstat = %+v", ss)
	}
	// The runtime thread gets busier than the worker: the worker is still read.
	write(t, root, "proc/10/task/10/sched", sched("9"))
	if s, _, _, _, err = readWakeCounters(root, []int{10, 20, 30}, 1, tids); err != nil || s["nr_wakeups"] != 50 {
		t.Errorf("second read: servers %v, %v", s, err)
	}

	write(t, root, "proc/40/task/40/sched", "w (1, #threads: 1)\nse.nr_migrations : 1\n")
	if _, _, _, _, err := readWakeCounters(root, []int{40}, 1, tids); err == nil || !strings.Contains(err.Error(), "CONFIG_SCHEDSTATS") {
		t.Errorf("schedstats off: %v", err)
	}
	if _, _, _, _, err := readWakeCounters(root, []int{50}, 1, tids); err == nil || !strings.Contains(err.Error(), "no thread") {
		t.Errorf("no process: %v", err)
	}
}
