package vmlab

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// A cpioWriter writes the "newc" cpio archive the kernel unpacks as its
// initramfs (Documentation/driver-api/early-userspace/buffer-format.rst):
// a 110-byte ASCII header per entry, the name NUL-terminated, name and data
// each padded to 4 bytes, ended by an entry named TRAILER!!!. The kernel
// unpacks concatenated archives in order, so the lab writes the binaries
// once and a small archive with each guest's /init after them.
type cpioWriter struct {
	w    *bufio.Writer
	ino  int
	dirs map[string]bool
	err  error
}

func newCPIO(w io.Writer) *cpioWriter {
	return &cpioWriter{w: bufio.NewWriter(w), ino: 1, dirs: map[string]bool{"": true, ".": true, "/": true}}
}

const (
	modeDir     = 0o040000
	modeFile    = 0o100000
	modeSymlink = 0o120000
)

// entry writes one header, name and data.
func (c *cpioWriter) entry(name string, mode uint32, data []byte) {
	if c.err != nil {
		return
	}
	name = strings.TrimPrefix(name, "/")
	c.ino++
	nlink := 1
	if mode&0o170000 == modeDir {
		nlink = 2
	}
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(name)+1, 0)
	c.write([]byte(hdr))
	c.write([]byte(name + "\x00"))
	c.pad(len(hdr) + len(name) + 1)
	c.write(data)
	c.pad(len(data))
}

func (c *cpioWriter) write(b []byte) {
	if c.err == nil {
		_, c.err = c.w.Write(b)
	}
}

func (c *cpioWriter) pad(n int) {
	if r := n % 4; r != 0 {
		c.write(make([]byte, 4-r))
	}
}

// mkdirAll writes the directories above and at dir not yet written.
func (c *cpioWriter) mkdirAll(dir string) {
	dir = strings.TrimPrefix(path.Clean("/"+dir), "/")
	if c.dirs[dir] {
		return
	}
	c.mkdirAll(path.Dir(dir))
	c.dirs[dir] = true
	c.entry(dir, modeDir|0o755, nil)
}

// File writes a regular file, and the directories above it.
func (c *cpioWriter) File(name string, perm uint32, data []byte) {
	c.mkdirAll(path.Dir("/" + name))
	c.entry(name, modeFile|perm, data)
}

// CopyFile writes the host file src as name.
func (c *cpioWriter) CopyFile(name, src string, perm uint32) {
	if c.err != nil {
		return
	}
	data, err := os.ReadFile(src)
	if err != nil {
		c.err = err
		return
	}
	c.File(name, perm, data)
}

// Symlink writes name pointing at target.
func (c *cpioWriter) Symlink(name, target string) {
	c.mkdirAll(path.Dir("/" + name))
	c.entry(name, modeSymlink|0o777, []byte(target))
}

// Close writes the trailer and flushes.
func (c *cpioWriter) Close() error {
	c.entry("TRAILER!!!", 0, nil)
	if c.err == nil {
		c.err = c.w.Flush()
	}
	return c.err
}
