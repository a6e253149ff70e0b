package kernel

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// byteMem is kernel memory as one run of bytes from base.
type byteMem struct {
	base uint64
	b    []byte
}

func (m byteMem) ReadAt(p []byte, vaddr uint64) error {
	if vaddr < m.base || vaddr+uint64(len(p)) > m.base+uint64(len(m.b)) {
		return fmt.Errorf("nothing at %#x (+%d)", vaddr, len(p))
	}
	copy(p, m.b[vaddr-m.base:])
	return nil
}

// call is a direct call at pc to dst: e8 and the rel32 from the next
// instruction.
func call(pc, dst uint64) []byte {
	b := []byte{0xe8, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[1:], uint32(int32(int64(dst)-int64(pc+5))))
	return b
}

// TestCauseProbes: each cause on the function kallsyms has (a GCC clone
// under its suffix), the inlined ones named missing, and the passes on an
// idle cpu's behalf at _nohz_idle_balance's direct calls of the pass, not
// at its calls of anything else.
func TestCauseProbes(t *testing.T) {
	const (
		host  = 0xffffffff81000000
		pass  = 0xffffffff81000040
		other = 0xffffffff81000100
	)
	syms, err := ReadKallsyms(strings.NewReader(`ffffffff81000000 t _nohz_idle_balance.isra.0
ffffffff81000040 t sched_balance_domains
ffffffff81000080 t sched_balance_softirq
ffffffff810000c0 T nohz_run_idle_balance
ffffffff81000100 t sched_balance_update_blocked_averages
ffffffff81000140 T after_all
ffffffff81000180 T tick_nohz_idle_stop_tick
ffffffff810001c0 T scheduler_tick
ffffffff81000200 t task_tick_idle
`))
	if err != nil {
		t.Fatal(err)
	}
	code := append([]byte{0xf3, 0x0f, 0x1e, 0xfa}, call(host+4, pass)...) // endbr64; call sched_balance_domains
	code = append(code, 0x90)                                             // nop
	code = append(code, call(host+10, other)...)                          // call sched_balance_update_blocked_averages
	code = append(code, call(host+15, pass)...)                           // call sched_balance_domains
	code = append(code, 0xc3)
	code = append(code, make([]byte, 0x40-len(code))...)
	in := Input{Syms: syms, Mem: byteMem{host, code}}

	probes, err := causeProbes(in, "sched_balance_domains")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"softirq":       "sched_balance_softirq",
		"nohz-walk":     "_nohz_idle_balance.isra.0",
		"nohz-softirq":  "",
		"nohz-run-idle": "nohz_run_idle_balance",
		"nohz-newidle":  "",
		"kick":          "",
		"kick-ipi":      "",
		"tick-stop":     "",
		// The idle loop's asks: 6.16's kallsyms has both; this one
		// only the stop.
		"idle-stop-asks": "tick_nohz_idle_stop_tick",
		"idle-retains":   "",
		// The tick under its name before v6.10.
		"tick":      "scheduler_tick",
		"idle-tick": "task_tick_idle",
		"on-behalf": "_nohz_idle_balance.isra.0+0x4,_nohz_idle_balance.isra.0+0xf",
	}
	if len(probes) != len(CauseWhat) {
		t.Fatalf("causeProbes: %d causes, want %d", len(probes), len(CauseWhat))
	}
	for _, p := range probes {
		if got := strings.Join(p.targets, ","); got != want[p.cause] {
			t.Errorf("causeProbes: %s at %q, want %q", p.cause, got, want[p.cause])
		}
		if (p.why == "") != (want[p.cause] != "") {
			t.Errorf("causeProbes: %s: why %q with targets %v", p.cause, p.why, p.targets)
		}
	}

	// Inlined into the walk: no call to count the passes at, said so.
	inl := Input{Syms: syms, Mem: byteMem{host, append([]byte{0x90, 0xc3}, make([]byte, 0x3e)...)}}
	calls, why, err := callsOf(inl, "_nohz_idle_balance", "sched_balance_domains")
	if err != nil || calls != nil || !strings.Contains(why, "no direct call of sched_balance_domains") {
		t.Errorf("callsOf(inlined) = %v, %q, %v; want none, and why", calls, why, err)
	}
	if _, why, _ := callsOf(in, "_nohz_idle_balance", ""); !strings.Contains(why, "no pass function") {
		t.Errorf("callsOf(no pass function): why %q", why)
	}
}

// TestReadCauses: a cause's hits are its probes' sum; one not counted
// stays -1.
func TestReadCauses(t *testing.T) {
	cs := []Cause{{Name: "softirq", Hits: 0}, {Name: "kick", Hits: -1, Why: "inlined"}, {Name: "on-behalf", Hits: 0}}
	readCauses(cs, map[string]uint64{causeEvent(0, 0): 7, causeEvent(2, 0): 3, causeEvent(2, 1): 4, causeEvent(1, 0): 99},
		map[string]uint64{causeEvent(2, 1): 1})
	if cs[0].Hits != 7 || cs[1].Hits != -1 || cs[2].Hits != 7 || cs[2].Miss != 1 {
		t.Errorf("readCauses = %+v, want softirq 7, kick -1, on-behalf 7 (1 missed)", cs)
	}
	c := &Counted{BalanceCauses: cs}
	if n, ok := c.CauseHits("on-behalf"); !ok || n != 7 {
		t.Errorf("CauseHits(on-behalf) = %d, %v", n, ok)
	}
	if _, ok := c.CauseHits("kick"); ok {
		t.Errorf("CauseHits(kick): counted, want not")
	}
}
