package kernel

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// A Site is one instruction of the running kernel that touches a contended
// word.
type Site struct {
	Kind string `json:"kind"` // which word and access; see Kinds
	Func string `json:"func"` // the symbol the instruction lies in
	Off  uint64 `json:"off"`  // from the symbol
	Addr uint64 `json:"addr"` // absolute, as kallsyms places the symbol
	Inst string `json:"inst"` // the instruction, in GNU syntax as objdump prints it
	// Word is the address of the word when it is static (sched_balance_running,
	// balancing, nohz.nr_cpus); 0 for a word reached through a pointer.
	Word uint64 `json:"word,omitempty"`
	// Next is the address of the instruction after this one when it runs
	// exactly as often (no branch here, no jump lands there), else 0: a
	// breakpoint there counts the site without sharing its address with
	// a kprobe on it.
	Next uint64 `json:"next,omitempty"`
	// Via names the function whose inlined body holds the site where that
	// is not Func: "update_load_avg" for a tg->load_avg write (or its
	// 1 ms test) GCC inlined with update_load_avg() into a caller (Debian
	// 7.0 on: enqueue_task_fair, task_tick_fair, ...), read from the call
	// before it (inlineVia). Empty for a site in Func's own code.
	Via string `json:"via,omitempty"`
}

func (s Site) String() string {
	return fmt.Sprintf("%s+%#x\t%s", s.Func, s.Off, s.Inst)
}

// A Miss is a kind the finder did not find, and why.
type Miss struct {
	Kind string `json:"kind"`
	Why  string `json:"why"`
}

// Kinds are the sites, in the order they are reported: what each writes
// (or tests), as the kernel source names it.
var Kinds = []struct{ Name, What string }{
	{"tg-load-avg", "lock add to tg->load_avg (update_tg_load_avg, inlined)"},
	{"tg-runnable-avg", "lock add to tg->runnable_avg, beside load_avg on its line (update_tg_load_avg, 7.3)"},
	{"tg-load-avg-limit", "the 1 ms test: now - cfs_rq->last_update_tg_load_avg < NSEC_PER_MSEC (v6.7+)"},
	{"balance-running", "lock cmpxchg of sched_balance_running (sched_balance_domains; sched_balance_rq since 3324b2180c17)"},
	{"balance-running-release", "store of 0 to sched_balance_running"},
	{"balancing-trylock", "spin_trylock(&balancing) in rebalance_domains (the flag's predecessor)"},
	{"balancing-unlock", "spin_unlock(&balancing)"},
	{"nohz-idle-mask", "lock bts/btr of nohz.idle_cpus_mask"},
	{"nohz-nr-cpus", "lock inc/dec of nohz.nr_cpus"},
	{"nr-busy-cpus", "lock inc/dec of sd_llc_shared->nr_busy_cpus"},
	{"cpupri-count", "lock inc/dec of cpupri_vec.count (cpupri_set)"},
	{"cpupri-mask", "lock bts/btr of cpupri_vec.mask (cpupri_set)"},
}

