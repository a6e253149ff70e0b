// Package copylocks copies every type of package counter that must not be
// copied; TestNoCopy expects `go vet` to report each copy.
package copylocks

import "github.com/contend/contend/counter"

func Copies(a *counter.Atomic, f *counter.FalseShare, p *counter.PerNode, c *counter.PerCPU, rq *counter.CfsRq) {
	a2 := *a   // want "copies lock"
	f2 := *f   // want "copies lock"
	p2 := *p   // want "copies lock"
	c2 := *c   // want "copies lock"
	rq2 := *rq // want "copies lock"
	_, _, _, _, _ = a2, f2, p2, c2, rq2
}
