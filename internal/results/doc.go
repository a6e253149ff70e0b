// Package results is contend's results library above the runner: how a
// sweep's results are kept and how results are read back, grouped and
// summarized. What a result is called and what it carries — provenance,
// names, records, Unit lines — is written by bench/resultfmt, below the
// scenarios that need it; this package builds on it.
//
//   - Durable files (file.go, atomic.go): a sweep's File appends each result
//     to FILE.partial and fsyncs it before the next run, renaming it to FILE
//     only when complete, so no result is lost and no existing file is
//     half-written; WriteFileAtomic replaces a file or leaves it alone.
//   - Reading (read.go): a Set of results from files, through benchfmt's
//     reader as benchstat reads them, with a malformed line an error, not a
//     warning, and the name and configuration keys the results carry.
//   - JSON (json.go): one object per result for scripts (NewJSON); and
//     Disturbed (disturbed.go), the rule that says from a file whether a
//     result was a disturbed run, as the run itself decided it.
//   - Statistics (summary.go): Summarize, the one summary of a
//     configuration's samples (median and confidence interval, benchmath's)
//     that tables, plots and reproduce's findings all use.
//   - Output (output.go): where a command's results go, stdout or a file
//     replaced whole once they are all written (FILE.partial keeps what a
//     failed run -count completed), and WriteRecord, a result's benchmark
//     line after its units' metadata.
package results
