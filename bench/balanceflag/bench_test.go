package balanceflag

import (
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkBalanceFlag is sched_balance_running taken on every balance tick
// (order=cmpxchg-first, before 3324b2180c17) against taken only when the
// domain is due and this CPU is its designated balancer (order=check-first),
// and with newidle passes serialized too (order=check-first+newidle,
// 522fb20fbdbe), over the variants of a full sweep. cas/op is the cmpxchg
// count, balances/op the balancing work done (equal across orders, or the
// comparison would be unfair), hold-ns/op how long the flag was held.
// go test matches -bench one name element at a time, and the variant holds
// six, so compare the orders at two threads with
//
//	go test -run '^$' -bench 'BalanceFlag/.*/.*/.*/.*/.*/.*/threads=2/' -count 10 ./bench | tee bf.txt
//	benchstat -col /order bf.txt
func BenchmarkBalanceFlag(b *testing.B) {
	spec, err := bench.Lookup("balanceflag")
	if err != nil {
		b.Fatal(err)
	}
	benchtest.Ladder(b, "balanceflag", spec.Full)
}
