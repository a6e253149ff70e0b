package vmlab

import "testing"

// TestIsVmlinuz: the kernel's path in Debian's packages, before and after
// 6.19 moved it into linux-binary-V.
func TestIsVmlinuz(t *testing.T) {
	for name, want := range map[string]bool{
		"./boot/vmlinuz-6.18.15+deb13-amd64":                 true,
		"./usr/lib/modules/7.3.4+deb13-amd64/vmlinuz":        true,
		"./boot/System.map-6.18.15+deb13-amd64":              false,
		"./usr/lib/modules/7.3.4+deb13-amd64/kernel/vmlinuz": false,
		"./usr/share/doc/vmlinuz":                            false,
	} {
		if got := isVmlinuz(name); got != want {
			t.Errorf("isVmlinuz(%q) = %v, want %v", name, got, want)
		}
	}
}
