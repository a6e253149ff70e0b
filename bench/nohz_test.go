package bench

import (
	"strings"
	"testing"
)

func TestNohz(t *testing.T) {
	for _, counter := range []bool{true, false} {
		n := NewNohz(130, counter)
		if n.Kick() != 0 {
			t.Errorf("counter=%v: the kick found a tickless cpu in an empty struct", counter)
		}
		want := int64(1)
		if counter {
			want = 2
		}
		if w := n.Enter(129); w != want {
			t.Errorf("counter=%v: Enter made %d locked writes, want %d", counter, w, want)
		}
		if n.Kick() == 0 {
			t.Errorf("counter=%v: the kick missed cpu 129's stopped tick", counter)
		}
		stopped := func(c int) bool { return c == 129 }
		if err := n.Check(130, stopped); err != nil {
			t.Errorf("counter=%v: %v", counter, err)
		}
		if err := n.Check(130, func(int) bool { return false }); err == nil || !strings.Contains(err.Error(), "cpu 129") {
			t.Errorf("counter=%v: Check with cpu 129 not stopped = %v, want an error naming it", counter, err)
		}
		if w := n.Exit(129); w != want || n.Kick() != 0 {
			t.Errorf("counter=%v: Exit made %d writes, kick %d after it", counter, w, n.Kick())
		}
	}
	n := NewNohz(8, true)
	n.Enter(3)
	n.nr.Add(1)
	if err := n.Check(8, func(c int) bool { return c == 3 }); err == nil || !strings.Contains(err.Error(), "nr_cpus is 2") {
		t.Errorf("Check with nr_cpus off by one = %v", err)
	}
}