// hosts are the functions each group of kinds is searched in, under every
// name they have had (v6.10 renamed the balancer's functions sched_balance_*).
// A host the kernel inlined is simply absent from kallsyms; its code is
// then inside another host.
var (
	loadAvgHosts = []string{
		"update_load_avg", "update_blocked_averages", "sched_balance_update_blocked_averages",
		"__sched_balance_update_blocked_averages", // split out of the above by v7.3
		"__update_blocked_fair", "attach_entity_cfs_rq", "detach_entity_cfs_rq",
		"attach_task_cfs_rq", "detach_task_cfs_rq", "task_change_group_fair",
		"switched_from_fair", "switched_to_fair", "propagate_entity_cfs_rq",
		"enqueue_entity", "dequeue_entity", "migrate_task_rq_fair",
		// update_load_avg's callers, where GCC inlines it (Debian 7.0 on:
		// a guest's watchpoints saw 1.56× the writes of the sites above,
		// and objdump -d of 7.2.12 and 7.3.4 finds lock adds to
		// [cfs_rq->tg + load_avg] in these).
		"enqueue_task_fair", "dequeue_task_fair", "dequeue_entities", "__dequeue_task",
		"task_tick_fair", "set_next_task_fair", "put_prev_task_fair", "pick_next_task_fair",
		"pick_task_fair", "rq_offline_fair", "__sched_group_set_shares", "sched_group_set_shares",
	}
	// The balancer's serialisation moved: rebalance_domains' spinlock
	// (to v6.8), sched_balance_domains' atomic flag (v6.9, renamed
	// v6.10), and since 3324b2180c17 ("Skip sched_balance_running
	// cmpxchg when balance is not due", v6.19, backported to 6.18.y) the
	// flag is taken in sched_balance_rq (load_balance before v6.10), after
	// the interval test and should_we_balance(). sched_balance_newidle
	// reaches it too (522fb20fbdbe) where GCC inlines sched_balance_rq.
	balanceHosts = []string{"sched_balance_domains", "rebalance_domains", "sched_balance_rq", "load_balance", "sched_balance_newidle", "newidle_balance"}
	nohzHosts    = []string{"nohz_balance_enter_idle", "nohz_balance_exit_idle", "set_cpu_sd_state_idle", "set_cpu_sd_state_busy"}
	cpupriHosts  = []string{"cpupri_set"}
)

// nsecPerMsecMinus1 is how GCC writes "delta < NSEC_PER_MSEC" for an
// unsigned delta: cmp $999999 then jbe.
const nsecPerMsecMinus1 = 1_000_000 - 1

// Input is what the finder reads: all of it comes from the running
// kernel (BTF, kallsyms, kcore), or from a fixture made of the same.
type Input struct {
	Layout *Layout
	Syms   *Symbols
	Mem    Memory
}

// Report is the finder's answer.
type Report struct {
	Sites   []Site `json:"sites"`
	Missing []Miss `json:"missing"`
	// Undecoded counts bytes x86asm could not decode, per host scanned.
	Undecoded map[string]int `json:"undecoded,omitempty"`
	// Patched lists int3 instructions inside a host's code, not the
	// padding after a ret or jmp: a kprobe (contend's own from a killed
	// run, or another tool's) or a debugger's breakpoint, over the first
	// byte of an instruction that may be a site, now hidden.
	Patched []string `json:"patched,omitempty"`
	Scanned []string `json:"scanned"` // hosts found in kallsyms and disassembled
	// Forms name, per word found, the shape its code has in this kernel
	// (where the balancer takes its flag, whether nohz keeps a counter),
	// read from the text and BTF, with the change that made it so.
	Forms map[string]string `json:"forms,omitempty"`
	// RQ are struct rq's groups of hot fields and their lines (BTF).
	RQ []RQGroup `json:"rq,omitempty"`
	// Idle is the idle loop's form without a cpuidle driver (idle.go):
	// whether its tick stops at every iteration.
	Idle IdleLoop `json:"idle_loop"`
}

// fn is one host, disassembled.
type fn struct {
	sym     Symbol
	insts   []inst
	targets map[uint64][]int // jump target offset -> jumps' indices, built on first use
}

