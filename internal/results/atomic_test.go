package results

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFileAtomicErrors: a failed write names the path the caller gave
// and its cause, never the temporary file it would have renamed (contend
// plot -o /nodir/y.svg printed ".y.svg.2554096771.tmp").
func TestWriteFileAtomicErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
		is         error
	}{
		{filepath.Join(dir, "nodir", "y.svg"), "writing " + filepath.Join(dir, "nodir", "y.svg") + ": no such file or directory", fs.ErrNotExist},
		{filepath.Join(file, "y.svg"), "writing " + filepath.Join(file, "y.svg") + ": not a directory", nil},
		{dir, dir + " is a directory", nil},
	} {
		err := WriteFileAtomic(tc.path, []byte("x"))
		if err == nil || err.Error() != tc.want {
			t.Errorf("WriteFileAtomic(%s) = %v, want %q", tc.path, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), ".tmp") {
			t.Errorf("WriteFileAtomic(%s) names its temporary file: %v", tc.path, err)
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("WriteFileAtomic(%s) = %v, which is not %v", tc.path, err, tc.is)
		}
	}
}
