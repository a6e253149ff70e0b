// Package resultfmt writes contend's results: what a run's result is called
// and what it carries, in the Go benchmark format benchstat reads.
//
//   - Provenance (provenance.go): the configuration lines that make two
//     files comparable (machine, kernel, nodes, topology real or fake-K,
//     cache line, governor, hypervisor, Go, contend's commit), a file's
//     command and date lines (FileConfig), and the pkg line go test prints
//     (WithPackage).
//   - Names (name.go): the full benchmark name of a configuration — the one
//     go test gives its sub-benchmark, -GOMAXPROCS suffix included
//     (WithProcs, the one place that suffix is written) — so sweep files,
//     contend c2c's files and go test output name it alike.
//   - Records and units (record.go): the benchmark-format record of a
//     bench.Result, and the Unit metadata lines that tell benchstat which
//     way is better.
//
// It sits under bench/ because the layer that makes results writes them:
// bench/benchtest prints the provenance and Unit lines at the top of go
// test -bench output, and bench/c2c writes its own files. Reading,
// grouping and comparing results is internal/results', which builds on
// this package; nothing here imports anything under internal/.
package resultfmt