// Find disassembles the hosts and matches every kind. It reads only the
// hosts' bytes; a host kallsyms does not list is skipped, one whose bytes
// cannot be read is an error.
func Find(in Input) (*Report, error) {
	r := &Report{Undecoded: map[string]int{}, Forms: map[string]string{}}
	cache := map[string]*fn{}
	load := func(hosts []string) ([]*fn, error) {
		var fns []*fn
		for _, h := range hosts {
			if f, ok := cache[h]; ok {
				if f != nil {
					fns = append(fns, f)
				}
				continue
			}
			sym, size, ok := in.Syms.Func(h)
			if !ok {
				cache[h] = nil
				continue
			}
			code := make([]byte, size)
			if err := in.Mem.ReadAt(code, sym.Addr); err != nil {
				return nil, fmt.Errorf("reading %s: %w", sym.Name, err)
			}
			insts, bad := decode(code)
			for _, off := range patched(insts) {
				r.Patched = append(r.Patched, fmt.Sprintf("%s+%#x", sym.Name, off))
			}
			if bad > 0 {
				r.Undecoded[sym.Name] = bad
			}
			f := &fn{sym: sym, insts: insts}
			cache[h] = f
			r.Scanned = append(r.Scanned, sym.Name)
			fns = append(fns, f)
		}
		return fns, nil
	}
	// symname names call targets and RIP-relative words, as objdump
	// would with symbols.
	// Only kernel-half addresses: kallsyms puts per-cpu symbols at 0, and
	// an immediate 0 is no reference to __per_cpu_start.
	symname := func(addr uint64) (string, uint64) {
		s, ok := in.Syms.At(addr)
		if !ok || addr < 1<<63 || addr-s.Addr > maxFunc {
			return "", 0
		}
		return s.Name, s.Addr
	}
	found := map[string]bool{}
	add := func(kind string, f *fn, i int, word uint64) {
		in := f.insts[i]
		pc := f.sym.Addr + in.off
		var next uint64
		if i+1 < len(f.insts) && !isJump(in.Op) && in.Op != x86asm.CALL && in.Op != x86asm.RET && len(f.jumpsTo(f.insts[i+1].off)) == 0 {
			next = f.sym.Addr + f.insts[i+1].off
		}
		r.Sites = append(r.Sites, Site{
			Kind: kind, Func: f.sym.Name, Off: in.off, Addr: pc, Word: word, Next: next,
			Inst: x86asm.GNUSyntax(in.Inst, pc, symname),
		})
		found[kind] = true
	}
	miss := map[string]string{}
	none := func(hosts []string) string {
		return "none of " + strings.Join(hosts, ", ") + " is in kallsyms"
	}
	// scannedIn is what a kind's "no instruction of a known form" names:
	// the hosts of its own group that were read, not every group's.
	scannedIn := map[string][]string{}
	scanned := func(fns []*fn, kinds ...string) {
		for _, f := range fns {
			for _, k := range kinds {
				scannedIn[k] = append(scannedIn[k], f.sym.Name)
			}
		}
	}
	absent := func(why string) string { return "not in this kernel: " + why }

	l := in.Layout
	// tg->load_avg: lock add reg, [base+TGLoadAvg], base loaded from
	// [cfs_rq+CfsRqTG]; and the rate limit's cmp.
	fns, err := load(loadAvgHosts)
	if err != nil {
		return nil, err
	}
	scanned(fns, "tg-load-avg", "tg-load-avg-limit")
	haveTG, whyTG := l.Has("task_group.load_avg", "cfs_rq.tg")
	for _, f := range fns {
		for i, in := range f.insts {
			if haveTG && isAtomicAdd(in) {
				if m, ok := memArg(in.Inst); ok && m.Base != x86asm.RIP && m.Index == 0 && m.Disp == l.TGLoadAvg {
					if o, ok := origin(f, i, m.Base); ok && loadsFrom(o, l.CfsRqTG) {
						add("tg-load-avg", f, i, 0)
					}
				}
				if m, ok := memArg(in.Inst); ok && l.TGRunnableAvg >= 0 && m.Base != x86asm.RIP && m.Index == 0 && m.Disp == l.TGRunnableAvg {
					if o, ok := origin(f, i, m.Base); ok && loadsFrom(o, l.CfsRqTG) {
						add("tg-runnable-avg", f, i, 0)
					}
				}
			}
			if l.CfsRqLastUpdateTG >= 0 && in.Op == x86asm.CMP {
				if v, ok := in.Args[1].(x86asm.Imm); ok && v == nsecPerMsecMinus1 && readsNear(f.insts, i, l.CfsRqLastUpdateTG) {
					add("tg-load-avg-limit", f, i, 0)
				}
			}
		}
	}
	markInlinedULA(r.Sites, fns, in.Syms)
	switch {
	case !haveTG:
		miss["tg-load-avg"] = absent(whyTG)
	case len(fns) == 0:
		miss["tg-load-avg"] = none(loadAvgHosts)
	}
	if l.TGRunnableAvg < 0 {
		miss["tg-runnable-avg"] = "not in this kernel: struct task_group has no runnable_avg (Debian 7.3.4's sits 8 bytes past load_avg, added to beside it)"
	} else if line := l.TGLoadAvg / 64; l.TGRunnableAvg/64 == line && l.TGLoadAvg >= 0 {
		r.Forms["tg-runnable-avg"] = fmt.Sprintf("on load_avg's line: task_group+%#x and +%#x, two locked writes to one line per update", l.TGLoadAvg, l.TGRunnableAvg)
	} else {
		r.Forms["tg-runnable-avg"] = fmt.Sprintf("on a line of its own: task_group+%#x, load_avg at +%#x", l.TGRunnableAvg, l.TGLoadAvg)
	}
	if l.CfsRqLastUpdateTG < 0 {
		miss["tg-load-avg-limit"] = "not in this kernel: struct cfs_rq has no last_update_tg_load_avg (the 1 ms limit is v6.7's)"
	}

	// The balancer's serialisation: an atomic flag (v6.9+) or a spinlock.
	fns, err = load(balanceHosts)
	if err != nil {
		return nil, err
	}
	scanned(fns, "balance-running", "balance-running-release", "balancing-trylock", "balancing-unlock")
	flag, haveFlag := in.Syms.Lookup("sched_balance_running")
	lock, haveLock := in.Syms.Lookup("balancing")
	trylock, _ := in.Syms.Lookup("_raw_spin_trylock")
	unlock, _ := in.Syms.Lookup("_raw_spin_unlock")
	var cas *fn // the function and index of the first cmpxchg of the flag, whose guard names the form
	casAt := 0
	for _, f := range fns {
		for i, in := range f.insts {
			m, hasMem := memArg(in.Inst)
			target, rip := ripTarget(f.sym.Addr, in, m)
			switch {
			case haveFlag && hasMem && rip && target == flag.Addr && locked(in.Inst) && in.Op == x86asm.CMPXCHG:
				add("balance-running", f, i, flag.Addr)
				if cas == nil {
					cas, casAt = f, i
				}
			case haveFlag && hasMem && rip && target == flag.Addr && in.Op == x86asm.MOV && isZeroImm(in.Inst):
				add("balance-running-release", f, i, flag.Addr)
			case haveLock && in.Op == x86asm.CALL:
				dst, ok := callTarget(f.sym.Addr, in)
				if !ok || (dst != trylock.Addr && dst != unlock.Addr) || !argIs(f, i, x86asm.RDI, lock.Addr) {
					continue
				}
				if dst == trylock.Addr {
					add("balancing-trylock", f, i, lock.Addr)
				} else {
					add("balancing-unlock", f, i, lock.Addr)
				}
			}
		}
	}
	switch {
	case len(fns) == 0:
		miss["balance-running"] = none(balanceHosts)
	case haveFlag:
		for _, k := range []string{"balancing-trylock", "balancing-unlock"} {
			miss[k] = "not in this kernel: the atomic flag sched_balance_running replaced the spinlock balancing"
		}
		r.Forms["balance-running"] = balanceForm(cas, casAt)
	case haveLock:
		for _, k := range []string{"balance-running", "balance-running-release"} {
			miss[k] = "not in this kernel: it serialises balancing with the spinlock balancing, taken by trylock"
		}
		if found["balancing-trylock"] {
			r.Forms["balancing-trylock"] = "spinlock: spin_trylock(&balancing) in rebalance_domains, before the interval test: every pass over an SD_SERIALIZE domain takes the lock's line (to v6.8)"
		}
	default:
		miss["balance-running"] = "kallsyms has neither sched_balance_running nor balancing (no CONFIG_KALLSYMS_ALL?)"
	}

	// nohz: the idle mask (a pointer with CPUMASK_OFFSTACK, else inline),
	// nr_cpus, and the LLC's nr_busy_cpus.
	fns, err = load(nohzHosts)
	if err != nil {
		return nil, err
	}
	scanned(fns, "nohz-idle-mask", "nohz-nr-cpus", "nr-busy-cpus")
	nohz, haveNohz := in.Syms.Lookup("nohz")
	haveNohzStruct, whyNohz := l.Has(".idle_cpus_mask", "cpumask_var_t")
	haveBusy, whyBusy := l.Has("sched_domain.shared", "sched_domain_shared.nr_busy_cpus")
	for _, f := range fns {
		for i, in := range f.insts {
			if !locked(in.Inst) {
				continue
			}
			m, ok := memArg(in.Inst)
			if !ok {
				continue
			}
			target, rip := ripTarget(f.sym.Addr, in, m)
			switch {
			case haveNohz && haveNohzStruct && isBitOp(in) && nohzMask(f, i, m, target, rip, nohz.Addr, l):
				add("nohz-idle-mask", f, i, 0)
			case haveNohz && l.NohzNrCPUs >= 0 && isAtomicAdd(in) && rip && target == nohz.Addr+uint64(l.NohzNrCPUs):
				add("nohz-nr-cpus", f, i, target)
			case haveBusy && isAtomicAdd(in) && !rip && m.Disp == l.SDSNrBusyCPUs:
				if o, ok := origin(f, i, m.Base); ok && loadsFrom(o, l.SDShared) {
					add("nr-busy-cpus", f, i, 0)
				}
			}
		}
	}
	switch {
	case !haveNohzStruct:
		miss["nohz-idle-mask"] = absent(whyNohz)
		miss["nohz-nr-cpus"] = miss["nohz-idle-mask"]
	case l.NohzNrCPUs < 0:
		miss["nohz-nr-cpus"] = "not in this kernel: nohz has no nr_cpus (removed 2026-01, 5d86d542f68f: the mask's weight replaced it)"
		r.Forms["nohz-idle-mask"] = "mask weight: no counter beside the mask; readers take cpumask_weight(nohz.idle_cpus_mask) (5d86d542f68f)"
	default:
		r.Forms["nohz-idle-mask"] = fmt.Sprintf("counter and mask: nohz.nr_cpus (nohz+%d) inc/dec beside each bts/btr of the mask (before 5d86d542f68f)", l.NohzNrCPUs)
	}
	switch {
	case !haveBusy:
		miss["nr-busy-cpus"] = absent(whyBusy)
	case l.SDSUtilAvg >= 0 && l.SDSUtilAvg/64 == l.SDSNrBusyCPUs/64:
		// Cache-aware scheduling (CONFIG_SCHED_CACHE, on in Debian 7.2's
		// config) keeps the LLC's utilisation in the same struct.
		r.Forms["nr-busy-cpus"] = fmt.Sprintf("shares its line with the LLC's util_avg (sched_domain_shared+%d and +%d): cache-aware scheduling's words, written by the load balancer (CONFIG_SCHED_CACHE)", l.SDSNrBusyCPUs, l.SDSUtilAvg)
	}
	if len(fns) == 0 {
		miss["nohz-idle-mask"] = none(nohzHosts)
	} else if !haveNohz {
		miss["nohz-idle-mask"] = "kallsyms has no nohz (no CONFIG_KALLSYMS_ALL?)"
		miss["nohz-nr-cpus"] = miss["nohz-idle-mask"]
	}

	// cpupri_set: the vector's count and mask.
	fns, err = load(cpupriHosts)
	if err != nil {
		return nil, err
	}
	scanned(fns, "cpupri-count", "cpupri-mask")
	for _, f := range fns {
		for i, in := range f.insts {
			m, ok := memArg(in.Inst)
			if !ok || !locked(in.Inst) || m.Base == x86asm.RIP || l.CpupriVecCount < 0 || l.CpupriVecMask < 0 || l.Absent["cpumask_var_t"] != "" {
				continue
			}
			switch {
			case isAtomicAdd(in) && m.Disp == l.CpupriVecCount:
				add("cpupri-count", f, i, 0)
			case isBitOp(in) && maskBase(f, i, m, l.CpupriVecMask, l.CpumaskOffstack):
				add("cpupri-mask", f, i, 0)
			}
		}
	}
	for _, k := range []string{"cpupri-count", "cpupri-mask"} {
		if ok, why := l.Has("cpumask_var_t"); !ok {
			miss[k] = absent(why)
		} else if l.CpupriVecCount < 0 || l.CpupriVecMask < 0 {
			miss[k] = "not in this kernel: BTF has no struct cpupri_vec with count and mask"
		} else if len(fns) == 0 {
			miss[k] = none(cpupriHosts)
		}
	}

	r.RQ = rqGroups(l.RQ)
	r.Idle = findIdleLoop(in)
	for _, k := range Kinds {
		if found[k.Name] {
			continue
		}
		why, ok := miss[k.Name]
		if !ok {
			why = "no instruction of a known form in " + strings.Join(scannedIn[k.Name], ", ")
		}
		r.Missing = append(r.Missing, Miss{k.Name, why})
	}
	order := map[string]int{}
	for i, k := range Kinds {
		order[k.Name] = i
	}
	sort.SliceStable(r.Sites, func(i, j int) bool { return order[r.Sites[i].Kind] < order[r.Sites[j].Kind] })
	return r, nil
}

