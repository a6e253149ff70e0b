package machine

import (
	"fmt"
	"path/filepath"
	"syscall"
)

// Mount mounts a kernel file system of type fstype at root's dir (e.g.
// "debugfs", "sys/kernel/debug") where the machine has none (a minimal
// guest's /init mounts neither tracefs nor cgroup2), and records
// unmounting it on u.
func Mount(u *Undo, root, fstype, dir string) error {
	target := filepath.Join(root, dir)
	if err := syscall.Mount("none", target, fstype, 0, ""); err != nil {
		return fmt.Errorf("no %s mounted, and mounting one at /%s failed: %w", fstype, dir, err)
	}
	u.Push("mount "+fstype+" /"+dir, func() error { return syscall.Unmount(target, 0) })
	return nil
}

// MountedTracefs is FindTracefs, mounting tracefs at root's
// sys/kernel/tracing first (on u) where none is mounted.
func MountedTracefs(u *Undo, root string) (*Tracefs, error) {
	if t, err := FindTracefs(root); err == nil {
		return t, nil
	}
	if err := Mount(u, root, "tracefs", "sys/kernel/tracing"); err != nil {
		return nil, err
	}
	return FindTracefs(root)
}
