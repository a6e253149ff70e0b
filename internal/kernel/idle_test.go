package kernel

import (
	"strings"
	"testing"
)

// TestIdleLoop reads the idle loop's driver-less form from Debian's text:
// 6.1.192 and 6.12.117 have f4c31b07b136's backport, 7.2.12 and 7.3.4
// the commit itself (objdump -d of their
// -dbg vmlinux: after "call cpuidle_not_available; test %al,%al; jne",
// a test of got_tick and tick_nohz_tick_stopped() choose
// tick_nohz_idle_stop_tick or tick_nohz_idle_retain_tick, then
// default_idle_call), 6.16.12 (a lab guest's text, kernel sites -save)
// the form before it. Moving a symbol the walk matches moves the answer:
// it reads the calls, not the release.
func TestIdleLoop(t *testing.T) {
	const (
		v61, v612, v616 = "testdata/debian-6.1", "testdata/debian-6.12", "testdata/debian-6.16"
	)
	move := func(name string) func(*Input) {
		return func(in *Input) { moveSym(in.Syms, name, 4) }
	}
	cases := []struct {
		name, dir string
		edit      func(*Input)
		tick, at  string
		calls     string // Calls joined by ", "
		why       string // part of Why, where no form was read
	}{
		{"6.1", v61, nil, "after-tick", "do_idle+0xd6", "tick_nohz_idle_stop_tick, tick_nohz_idle_retain_tick", ""},
		{"6.12", v612, nil, "after-tick", "do_idle+0xd1", "tick_nohz_idle_stop_tick, tick_nohz_idle_retain_tick", ""},
		{"7.2", "testdata/debian-7.2", nil, "after-tick", "do_idle+0xc4", "tick_nohz_idle_stop_tick, tick_nohz_idle_retain_tick", ""},
		{"7.3", "testdata/debian-7.3", nil, "after-tick", "do_idle+0xc4", "tick_nohz_idle_stop_tick, tick_nohz_idle_retain_tick", ""},
		{"6.16", v616, nil, "stop", "do_idle+0xb5", "tick_nohz_idle_stop_tick", ""},
		{"6.1 without retain", v61, move("tick_nohz_idle_retain_tick"), "stop", "do_idle+0xd6", "tick_nohz_idle_stop_tick", ""},
		{"6.16 without stop", v616, move("tick_nohz_idle_stop_tick"), "", "do_idle+0xb5", "", "calls neither tick_nohz_idle_stop_tick nor tick_nohz_idle_retain_tick"},
		{"6.1 without the test's call", v61, move("cpuidle_not_available"), "", "", "", "do_idle has no call of cpuidle_not_available"},
		{"6.16 without default_idle_call", v616, move("default_idle_call"), "", "", "", "no path from its true side reaches default_idle_call"},
		{"6.1 without do_idle", v61, func(in *Input) { renameSym(in.Syms, "do_idle", "do_idle_gone") }, "", "", "", "none of cpuidle_idle_call, do_idle is in kallsyms"},
		{"6.1, the branch inverted", v61, invertAfter("do_idle", 0xd6+5+2), "", "", "", "no path from its true side reaches default_idle_call"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, err := Open(c.dir)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if c.edit != nil {
				c.edit(&src.Input)
			}
			l := findIdleLoop(src.Input)
			if l.Tick != c.tick || l.At != c.at || strings.Join(l.Calls, ", ") != c.calls {
				t.Errorf("tick %q at %q calls %q (why %q), want %q at %q calls %q", l.Tick, l.At, l.Calls, l.Why, c.tick, c.at, c.calls)
			}
			if c.why != "" && !strings.Contains(l.Why, c.why) {
				t.Errorf("why %q, want it to say %q", l.Why, c.why)
			}
			want := map[string]string{"stop": IdleFormStop + " (before f4c31b07b136", "after-tick": IdleFormAfterTick + " (f4c31b07b136: got_tick"}[c.tick]
			if f := l.Form(); !strings.HasPrefix(f, want) || (want == "") != (f == "") {
				t.Errorf("form %q, want it to start %q", f, want)
			}
		})
	}
}

func renameSym(s *Symbols, from, to string) {
	i := s.byName[from]
	delete(s.byName, from)
	s.sorted[i].Name = to
	s.byName[to] = i
}

// invertAfter turns the jne at fn+off (0f 85, rel32) into je: the walk
// then starts on the driver's side.
func invertAfter(fn string, off uint64) func(*Input) {
	return func(in *Input) {
		sym, _, _ := in.Syms.Func(fn)
		b := make([]byte, 2)
		if err := in.Mem.ReadAt(b, sym.Addr+off); err != nil || b[0] != 0x0f || b[1] != 0x85 {
			panic("not a jne rel32")
		}
		in.Mem = patchMem{in.Mem, sym.Addr + off + 1, []byte{0x84}}
	}
}