// isAtomicAdd is a locked add, sub, xadd, inc or dec to memory: how
// atomic_add, atomic_inc and their kin compile.
func isAtomicAdd(in inst) bool {
	if !locked(in.Inst) {
		return false
	}
	switch in.Op {
	case x86asm.ADD, x86asm.SUB, x86asm.XADD, x86asm.INC, x86asm.DEC:
		return true
	}
	return false
}

// isBitOp is a locked bts or btr: set_bit and clear_bit.
func isBitOp(in inst) bool {
	return locked(in.Inst) && (in.Op == x86asm.BTS || in.Op == x86asm.BTR)
}

func isZeroImm(in x86asm.Inst) bool {
	v, ok := in.Args[1].(x86asm.Imm)
	return ok && v == 0
}

// readsNear reports whether one of the few instructions before insts[i]
// reads a member at disp: the rate limit's subtraction of
// last_update_tg_load_avg from now.
func readsNear(insts []inst, i int, disp int64) bool {
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if m, ok := memArg(insts[j].Inst); ok && m.Base != x86asm.RIP && m.Disp == disp {
			return true
		}
	}
	return false
}

// argIs reports whether reg holds addr at the call insts[i]: set by a mov
// of the address as an immediate, or by a RIP-relative lea.
func argIs(f *fn, i int, reg x86asm.Reg, addr uint64) bool {
	o, ok := origin(f, i, reg)
	if !ok {
		return false
	}
	switch o.Op {
	case x86asm.MOV:
		v, ok := immArg(o.Inst)
		return ok && v == addr
	case x86asm.LEA:
		m, _ := o.Args[1].(x86asm.Mem)
		t, ok := ripTarget(f.sym.Addr, o, m)
		return ok && t == addr
	}
	return false
}

