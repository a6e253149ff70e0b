package kernel

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// The idle loop without a cpuidle driver. kernel/sched/idle.c's
// cpuidle_idle_call() takes its cpuidle_not_available(drv, dev) branch
// where no driver is registered (the lab's QEMU TCG guests), and that
// branch decides whether an idle cpu stops its tick. It has had two
// forms:
//
//	before f4c31b07b136 ("sched: idle: Consolidate the handling of two
//	special cases", Fixes: ed98c3491998; v7.0-rc, 6.12.y and 6.1.y
//	stable 2026-03):
//		tick_nohz_idle_stop_tick();
//		default_idle_call();
//	from it:
//		idle_call_stop_or_retain_tick(stop_tick);   // do_idle's got_tick
//		default_idle_call();
//	with
//		if (stop_tick || tick_nohz_tick_stopped())
//			tick_nohz_idle_stop_tick();
//		else
//			tick_nohz_idle_retain_tick();
//
// so the tick stops at every iteration before it, and after it only once
// an iteration has ended with the tick (got_tick is false at an idle's
// first iteration). Neither the release nor BTF says which a kernel has
// (the stable backports): the text does. The finder walks the code from
// cpuidle_not_available()'s call, on the side taken when it returns
// true, to default_idle_call(), and names the form by the calls on the
// way: tick_nohz_idle_retain_tick() only in the new one.

// The forms' lines, as internal/oracle matches them (its idleFormStop
// and idleFormAfterTick).
const (
	IdleFormStop      = "idle loop without a cpuidle driver: tick_nohz_idle_stop_tick() at every iteration"
	IdleFormAfterTick = "idle loop without a cpuidle driver: the tick stops only after an iteration the tick ended"
)

// IdleWhat is what the report's idle-loop section reads.
const IdleWhat = "cpuidle_idle_call()'s branch without a cpuidle driver: from cpuidle_not_available() returning true to default_idle_call()"

// idleHosts are where cpuidle_idle_call()'s code lies: its own symbol
// where the compiler kept it out of line, else do_idle (Debian 6.1 to
// 7.3 inline it there).
var idleHosts = []string{"cpuidle_idle_call", "do_idle"}

// idleCallees are the functions the walk names, and the one it ends at.
const (
	idleNotAvailable = "cpuidle_not_available"
	idleDefault      = "default_idle_call"
	idleStopTick     = "tick_nohz_idle_stop_tick"
	idleRetainTick   = "tick_nohz_idle_retain_tick"
)

// IdleSymbols are the symbols the idle loop's finder looks up besides
// its hosts (a fixture keeps them).
var IdleSymbols = []string{idleNotAvailable, idleDefault, idleStopTick, idleRetainTick, "tick_nohz_tick_stopped"}

// idleWalkBudget bounds the instructions the walk visits: Debian 6.1.192's
// branch, from the jne after the call to default_idle_call, is 11
// instructions over its four paths.
const idleWalkBudget = 256

// An IdleLoop is the idle loop's driver-less form as read from the text.
type IdleLoop struct {
	// Tick is "stop" (before f4c31b07b136), "after-tick" (from it), or ""
	// where the form could not be read; Why then says why.
	Tick string `json:"tick,omitempty"`
	Why  string `json:"why,omitempty"`
	// At is the call of cpuidle_not_available the walk started from
	// (FUNC+0xOFF), and Calls the functions called on the way from its
	// true side to default_idle_call, in address order.
	At    string   `json:"at,omitempty"`
	Calls []string `json:"calls,omitempty"`
}

// Form is the report's form line: one of IdleFormStop and
// IdleFormAfterTick with the change that made it so, or "" where the
// form was not read.
func (l *IdleLoop) Form() string {
	switch l.Tick {
	case "stop":
		return IdleFormStop + " (before f4c31b07b136: " + l.At + "'s true side calls " + idleStopTick + ", no " + idleRetainTick + ")"
	case "after-tick":
		return IdleFormAfterTick + " (f4c31b07b136: got_tick; " + l.At + "'s true side calls " + strings.Join(l.Calls, ", ") + ")"
	}
	return ""
}

// findIdleLoop reads the idle loop's form. It never fails: a kernel
// whose code it cannot read gets a Why.
func findIdleLoop(in Input) IdleLoop {
	notAvail, ok1 := in.Syms.Lookup(idleNotAvailable)
	dflt, ok2 := in.Syms.Lookup(idleDefault)
	if !ok1 || !ok2 {
		return IdleLoop{Why: "kallsyms lacks " + idleNotAvailable + " or " + idleDefault + " (inlined, or no CONFIG_CPU_IDLE)"}
	}
	names := map[uint64]string{}
	for _, n := range []string{idleStopTick, idleRetainTick} {
		if s, ok := in.Syms.Lookup(n); ok {
			names[s.Addr] = n
		}
	}
	var why []string
	for _, h := range idleHosts {
		sym, size, ok := in.Syms.Func(h)
		if !ok {
			continue
		}
		code := make([]byte, size)
		if err := in.Mem.ReadAt(code, sym.Addr); err != nil {
			return IdleLoop{Why: fmt.Sprintf("reading %s: %v", sym.Name, err)}
		}
		insts, _ := decode(code)
		f := &fn{sym: sym, insts: insts}
		l, ok := f.idleBranch(notAvail.Addr, dflt.Addr, names)
		if ok {
			return l
		}
		why = append(why, l.Why)
	}
	if len(why) == 0 {
		return IdleLoop{Why: "none of " + strings.Join(idleHosts, ", ") + " is in kallsyms"}
	}
	return IdleLoop{Why: strings.Join(why, "; ")}
}

