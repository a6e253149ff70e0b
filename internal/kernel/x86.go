package kernel

import (
	"bytes"

	"golang.org/x/arch/x86/x86asm"
)

// endbr64 opens every function of a kernel built with IBT.
var endbr64 = []byte{0xf3, 0x0f, 0x1e, 0xfa}

// inst is one decoded instruction of a function.
type inst struct {
	off uint64 // from the function's start
	x86asm.Inst
}

// decode disassembles a function's bytes. An undecodable byte (x86asm does
// not know every newer opcode) is skipped, counted in bad: x86 code
// resynchronises within a few instructions, and no site the finder looks
// for uses such an opcode.
func decode(code []byte) (insts []inst, bad int) {
	for off := 0; off < len(code); {
		if bytes.HasPrefix(code[off:], endbr64) {
			off += len(endbr64) // x86asm does not know it
			continue
		}
		in, err := x86asm.Decode(code[off:], 64)
		if err != nil || in.Len == 0 {
			bad++
			off++
			continue
		}
		insts = append(insts, inst{uint64(off), in})
		off += in.Len
	}
	return insts, bad
}

// locked reports whether the instruction carries a LOCK prefix.
func locked(in x86asm.Inst) bool {
	for _, p := range in.Prefix {
		if p == 0 {
			break
		}
		if p&0xff == x86asm.PrefixLOCK&0xff {
			return true
		}
	}
	return false
}

// memArg returns the instruction's memory operand, if any.
func memArg(in x86asm.Inst) (x86asm.Mem, bool) {
	for _, a := range in.Args {
		if m, ok := a.(x86asm.Mem); ok {
			return m, true
		}
	}
	return x86asm.Mem{}, false
}

// ripTarget is the absolute address a RIP-relative operand names.
func ripTarget(fn uint64, in inst, m x86asm.Mem) (uint64, bool) {
	if m.Base != x86asm.RIP {
		return 0, false
	}
	return fn + in.off + uint64(in.Len) + uint64(m.Disp), true
}

// family maps a register to its 64-bit form, so that a write to eax counts
// as one to rax.
func family(r x86asm.Reg) x86asm.Reg {
	switch {
	case r >= x86asm.AL && r <= x86asm.R15B:
		return [...]x86asm.Reg{x86asm.RAX, x86asm.RCX, x86asm.RDX, x86asm.RBX, x86asm.RAX, x86asm.RCX, x86asm.RDX, x86asm.RBX,
			x86asm.RSP, x86asm.RBP, x86asm.RSI, x86asm.RDI, x86asm.R8, x86asm.R9, x86asm.R10, x86asm.R11, x86asm.R12,
			x86asm.R13, x86asm.R14, x86asm.R15}[r-x86asm.AL]
	case r >= x86asm.AX && r <= x86asm.R15W:
		return x86asm.RAX + (r - x86asm.AX)
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return x86asm.RAX + (r - x86asm.EAX)
	}
	return r
}

// lookBack bounds how far back origin searches: the compiler loads a
// site's base register a few instructions before the site, or, where it
// hoists the load above an inlined test, further: Debian 7.3.4's second
// blocked-load write in __sched_balance_update_blocked_averages loads
// cfs_rq->tg 21 instructions before the lock add, above the 1 ms test.
const lookBack = 32

// origin returns the instruction before insts[i] that last wrote reg, if
// it lies within lookBack instructions, following jumps backwards: a site
// the compiler moved out of line (GCC puts the cold branch of an if after
// the function's return) is reached by a jump, and its base is loaded
// before that jump. A call in between ends the search: it clobbers the
// caller-saved registers.
func origin(f *fn, i int, reg x86asm.Reg) (inst, bool) {
	return f.origin(i, family(reg), lookBack)
}

func (f *fn) origin(i int, reg x86asm.Reg, budget int) (inst, bool) {
	for j := i - 1; j >= 0 && budget > 0; j-- {
		for _, src := range f.jumpsTo(f.insts[j+1].off) {
			if o, ok := f.origin(src, reg, budget-1); ok {
				return o, true
			}
		}
		in := f.insts[j]
		switch in.Op {
		case x86asm.CALL, x86asm.RET:
			return inst{}, false
		case x86asm.JMP: // no fall-through into j+1
			return inst{}, false
		case x86asm.CMP, x86asm.TEST, x86asm.BT:
			budget--
			continue // they only read their operands
		}
		if r, ok := in.Args[0].(x86asm.Reg); ok && family(r) == reg {
			return in, true
		}
		budget--
	}
	return inst{}, false
}

// jumpsTo returns the indices of the jumps (conditional or not) whose
// target is off.
func (f *fn) jumpsTo(off uint64) []int {
	if f.targets == nil {
		f.targets = map[uint64][]int{}
		for k, in := range f.insts {
			if !isJump(in.Op) {
				continue
			}
			if rel, ok := in.Args[0].(x86asm.Rel); ok {
				t := in.off + uint64(in.Len) + uint64(int64(rel))
				f.targets[t] = append(f.targets[t], k)
			}
		}
	}
	return f.targets[off]
}

func isJump(op x86asm.Op) bool {
	switch op {
	case x86asm.JMP, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JNE,
		x86asm.JG, x86asm.JGE, x86asm.JL, x86asm.JLE, x86asm.JO, x86asm.JNO, x86asm.JP,
		x86asm.JNP, x86asm.JS, x86asm.JNS:
		return true
	}
	return false
}

// loadsFrom reports whether in is a load (mov) of a member at disp.
func loadsFrom(in inst, disp int64) bool {
	if in.Op != x86asm.MOV {
		return false
	}
	m, ok := in.Args[1].(x86asm.Mem)
	return ok && m.Base != x86asm.RIP && m.Disp == disp
}

// immArg returns the instruction's immediate operand as an address.
func immArg(in x86asm.Inst) (uint64, bool) {
	for _, a := range in.Args {
		if v, ok := a.(x86asm.Imm); ok {
			return uint64(v), true
		}
	}
	return 0, false
}

// callTarget is a direct call's destination.
func callTarget(fn uint64, in inst) (uint64, bool) {
	if in.Op != x86asm.CALL {
		return 0, false
	}
	rel, ok := in.Args[0].(x86asm.Rel)
	if !ok {
		return 0, false
	}
	return fn + in.off + uint64(in.Len) + uint64(int64(rel)), true
}
