package main

import (
	"errors"
	"io"

	"github.com/contend/contend/internal/reproduce"
	"github.com/contend/contend/internal/results"
)

// kernelReproduce is reproduce -from's part for contend kernel count's
// results files: finding 1's real-kernel rows (6.1 → 6.12, writes per
// event before and after, ratio, verdict). done says the file held
// kernel counts and nothing reproduce runs, so there is nothing else to
// judge; a file of kernel counts with no workload counted on both sides
// of the rate limit is an error saying so.
func kernelReproduce(stdout io.Writer, set *results.Set) (done bool, err error) {
	rows, counted := reproduce.KernelRows(set)
	if !counted {
		return false, nil
	}
	_, envErr := reproduce.EnvFromResults(set)
	if len(rows) == 0 {
		if envErr != nil {
			return true, errors.New("reproduce: -from: the kernel counts are of one side only: finding 1's real-kernel row needs the same workload counted on a kernel without the 1 ms rate limit (6.1) and one with it (6.12)")
		}
		return false, nil
	}
	reproduce.WriteKernelRows(stdout, rows)
	return envErr != nil, nil
}