// idleBranch finds f's call of cpuidle_not_available (at notAvail), the
// side its conditional jump takes on true, and walks from there to the
// calls of default_idle_call (at dflt): both sides of each conditional
// jump, direct jumps within f, ending at a return, a jump out of f or
// the budget. The calls named in names that lie on a path reaching
// default_idle_call give the form.
func (f *fn) idleBranch(notAvail, dflt uint64, names map[uint64]string) (IdleLoop, bool) {
	name := f.sym.Name
	call := slices.IndexFunc(f.insts, func(in inst) bool {
		t, ok := callTarget(f.sym.Addr, in)
		return ok && t == notAvail
	})
	if call < 0 {
		return IdleLoop{Why: name + " has no call of " + idleNotAvailable}, false
	}
	at := fmt.Sprintf("%s+%#x", name, f.insts[call].off)
	start, ok := f.trueSide(call)
	if !ok {
		return IdleLoop{Why: at + ": no test of its result (test %al,%al, then je or jne) follows the call"}, false
	}
	index := map[uint64]int{}
	for k, in := range f.insts {
		index[in.off] = k
	}
	// succ are an instruction's successors within f; a call of
	// default_idle_call ends its path (end). The call of
	// cpuidle_not_available is never walked again: a path round the
	// idle loop back to it would reach the true side a second time.
	succ := map[int][]int{}
	end := map[int]bool{}
	seen := map[int]bool{start: true, call: true}
	queue := []int{start}
	for len(queue) > 0 && len(seen) <= idleWalkBudget {
		k := queue[0]
		queue = queue[1:]
		in := f.insts[k]
		var next []int
		switch t, isCall := callTarget(f.sym.Addr, in); {
		case isCall && t == dflt:
			end[k] = true
		case in.Op == x86asm.RET, in.Op == x86asm.UD2, isInt3(in):
		case isJump(in.Op):
			if rel, ok := in.Args[0].(x86asm.Rel); ok {
				if j, ok := index[in.off+uint64(in.Len)+uint64(int64(rel))]; ok {
					next = append(next, j)
				}
			}
			if in.Op != x86asm.JMP && k+1 < len(f.insts) {
				next = append(next, k+1)
			}
		case k+1 < len(f.insts):
			next = append(next, k+1)
		}
		succ[k] = next
		for _, j := range next {
			if !seen[j] {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	if len(end) == 0 {
		return IdleLoop{Why: fmt.Sprintf("%s: no path from its true side reaches %s within %d instructions", at, idleDefault, idleWalkBudget)}, false
	}
	// Keep the instructions from which default_idle_call is reached:
	// iterate to a fixed point (the walk's graph is small).
	reaches := maps.Clone(end)
	for changed := true; changed; {
		changed = false
		for k, next := range succ {
			if reaches[k] {
				continue
			}
			for _, j := range next {
				if reaches[j] {
					reaches[k], changed = true, true
					break
				}
			}
		}
	}
	l := IdleLoop{At: at}
	stop, retain := false, false
	for k := range f.insts {
		t, isCall := callTarget(f.sym.Addr, f.insts[k])
		if !isCall || !reaches[k] || !seen[k] || end[k] {
			continue
		}
		if n, ok := names[t]; ok && !slices.Contains(l.Calls, n) {
			l.Calls = append(l.Calls, n)
			stop = stop || n == idleStopTick
			retain = retain || n == idleRetainTick
		}
	}
	switch {
	case retain:
		l.Tick = "after-tick"
	case stop:
		l.Tick = "stop"
	default:
		l.Why = fmt.Sprintf("%s: the way from its true side to %s calls neither %s nor %s", at, idleDefault, idleStopTick, idleRetainTick)
	}
	return l, true
}

// trueSide is the index of the first instruction run when the call at
// f.insts[call] returns true: cpuidle_not_available returns bool, tested
// as "test %al,%al" and a jne (taken on true) or je (falling through on
// true), as GCC compiles "if (cpuidle_not_available(drv, dev))".
func (f *fn) trueSide(call int) (int, bool) {
	if call+2 >= len(f.insts) {
		return 0, false
	}
	test, jcc := f.insts[call+1], f.insts[call+2]
	r0, ok0 := test.Args[0].(x86asm.Reg)
	r1, ok1 := test.Args[1].(x86asm.Reg)
	if test.Op != x86asm.TEST || !ok0 || !ok1 || r0 != x86asm.AL || r1 != x86asm.AL {
		return 0, false
	}
	switch jcc.Op {
	case x86asm.JE:
		return call + 3, call+3 < len(f.insts)
	case x86asm.JNE:
		rel, ok := jcc.Args[0].(x86asm.Rel)
		if !ok {
			return 0, false
		}
		t := jcc.off + uint64(jcc.Len) + uint64(int64(rel))
		for k, in := range f.insts {
			if in.off == t {
				return k, true
			}
		}
	}
	return 0, false
}
