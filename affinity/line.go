package affinity

import "sync"

// The cache line is one machine fact with one owner. The stores in counter
// lay their hot words out by it, the scenarios in bench pad by PairStride,
// and results files record it as their cacheline: all three ask this file,
// so a file can never record one size while the stores used another.

// DefaultLineSize is the line size assumed when neither CPUID nor sysfs
// says: 64 bytes, what every x86 core and most arm64 cores use.
const DefaultLineSize = 64

// PairStride is the padding that keeps a hot word alone, and the stride
// that keeps two hot words apart even from the adjacent-line prefetcher.
// Intel cores since Sandy Bridge have an L2 spatial prefetcher that, on a
// miss, also fetches the other line of the 128-byte-aligned pair, so two hot
// words 64 bytes apart still drag each other's lines between cores: a milder
// false sharing that a 64-byte layout cannot show. sync.Pool's poolLocal and
// xsync pad to 128 bytes for the same reason; it also covers the 128-byte
// lines of some arm64 parts. The cost is twice the memory per slot.
const PairStride = 128

// plausibleLine reports whether n is a line size to believe: a power of two
// from 32 to 256 bytes. Anything else (cpuid's 0 for "cannot tell", a
// garbage sysfs file) is treated as not said at all.
func plausibleLine(n int) bool { return n >= 32 && n <= 256 && n&(n-1) == 0 }

// assumedLine is the source of a DefaultLineSize nothing reported.
const assumedLine = "assumed: neither CPUID nor CTR_EL0's CWG nor sysfs coherency_line_size reports one"

// lineOf is the rule every line size follows: what the CPU itself reports
// (CPUID on x86, CTR_EL0 on arm64: Machine.CacheLine), else the
// coherency_line_size sysfs reports (sysfs, with sysfsFrom saying which
// cache's), else DefaultLineSize; and where the number came from, for
// contend topo.
func lineOf(m Machine, sysfs int, sysfsFrom string) (int, string) {
	switch {
	case plausibleLine(m.CacheLine):
		if m.CacheLineFrom != "" {
			return m.CacheLine, m.CacheLineFrom
		}
		return m.CacheLine, "cpuid"
	case plausibleLine(sysfs):
		return sysfs, sysfsFrom
	}
	return DefaultLineSize, assumedLine
}

// hostLine is the running machine's line and its source, read once: the
// same rule over the same facts Host reads, so Host().CacheLine() and
// LineSize() agree (TestLineSizeIsHosts holds them to it).
var hostLine = sync.OnceValues(func() (int, string) {
	t, err := Load("/")
	if err != nil {
		t = &Topology{}
	}
	n, from := t.sysfsLine()
	return lineOf(onHost(t.Machine), n, from)
})

// LineSize returns the running machine's cache line size in bytes, as
// Host().CacheLine() does, without building a Topology on every call.
func LineSize() int {
	n, _ := hostLine()
	return n
}

// ctrLine is the line size an arm64 CTR_EL0 gives: CWG, the cache
// writeback granule (bits 27:24, log2 of the largest line of any cache, in
// 4-byte words), as Linux's cache_line_size_of_cpu() takes it. A CWG of 0
// means the CPU does not say, and then neither do we (0): DminLine (bits
// 19:16) is only the smallest data cache line, which the coherence unit may
// exceed; QEMU's -cpu max reports CWG 0 with a 32-byte DminLine. The kernel
// then assumes ARCH_DMA_MINALIGN (128); we go on to sysfs, then 64.
func ctrLine(ctr uint64) int {
	if cwg := (ctr >> 24) & 0xf; cwg != 0 {
		return 4 << cwg
	}
	return 0
}
