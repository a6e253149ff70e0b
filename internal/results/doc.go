// Package results is contend's results library: what a run's result is
// called, what it carries, how it is kept and how it is read back.
//
//   - Provenance and naming (provenance.go, record.go): the configuration
//     lines that make two files comparable (machine, kernel, nodes, topology
//     real or fake-K, cache line, governor, hypervisor, Go, contend's
//     commit), the full benchmark name of a configuration — the one go test
//     gives its sub-benchmark, so sweep files and go test files name it
//     alike — and the Go benchmark format record of a bench.Result with its
//     Unit metadata.
//   - Durable files (file.go, atomic.go): a sweep's File appends each result
//     to FILE.partial and fsyncs it before the next run, renaming it to FILE
//     only when complete, so no result is lost and no existing file is
//     half-written; WriteFileAtomic replaces a file or leaves it alone.
//   - Reading (read.go): a Set of results from files, through benchfmt's
//     reader as benchstat reads them, with a malformed line an error, not a
//     warning, and the name and configuration keys the results carry.
//   - JSON (json.go): one object per result for scripts (NewJSON); and
//     Disturbed (record.go), the rule that says from a file whether a
//     result was a disturbed run, as the run itself decided it.
//   - Statistics (summary.go): Summarize, the one summary of a
//     configuration's samples (median and confidence interval, benchmath's)
//     that tables, plots and reproduce's findings all use.
package results
