package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoopbackUp(t *testing.T) {
	for _, c := range []struct{ flags, want string }{
		{"0x9\n", ""},
		{"0x8\n", "loopback is down (lo's flags 0x8)"},
		{"zz\n", "lo's flags"},
		{"", "no loopback interface"},
	} {
		root := t.TempDir()
		if c.flags != "" {
			p := filepath.Join(root, "sys/class/net/lo/flags")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(c.flags), 0o644)
		}
		err := LoopbackUp(root)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("flags %q: %v, want %q", c.flags, err, c.want)
		}
	}
}
