//go:build !amd64

package affinity

// goCPUName is "" where contend does not read CPUID itself: Machine.GoCPU
// then falls back to cpuid's BrandName.
func goCPUName() string { return "" }
