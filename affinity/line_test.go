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
		{"cpuid too big", 4096, 0, DefaultLineSize, assumedLine},
		{"nothing", 0, 0, DefaultLineSize, assumedLine},
		{"sysfs garbage", 0, 48, DefaultLineSize, assumedLine},
	}
	if n, src := lineOf(Machine{CacheLine: 64, CacheLineFrom: "CTR_EL0 CWG"}, 128, "x"); n != 64 || src != "CTR_EL0 CWG" {
		t.Errorf("lineOf(CTR_EL0 64, sysfs 128) = %d, %q; want 64, CTR_EL0 CWG", n, src)
	}
	for _, tt := range tests {
		n, src := lineOf(Machine{CacheLine: tt.cpuid}, tt.sysfs, "sysfs coherency_line_size")
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
	if !plausibleLine(n) {
		t.Errorf("line %d: want a power of two in [32, 256]", n)
	}
	if n > PairStride {
		// A64FX's lines are 256 bytes: a pad of PairStride keeps a hot
		// word off its neighbour's line pair on x86, not here.
		t.Logf("this machine's %d-byte line exceeds PairStride %d: padded hot words may share a line", n, PairStride)
	}
	t.Logf("cache line %d B (%s)", n, src)
}

func TestCTRLine(t *testing.T) {
	tests := []struct {
		ctr  uint64
		want int
	}{
		{0x84448004, 64},  // QEMU's Cortex-A35 and A53: CWG 4, DminLine 4
		{0x9444c004, 64},  // DIC and IDC set beside them (Neoverse)
		{0x85458005, 128}, // 128-byte lines (Apple, ThunderX)
		{0x80038003, 0},   // QEMU's -cpu max: no CWG, so no answer, whatever DminLine says
	}
	for _, tt := range tests {
		if n := ctrLine(tt.ctr); n != tt.want {
			t.Errorf("ctrLine(%#x) = %d, want %d", tt.ctr, n, tt.want)
		}
	}
}
