// Package all registers every contend scenario. Import it for its side
// effects, as a program imports a database/sql driver:
//
//	import _ "github.com/contend/contend/bench/all"
//
// after which bench.Lookup and bench.Names know every scenario. A new
// scenario package is added here (see "Adding a scenario" in package bench).
package all

import (
	// Each registers one scenario in its init function.
	_ "github.com/contend/contend/bench/atomicadd"
	_ "github.com/contend/contend/bench/balanceflag"
	_ "github.com/contend/contend/bench/cpumask"
	_ "github.com/contend/contend/bench/idlemask"
	_ "github.com/contend/contend/bench/loadavg"
	_ "github.com/contend/contend/bench/nodemask"
	_ "github.com/contend/contend/bench/rqlayout"
	_ "github.com/contend/contend/bench/wakeup"
)