// nohzMask reports whether a bit operation's operand is nohz.idle_cpus_mask:
// with CPUMASK_OFFSTACK the mask's bits are behind a pointer loaded from
// nohz; without it they lie in nohz itself.
func nohzMask(f *fn, i int, m x86asm.Mem, target uint64, rip bool, nohz uint64, l *Layout) bool {
	at := nohz + uint64(l.NohzIdleCPUsMask)
	if !l.CpumaskOffstack {
		return rip && target == at
	}
	if rip || m.Disp != 0 {
		return false
	}
	o, ok := origin(f, i, m.Base)
	if !ok || o.Op != x86asm.MOV {
		return false
	}
	src, _ := o.Args[1].(x86asm.Mem)
	t, ok := ripTarget(f.sym.Addr, o, src)
	return ok && t == at
}

// maskBase reports whether a bit operation's operand is a struct's
// cpumask_var_t member at disp: through the pointer loaded from it with
// CPUMASK_OFFSTACK, else in place.
func maskBase(f *fn, i int, m x86asm.Mem, disp int64, offstack bool) bool {
	if !offstack {
		return m.Disp == disp
	}
	o, ok := origin(f, i, m.Base)
	return ok && m.Disp == 0 && loadsFrom(o, disp)
}

// patched returns the offsets of the int3s that are not padding: one after
// a ret, a jmp or another int3 (the kernel pads with int3, and follows
// indirect jumps and returns with one against straight-line speculation)
// is the compiler's; any other was written over an instruction.
func patched(insts []inst) []uint64 {
	var offs []uint64
	for i, in := range insts {
		if !isInt3(in) || i == 0 {
			continue
		}
		switch prev := insts[i-1]; {
		case isInt3(prev), prev.Op == x86asm.RET, prev.Op == x86asm.JMP, prev.Op == x86asm.UD2, prev.Op == x86asm.UD1:
			continue
		}
		offs = append(offs, in.off)
	}
	return offs
}

