//go:build !amd64 && !386

package affinity

// MaxLineSize is the largest cache line a CPU of this architecture has:
// 256 bytes, the largest line plausibleLine believes, which arm64's A64FX
// (CTR_EL0's CWG) and s390x have; 128 on most other arm64 servers' L3s
// and on POWER, 64 on the rest. bench.LinePad pads by at least it.
const MaxLineSize = 256
