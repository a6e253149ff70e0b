package counter

import (
	"math/bits"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
)

// TestLineSize: counter lays its stores out by affinity's line and pair
// stride, the numbers results files record, and by no copy of its own.
func TestLineSize(t *testing.T) {
	n := LineSize()
	if n < 32 || n > 256 || bits.OnesCount(uint(n)) != 1 {
		t.Fatalf("LineSize() = %d, want a power of two in [32, 256]", n)
	}
	if n != affinity.LineSize() {
		t.Errorf("LineSize() = %d, affinity.LineSize() = %d", n, affinity.LineSize())
	}
	if got := Stride(0).Bytes(); got != affinity.LineSize() {
		t.Errorf("Stride(0).Bytes() = %d, want affinity.LineSize() = %d", got, affinity.LineSize())
	}
	if PairStride != affinity.PairStride {
		t.Errorf("PairStride = %d, want affinity.PairStride %d", PairStride, affinity.PairStride)
	}
}

func TestParseStride(t *testing.T) {
	tests := []struct {
		in      string
		want    Stride
		wantErr string
	}{
		{in: "line", want: 0},
		{in: "", want: 0},
		{in: "128", want: PairStride},
		{in: "4096", want: 4096},
		{in: "96", wantErr: "not a power of two"},
		{in: "16", wantErr: "below the cache line"},
		{in: "8192", wantErr: "above the page size"},
		{in: "x", wantErr: `stride "x"`},
		{in: "-64", wantErr: "not a power of two"},
	}
	if LineSize() == 64 {
		tests = append(tests, struct {
			in      string
			want    Stride
			wantErr string
		}{in: "64", want: 64})
	}
	for _, tt := range tests {
		got, err := ParseStride(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseStride(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseStride(%q) = %v, %v, want %v, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestCheckLayout(t *testing.T) {
	tests := []struct {
		name    string
		stride  int
		hot     []uintptr
		wantErr string
	}{
		{"apart", 64, []uintptr{0x1000, 0x1040, 0x1080}, ""},
		{"pairs apart", 128, []uintptr{0x1000, 0x1080}, ""},
		{"misaligned", 64, []uintptr{0x1008}, "not 64-byte aligned"},
		{"same line", 64, []uintptr{0x1000, 0x1000}, "share a 64-byte block"},
		{"same pair", 128, []uintptr{0x1000, 0x1040}, "not 128-byte aligned"},
		{"not power of two", 96, []uintptr{0x1000}, "not a positive power of two"},
		{"empty", 64, nil, ""},
	}
	for _, tt := range tests {
		err := CheckLayout(tt.stride, tt.hot)
		if tt.wantErr == "" && err != nil {
			t.Errorf("%s: CheckLayout(%d, %#x) = %v, want nil", tt.name, tt.stride, tt.hot, err)
		}
		if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: CheckLayout(%d, %#x) = %v, want error containing %q", tt.name, tt.stride, tt.hot, err, tt.wantErr)
		}
	}
}

func TestLayoutCheckReadMostly(t *testing.T) {
	tests := []struct {
		name    string
		l       Layout
		wantErr string
	}{
		{"apart", Layout{Stride: 64, Hot: []uintptr{0x1000}, ReadMostly: 0x1040}, ""},
		{"beside by mistake", Layout{Stride: 64, Hot: []uintptr{0x1000}, ReadMostly: 0x1008}, "shares a 64-byte block"},
		{"beside on purpose", Layout{Stride: 64, Hot: []uintptr{0x1000}, ReadMostly: 0x1008, SharesLine: true}, ""},
		{"apart but claimed shared", Layout{Stride: 64, Hot: []uintptr{0x1000}, ReadMostly: 0x1040, SharesLine: true}, "does not"},
		{"same pair", Layout{Stride: 128, Hot: []uintptr{0x1000}, ReadMostly: 0x1040}, "shares a 128-byte block"},
	}
	for _, tt := range tests {
		err := tt.l.Check()
		if tt.wantErr == "" && err != nil {
			t.Errorf("%s: Check() = %v, want nil", tt.name, err)
		}
		if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: Check() = %v, want error containing %q", tt.name, err, tt.wantErr)
		}
	}
}
