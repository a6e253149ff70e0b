package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data, or leaves it as it was. It writes
// a temporary file in the target's own directory (so the rename cannot cross
// file systems) and renames it over path only once everything is written:
// a failed run never leaves a truncated plot where a good one stood.
func WriteFileAtomic(path string, data []byte) (err error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		mode = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		// The temporary file's name is ours, not the user's: say what
		// went wrong with the path they gave ("no such file or
		// directory" for a missing directory), keeping the cause.
		return fmt.Errorf("writing %s: %w", path, pathCause(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, pathCause(err))
	}
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, pathCause(err))
	}
	// Without the sync a crash soon after the rename can leave path
	// empty on ext4 and xfs: the rename reaches the disk before the data.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, pathCause(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, pathCause(err))
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, pathCause(err))
	}
	return nil
}

// pathCause strips the *os.PathError or *os.LinkError around err, whose
// message names a temporary file, and returns the cause (which errors.Is
// still matches: fs.ErrNotExist, fs.ErrPermission).
func pathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