// isInt3 is the one-byte int3 (0xcc), which x86asm decodes as INT 3.
func isInt3(in inst) bool {
	v, ok := in.Args[0].(x86asm.Imm)
	return in.Op == x86asm.INT && in.Len == 1 && ok && v == 3
}

// balanceForm names where this kernel takes sched_balance_running, from
// the host its cmpxchg (f.insts[i]; f nil where none was found) lies in. In
// sched_balance_domains it precedes the interval test, as v6.9's atomic
// flag kept the spinlock's place (Tim Chen's first versions of the fix,
// which put the test first there, were not merged: 3324b2180c17 as merged
// moved the cmpxchg into sched_balance_rq). In sched_balance_rq it follows
// the interval test and should_we_balance(), so only the domain's
// balancing cpu, when due, writes the flag's line; and which passes take
// it is read from the tests that guard it (newlyIdleGuard): 3324b2180c17
// guarded it with "idle != CPU_NEWLY_IDLE", periodic passes only, and
// 522fb20fbdbe ("Have SD_SERIALIZE affect newidle balancing") dropped
// that test, so newidle passes over an SD_SERIALIZE domain take it too.
// Both landed in v6.19 and came to 6.18.y in one stable review
// (2026-02-09). kernel model maps the three forms to balanceflag's orders
// cmpxchg-first, check-first and check-first+newidle.
func balanceForm(f *fn, i int) string {
	if f == nil {
		return "sched_balance_running is in kallsyms, but no cmpxchg of it was found"
	}
	name := f.sym.Name
	switch name {
	case "sched_balance_domains", "rebalance_domains":
		return "cmpxchg before the interval test: " + name + " takes the flag on every pass over an SD_SERIALIZE domain, due or not (v6.9 to 3324b2180c17)"
	}
	const checkFirst = "interval test and should_we_balance() before the cmpxchg: in "
	if off, ok := newlyIdleGuard(f, i); ok {
		return fmt.Sprintf(checkFirst+"%s, taken only by the domain's balancing cpu when due, by periodic passes only: idle != CPU_NEWLY_IDLE guards it (%s+%#x; 3324b2180c17 before 522fb20fbdbe)", name, name, off)
	}
	return checkFirst + name + ", taken only by the domain's balancing cpu when due, by newidle passes too: no test of idle against CPU_NEWLY_IDLE guards it (3324b2180c17 and 522fb20fbdbe, v6.19; 6.18.y)"
}

