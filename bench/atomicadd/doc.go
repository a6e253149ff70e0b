// Package atomicadd is the smallest contended structure there is, registered
// as the scenario "atomicadd": every operation is one atomic add, either to
// one word all workers share (line=shared: the line bounces between CPUs on
// every add) or to a word of the worker's own (line=private: the same
// instruction with no coherence traffic). Its ratio is the price of one
// contended line on this machine, and its private variant is what
// BenchmarkRunner measures the runner's overhead with.
package atomicadd
