package affinity

import (
	"os"
	"testing"
)

func TestLineOf(t *testing.T) {
	tests := []struct {
		name       string
		cpuid      int
		sysfs      int
		want       int
		wantSource string
	}{
		{"cpuid wins", 64, 128, 64, "cpuid"},
		{"no cpuid", 0, 128, 128, "sysfs coherency_line_size"},
		{"cpuid garbage", 96, 64, 64, "sysfs coherency_line_size"},
		{"cpuid too big", 4096, 0, DefaultLineSize, "assumed"},
		{"nothing", 0, 0, DefaultLineSize, "assumed"},
		{"sysfs garbage", 0, 48, DefaultLineSize, "assumed"},
	}
	for _, tt := range tests {
		n, src := lineOf(Machine{CacheLine: tt.cpuid}, tt.sysfs)
		if n != tt.want || src != tt.wantSource {
			t.Errorf("%s: lineOf(cpuid %d, sysfs %d) = %d, %q; want %d, %q", tt.name, tt.cpuid, tt.sysfs, n, src, tt.want, tt.wantSource)
		}
	}
}

// TestLineSizeIsHosts: the line the stores lay their words out by
// (LineSize, which counter and bench use) is the line results files record
// (the host topology's CacheLine). If they could disagree, this fails.
func TestLineSizeIsHosts(t *testing.T) {
	if _, err := os.Stat("/sys/devices/system/cpu"); err != nil {
		t.Skipf("no sysfs here: %v", err)
	}
	topo, err := Host()
	if err != nil {
		t.Fatal(err)
	}
	n, src := topo.cacheLine()
	hn, hsrc := hostLine()
	if n != LineSize() || n != hn || src != hsrc {
		t.Errorf("Host().CacheLine() = %d (%s), LineSize() = %d (%s): the layout and the results would disagree", n, src, hn, hsrc)
	}
	if !plausibleLine(n) || PairStride%n != 0 {
		t.Errorf("line %d: want a power of two in [32, 256] dividing PairStride %d", n, PairStride)
	}
	t.Logf("cache line %d B (%s)", n, src)
}