// cpuNewlyIdle is CPU_NEWLY_IDLE, enum cpu_idle_type's third value
// (include/linux/sched/idle.h, 2 before and after v6.10 swapped
// CPU_IDLE and __CPU_NOT_IDLE).
const cpuNewlyIdle = 2

// guardWindow bounds how far back from the flag's cmpxchg its guard is
// read: 3324b2180c17's "!need_unlock && (sd->flags & SD_SERIALIZE) &&
// idle != CPU_NEWLY_IDLE" is three tests and their branches, and Debian
// 6.18.15 to 7.3.4 (all after 522fb20fbdbe) compile the two left as
// cmpb $0 (need_unlock), testb $0x4,0x3d(sd) (SD_SERIALIZE), and the
// cmpxchg's own xor and mov: 8 instructions, 10 with the idle test.
const guardWindow = 12

// newlyIdleGuard returns the offset of a compare of something with
// CPU_NEWLY_IDLE among the straight-line instructions just before the
// cmpxchg at f.insts[i], back to the nearest call, return or jmp (the
// end of the code before the guard: should_we_balance()'s tail) or
// guardWindow instructions. should_we_balance()'s own "env->idle ==
// CPU_NEWLY_IDLE" lies before that call in every Debian kernel read. A
// compiler that threaded that earlier test into the guard, jumping past
// the cmpxchg on newidle passes with no compare left before it, would
// read as the newidle form: where it matters, confirm with the kernel's
// source (Debian's linux-source holds fair.c as built).
func newlyIdleGuard(f *fn, i int) (uint64, bool) {
	for j := i - 1; j >= 0 && j >= i-guardWindow; j-- {
		in := f.insts[j]
		switch in.Op {
		case x86asm.CALL, x86asm.RET, x86asm.JMP:
			return 0, false
		case x86asm.CMP:
			if v, ok := in.Args[1].(x86asm.Imm); ok && v == cpuNewlyIdle {
				return in.off, true
			}
		}
	}
	return 0, false
}

