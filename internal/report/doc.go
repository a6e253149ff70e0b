// Package report turns results files into what people read as text:
// benchstat-style tables (contend compare and contend table), the lkp, seed
// and Markdown layouts of a comparison, the sweep's one-screen summary (of
// a file, SummarizeFile, or of contend run -count's records), and contend
// run's description of one run for people (WriteRun).
// The pictures (contend plot) are package figure's, which reads the same
// files through internal/results and shares nothing else with this one.
//
// The statistics are benchstat's, built from the same public pieces of
// golang.org/x/perf: benchproc projects each result into a (unit, row, column)
// cell, benchmath summarizes each cell by its median and a distribution-free
// confidence interval for it (results.Summarize), and, when comparing,
// compares each cell with the first column's by the Mann-Whitney U-test,
// printing "~" when p exceeds the significance level. A geomean row
// summarizes each column. Numbers are scaled with benchunit, so a contend
// table and a benchstat table of the same files show the same figures.
//
// Two things differ, both because of what contend's files carry:
//
//   - Tables split by unit only, not by file configuration. Every contend
//     file records its date and commit, which differ between old and new by
//     design; benchstat's default -table .config would put old and new in
//     separate tables and compare nothing. The shared configuration is
//     printed above the tables instead, with any differing values side by
//     side. (Plain benchstat reads contend's files with -ignore date,contend.)
//   - Each unit says which way is better (the Unit ... better= lines contend
//     writes), so a significant delta is labelled better or worse.
//
// Cells whose samples include a disturbed run carry a note; the runner's
// detail units (bench.DetailUnits: worker-cv-%, max-sec and the
// disturbance figures) stay out of tables unless asked for by name. Both
// commands also write their cells as JSON (WriteJSON), and compare names
// the configuration keys that differ between the files it compares.
//
// A table without comparisons (contend table) lays out one file as variants
// down the side and thread counts across: how one variant's cost grows with
// threads reads along a row, which variant wins at a thread count down a
// column. A thread count is not a "before" for the next one, so it has no
// deltas and no geomean row.
package report
