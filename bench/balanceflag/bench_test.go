package balanceflag

import (
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkBalanceFlag is sched_balance_running taken on every balance
// softirq that reaches the NUMA domain (order=cmpxchg-first, before
// 3324b2180c17) against taken only when the domain is due and this CPU is its
// designated balancer (order=check-first), and with newidle passes
// serialized too (order=check-first+newidle, 522fb20fbdbe), over the variants
// of a full sweep, stressed (pace=off) and at the kernel's tick rate
// (pace=on, where each benchmark takes at least a tick per b.N/workers).
// cas/op is the cmpxchg count, flag-% the share of the workers' time on the
// flag, hold-sec/op how long it was held; balances/op, newidle-balances/op
// and stops/op are checks the orders must agree on. go test matches -bench
// one name element at a time, and the variant holds twelve, so compare the
// orders at two threads with
//
//	go test -run '^$' -bench 'BalanceFlag/order=/pace=on/phase=/hz=/span=/group=/smt=/cs=/interval=/newidle=/work=/release=/threads=2/' -count 5 ./bench/balanceflag | tee bf.txt
//	benchstat -col /order bf.txt
func BenchmarkBalanceFlag(b *testing.B) {
	spec, err := bench.Lookup("balanceflag")
	if err != nil {
		b.Fatal(err)
	}
	benchtest.Ladder(b, "balanceflag", spec.Full)
}
