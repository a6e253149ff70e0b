package vmlab

import (
	"bytes"
	"strconv"
	"testing"
)

// readNewc is a small reader for the newc format, enough to check the
// writer: name → (mode, data).
func readNewc(t *testing.T, b []byte) map[string]struct {
	mode uint64
	data string
} {
	t.Helper()
	out := map[string]struct {
		mode uint64
		data string
	}{}
	field := func(h []byte, i int) uint64 {
		v, err := strconv.ParseUint(string(h[6+8*i:14+8*i]), 16, 32)
		if err != nil {
			t.Fatalf("header field %d: %v", i, err)
		}
		return v
	}
	pad := func(n int) int { return (n + 3) &^ 3 }
	for off := 0; ; {
		h := b[off : off+110]
		if string(h[:6]) != "070701" {
			t.Fatalf("offset %d: magic %q", off, h[:6])
		}
		mode, size, nameSize := field(h, 1), int(field(h, 6)), int(field(h, 11))
		name := string(b[off+110 : off+110+nameSize-1])
		off = pad(off + 110 + nameSize)
		data := string(b[off : off+size])
		off = pad(off + size)
		if name == "TRAILER!!!" {
			if off != len(b) {
				t.Fatalf("%d bytes after the trailer", len(b)-off)
			}
			return out
		}
		out[name] = struct {
			mode uint64
			data string
		}{mode, data}
	}
}

func TestCPIO(t *testing.T) {
	var buf bytes.Buffer
	c := newCPIO(&buf)
	c.File("bin/contend", 0o755, []byte("elf!"))
	c.Symlink("bin/sh", "busybox")
	c.File("init", 0o755, []byte("#!/bin/sh\n"))
	c.mkdirAll("tmp")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	got := readNewc(t, buf.Bytes())
	for name, want := range map[string]struct {
		mode uint64
		data string
	}{
		"bin":         {modeDir | 0o755, ""},
		"bin/contend": {modeFile | 0o755, "elf!"},
		"bin/sh":      {modeSymlink | 0o777, "busybox"},
		"init":        {modeFile | 0o755, "#!/bin/sh\n"},
		"tmp":         {modeDir | 0o755, ""},
	} {
		if got[name] != want {
			t.Errorf("%s = %o %q, want %o %q", name, got[name].mode, got[name].data, want.mode, want.data)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d entries, want 5: %v", len(got), got)
	}
}

func TestCPIOCopyFileError(t *testing.T) {
	c := newCPIO(&bytes.Buffer{})
	c.CopyFile("x", "/nonexistent/vmlab", 0o644)
	if err := c.Close(); err == nil {
		t.Error("Close after a failed CopyFile succeeded")
	}
}
