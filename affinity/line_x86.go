//go:build amd64 || 386

package affinity

// MaxLineSize is the largest cache line a CPU of this architecture has:
// 64 bytes on x86, the line CPUID's CLFLUSH size reports on every core
// since the Pentium 4's. bench.LinePad pads by at least it.
const MaxLineSize = 64
