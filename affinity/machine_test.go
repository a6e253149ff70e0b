package affinity

import (
	"runtime"
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
			in: cpuid.CPUInfo{VendorString: "AuthenticAMD", BrandName: "AMD EPYC 7B13", Family: 25, Model: 1,
				CacheLine: 64, HypervisorVendorString: "KVMKVMKVM"},
			l1d: 32 << 10, l2: 512 << 10, l3: 32 << 20,
			on: []cpuid.FeatureID{cpuid.HYPERVISOR, cpuid.RDTSCP},
			want: Machine{Vendor: "AuthenticAMD", Brand: "AMD EPYC 7B13", Family: 25, Model: 1, CacheLine: 64,
				L1D: 32 << 10, L2: 512 << 10, L3: 32 << 20, Hypervisor: true, HypervisorVendor: "KVMKVMKVM", RDTSCP: true},
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
	if runtime.GOARCH != "amd64" {
		t.Skipf("CPUID facts are only checked on amd64, not %s", runtime.GOARCH)
	}
	m := hostMachine()
	if m.Vendor == "" || m.CacheLine <= 0 || !m.known() {
		t.Errorf("hostMachine() = %+v, want a vendor and a cache line size", m)
	}
	t.Logf("%+v", m)
}
