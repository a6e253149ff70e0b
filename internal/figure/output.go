package figure

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/contend/contend/internal/results"
)

// An Output is one file contend plot writes: its path, and its format as
// Render takes it (svg or png).
type Output struct{ Path, Format string }

// Outputs resolves contend plot's -o (out) and -format into the files to
// write for the results file input: -o's extension says the format unless
// -format does, and without -o the figure goes beside the input, with .svg
// (or both extensions for -format both).
func Outputs(out, format, input string) ([]Output, error) {
	ext := strings.ToLower(filepath.Ext(out))
	stem := strings.TrimSuffix(out, filepath.Ext(out))
	if out == "" {
		if input == "-" {
			return nil, errors.New("-o: needed when reading standard input")
		}
		stem, ext = strings.TrimSuffix(input, filepath.Ext(input)), ""
	}
	switch format {
	case "":
		switch ext {
		case ".svg", ".png":
			return []Output{{out, ext[1:]}}, nil
		case "":
			return []Output{{stem + ".svg", "svg"}}, nil
		}
		return nil, fmt.Errorf("-o %s: unknown extension %q (want .svg or .png, or set -format)", out, ext)
	case "svg", "png":
		if ext != "" && ext != "."+format {
			return nil, fmt.Errorf("-o %s: does not match -format %s", out, format)
		}
		return []Output{{stem + "." + format, format}}, nil
	case "both":
		if ext != "" && ext != ".svg" && ext != ".png" {
			stem = out
		}
		return []Output{{stem + ".svg", "svg"}, {stem + ".png", "png"}}, nil
	}
	return nil, fmt.Errorf("-format %q: want svg, png or both", format)
}

// WriteFiles renders the figure in every output's format before writing
// any, so that a failure leaves every existing output as it was, then
// replaces each file whole (results.WriteFileAtomic), saying on w what it
// wrote. A write's error starts "-o: ", as the flag that named the file.
func (f *Figure) WriteFiles(w io.Writer, outs []Output) error {
	data := make([][]byte, len(outs))
	for i, o := range outs {
		var err error
		if data[i], err = f.Render(o.Format); err != nil {
			return err
		}
	}
	for i, o := range outs {
		if err := results.WriteFileAtomic(o.Path, data[i]); err != nil {
			return fmt.Errorf("-o: %w", err)
		}
		fmt.Fprintf(w, "wrote %s (%s)\n", o.Path, f.What)
	}
	return nil
}
