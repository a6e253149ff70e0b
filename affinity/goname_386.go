package affinity

// goCPUName is "" on 386, where contend does not read CPUID itself: Machine.GoCPU
// then falls back to cpuid's BrandName.
func goCPUName() string { return "" }
