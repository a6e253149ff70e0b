package bench

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/counter"
)

// LinePad keeps a hot word alone on every machine of this GOARCH: it is at
// least the 128-byte line pair of Intel's adjacent-line prefetcher and the
// largest line a CPU of the architecture has (A64FX's 256 bytes on arm64),
// so at least this machine's line, and a stride of LinePad is one counter
// takes here (ParseStride refuses strides below the line: stride=128 on
// an A64FX).
func TestLinePadCoversTheLine(t *testing.T) {
	least := affinity.PairStride
	if runtime.GOARCH == "arm64" {
		least = 256 // A64FX (Fujitsu's Fugaku cores): CTR_EL0's CWG says 256
	}
	if LinePad < least {
		t.Errorf("LinePad = %d, want at least %d on %s", LinePad, least, runtime.GOARCH)
	}
	if n := affinity.LineSize(); LinePad < n || LinePad%n != 0 {
		t.Errorf("LinePad = %d, want a multiple of this machine's %d-byte line", LinePad, n)
	}
	if _, err := counter.ParseStride(strconv.Itoa(LinePad)); err != nil {
		t.Errorf("counter.ParseStride(%d): %v; want the pad a stride counter takes", LinePad, err)
	}
}
