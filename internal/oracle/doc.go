// Package oracle holds contend's models up against the kernel's own counts
// and writes those counts down: the text and the benchmark-format results
// file of contend kernel count (WriteText, WriteResults), and contend
// kernel model's table, which reads such files back (ReadCounts), feeds
// each count's measured rates to simulate loadavg (modelConfig) and sets
// the model's figures beside the kernel's (WriteModelTable).
//
// It is apart from package kernel because the two are different ideas:
// kernel finds the sites in the kernel's text and counts them on a live
// machine (root, perf, kprobes, cgroups); oracle only reads and writes what
// a count found, and compares it with a model, so it runs anywhere, on
// files. cmd/contend keeps only the flags and the wiring between them.
package oracle
