package affinity

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

func TestMachineFrom(t *testing.T) {
	tests := []struct {
		name        string
		in          cpuid.CPUInfo
		l1d, l2, l3 int // cpuid.CPUInfo.Cache, an anonymous struct
		on          []cpuid.FeatureID
		want        Machine
	}{
		{
			name: "kvm guest",
			in: cpuid.CPUInfo{VendorString: "AuthenticAMD", BrandName: "AMD EPYC 7B13", Family: 25, Model: 1, Stepping: 1,
				CacheLine: 64, HypervisorVendorString: "KVMKVMKVM"},
			l1d: 32 << 10, l2: 512 << 10, l3: 32 << 20,
			on: []cpuid.FeatureID{cpuid.HYPERVISOR, cpuid.RDTSCP},
			want: Machine{Vendor: "AuthenticAMD", Brand: "AMD EPYC 7B13", Family: 25, Model: 1, Stepping: 1, CacheLine: 64,
				L1D: 32 << 10, L2: 512 << 10, L3: 32 << 20, Hypervisor: true, HypervisorVendor: "KVMKVMKVM", RDTSCP: true,
				GoCPU: "AMD EPYC 7B13"},
		},
		{
			// cpuid says -1 for a cache it could not detect; we say 0.
			name: "undetected",
			in:   cpuid.CPUInfo{VendorString: "GenuineIntel", Family: 6, Model: 85},
			l1d:  -1, l2: -1, l3: -1,
			want: Machine{Vendor: "GenuineIntel", Family: 6, Model: 85},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Cache.L1D, in.Cache.L2, in.Cache.L3 = tt.l1d, tt.l2, tt.l3
			in.Enable(tt.on...)
			if got := machineFrom(&in); got != tt.want {
				t.Errorf("machineFrom = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestHostMachine(t *testing.T) {
	if runtime.GOARCH == "arm64" {
		// No CPUID: the CPU says at most its line size, from CTR_EL0's
		// CWG (QEMU's -cpu max reports none).
		m := hostMachine()
		if m.known() || m.CacheLine != 0 && (!plausibleLine(m.CacheLine) || m.CacheLineFrom != "CTR_EL0 CWG") {
			t.Errorf("hostMachine() = %+v, want at most a line size from CTR_EL0 and no identity (that is sysfs's midr_el1)", m)
		}
		t.Logf("%+v", m)
		return
	}
	if runtime.GOARCH != "amd64" {
		t.Skipf("CPUID facts are only checked on amd64, not %s", runtime.GOARCH)
	}
	m := hostMachine()
	if m.Vendor == "" || m.CacheLine <= 0 || !m.known() {
		t.Errorf("hostMachine() = %+v, want a vendor and a cache line size", m)
	}
	t.Logf("%+v", m)
}

func TestGoBrand(t *testing.T) {
	pad := func(s string) []byte { // 48 bytes, as CPUID leaves 0x80000002-4 hold them
		b := make([]byte, 48)
		copy(b, s)
		return b
	}
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		// AMD pads with spaces up to the terminating NUL; Go keeps them.
		{pad("AMD EPYC 7B13 64-Core Processor                "), "AMD EPYC 7B13 64-Core Processor                "},
		// Older Intel parts right-align the name: Go trims leading spaces.
		{pad("       Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz"), "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz"},
		{pad("AMD EPYC"), "AMD EPYC"},
		{pad(""), ""},
	} {
		if got := goBrand(tc.in); got != tc.want {
			t.Errorf("goBrand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestGoCPUMatchesGoTest runs this test binary's own benchmark and reads the
// "cpu:" line the testing package prints: Machine.GoCPU must be that line's
// value to the byte, or contend's results and go test's would not group
// together in benchstat.
func TestGoCPUMatchesGoTest(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("contend reads the brand string itself only on amd64, not %s", runtime.GOARCH)
	}
	if testing.Short() {
		t.Skip("starts a child test binary")
	}
	out, err := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkNothing$", "-test.benchtime=1x").Output()
	if err != nil {
		t.Fatalf("running the benchmark: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "cpu: "); ok {
			if got := hostMachine().GoCPU; got != v {
				t.Errorf("Machine.GoCPU = %q, go test prints cpu: %q", got, v)
			}
			return
		}
	}
	t.Fatalf("go test printed no cpu: line:\n%s", out)
}

func BenchmarkNothing(b *testing.B) {
	for b.Loop() {
	}
}

func TestHypervisorName(t *testing.T) {
	for _, tt := range []struct{ vendor, want string }{
		{"KVMKVMKVM", "KVM"}, {"Microsoft Hv", "Hyper-V"}, {"VMwareVMware", "VMware"}, {"XenVMMXenVMM", "Xen"}, {"TCGTCGTCGTCG", "QEMU TCG"},
		{"", "a hypervisor"}, {"yes", "a hypervisor"}, {"ACRNACRNACRN", "ACRNACRNACRN"},
		{"bhyve bhyve ", "bhyve"}, {" lrpepyh  vr", "lrpepyh vr"}, {"   ", "a hypervisor"},
	} {
		if got := HypervisorName(tt.vendor); got != tt.want {
			t.Errorf("HypervisorName(%q) = %q, want %q", tt.vendor, got, tt.want)
		}
	}
}
