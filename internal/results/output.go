package results

import (
	"bytes"
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/resultfmt"
)

// Output is where a command writes its results: stdout, or, for -o FILE
// (path), a buffer that commit writes to FILE, replacing it whole
// (WriteFileAtomic), once everything is written; a command that fails
// before commit leaves FILE as it was. keep is for a command that fails
// part way: it writes what was written so far to FILE.partial, as commit
// writes FILE, and returns that name, or "" when the results went to
// stdout or there were none. cmd prefixes the errors ("run: -o: ...").
func Output(stdout io.Writer, cmd, path string) (w io.Writer, commit func() error, keep func() (string, error)) {
	if path == "" {
		return stdout, func() error { return nil }, func() (string, error) { return "", nil }
	}
	var buf bytes.Buffer
	commit = func() error {
		if err := WriteFileAtomic(path, buf.Bytes()); err != nil {
			return fmt.Errorf("%s: -o: %w", cmd, err)
		}
		return nil
	}
	keep = func() (string, error) {
		if buf.Len() == 0 {
			return "", nil
		}
		partial := path + ".partial"
		if err := WriteFileAtomic(partial, buf.Bytes()); err != nil {
			return "", fmt.Errorf("%s: -o: %w", cmd, err)
		}
		return partial, nil
	}
	return &buf, commit, keep
}

// KeptNote says where keep put the completed runs of a command that failed
// part way (runs of them; partial and err as keep returned them).
func KeptNote(runs int, partial string, err error) string {
	if err != nil {
		return fmt.Sprintf("the %d completed runs could not be kept: %v", runs, err)
	}
	if runs == 1 {
		return "the completed run is kept in " + partial
	}
	return fmt.Sprintf("the %d completed runs are kept in %s", runs, partial)
}

// WriteRecord writes a result in the Go benchmark format, after its units'
// metadata (resultfmt.Units) when it is the first of the file.
func WriteRecord(w *benchfmt.Writer, res *bench.Result, rec *benchfmt.Result, first bool) error {
	if first {
		for _, u := range resultfmt.Units(res) {
			if err := w.Write(u); err != nil {
				return err
			}
		}
	}
	return w.Write(rec)
}
