// Package figure draws a results file as pictures (contend plot), with
// gonum.org/v1/plot, as SVG or PNG. It is package report's sibling: report
// lays the same files out as tables and summaries, figure as pictures; both
// read them through internal/results (the reader, the confidence intervals
// of results.Summarize, the one-line syntax errors of results.OneLine), and
// neither imports the other.
//
// Two kinds, chosen by what the file holds:
//
//   - Throughput by variant, in small multiples: one panel per scenario
//     (benchmark), because scenarios' figures differ by orders of magnitude
//     and one shared axis flattens all but the fastest. The default value is
//     throughput, 1/(sec/op): contend's ns/op is elapsed time over all
//     workers' operations, so its inverse is the whole machine's operations
//     per second, the number that collapses when a cache line starts
//     bouncing between sockets. With three or more thread counts and few
//     variants a panel draws scaling curves (value against threads, a line
//     per variant); otherwise — one thread count, or more variants than
//     lines can tell apart — it draws a dot plot: a row per variant, a dot
//     per thread count. Each dot or point is the median of its runs with a
//     bar for the 95% confidence interval of that median, as benchstat
//     computes it (results.Summarize). The value axis is logarithmic when
//     the panel's values span more than a factor of 30.
//   - A heatmap, for matrix results whose names carry a CPU pair
//     (BenchmarkC2C/mode=rw/a=0/b=1): median ns/op for every a×b, one panel
//     per remaining variant. Core-to-core latency is read off a matrix: the
//     blocks along the diagonal are the sockets (or LLCs), the bright
//     off-diagonal blocks the interconnect.
//
// Every figure's header carries the machine (the cpu configuration line and
// CPUID's family and model) and the topology (real, or fake-K when the nodes
// were a split of a smaller machine), because a figure without them cannot
// be compared with anything. Figure (figure.go) lays the panels out and
// measures every piece of text so that none is cut off.
//
// The files, each using only those after it: plot.go is New, which picks
// the kind; curves.go draws the curves and dot plots, heatmap.go the
// matrices, both from measure.go's pieces (what a result is worth on the
// value axis, the median and its interval, labels, ticks); figure.go holds
// the Options, lays panels, legends and captions out on the canvas and
// renders it; textbox.go records where every string was drawn, so that
// tests can check that none leaves the canvas. output.go says which files
// contend plot writes.
package figure