// ulaMarkers are the calls that tell which body a tg->load_avg write
// inlined into a caller belongs to: update_load_avg() ages the entity
// first (__update_load_avg_se(), out of line in pelt.c) and writes after
// update_cfs_rq_load_avg(); the direct callers that write without it
// attach or detach an entity first (attach_entity_load_avg(),
// detach_entity_load_avg(): attach_entity_cfs_rq(),
// detach_entity_cfs_rq()), or follow an earlier write
// (__update_blocked_fair()'s own update_tg_load_avg() after the group
// entity's update_load_avg()). Checked against the DWARF inline chains of
// Debian 7.2.12's and 7.3.4's -dbg vmlinux (TestInlinedULA).
var ulaMarkers = map[string]string{
	"__update_load_avg_se":   "update_load_avg",
	"attach_entity_load_avg": "",
	"detach_entity_load_avg": "",
}

// markInlinedULA sets Via on the tg->load_avg sites (and their 1 ms
// tests) that lie in update_load_avg()'s body inlined into another host:
// walking back from the site, the nearest marker call is
// __update_load_avg_se(), with no other write to tg->load_avg between.
func markInlinedULA(sites []Site, fns []*fn, syms *Symbols) {
	byName := map[string]*fn{}
	for _, f := range fns {
		byName[f.sym.Name] = f
	}
	// Each host's writes to tg->load_avg, by offset: a walk back that
	// meets one has left the site's own copy.
	writes := map[string]map[uint64]bool{}
	for _, st := range sites {
		if st.Kind == "tg-load-avg" {
			if writes[st.Func] == nil {
				writes[st.Func] = map[uint64]bool{}
			}
			writes[st.Func][st.Off] = true
		}
	}
	for k := range sites {
		st := &sites[k]
		f := byName[st.Func]
		if f == nil || st.Kind != "tg-load-avg" && st.Kind != "tg-load-avg-limit" || baseName(st.Func) == "update_load_avg" {
			continue
		}
		st.Via = inlineVia(f, st.Off, writes[st.Func], syms)
	}
}

// inlineVia is the body a site at off in f belongs to, by the nearest
// marker call before it (ulaMarkers); "" where that is none, an attach or
// detach, or another of f's tg->load_avg writes (writes) comes first.
func inlineVia(f *fn, off uint64, writes map[uint64]bool, syms *Symbols) string {
	i := sort.Search(len(f.insts), func(i int) bool { return f.insts[i].off >= off })
	for j := i - 1; j >= 0; j-- {
		in := f.insts[j]
		if writes[in.off] {
			return ""
		}
		t, ok := callTarget(f.sym.Addr, in)
		if !ok {
			continue
		}
		if s, ok := syms.At(t); ok && s.Addr == t {
			if via, ok := ulaMarkers[baseName(s.Name)]; ok {
				return via
			}
		}
	}
	return ""
}

// baseName is a symbol's name without GCC's clone suffix (name.isra.0,
// name.constprop.0, name.part.0).
func baseName(name string) string {
	b, _, _ := strings.Cut(name, ".")
	return b
}
