package counter

// NewReferenceStore makes the xsync reference store for BenchmarkEvent. The
// reference lives in counter/xsyncref, which imports this package, so this
// package's own tests cannot import it; xsyncref_test.go, an external test
// file of the same test binary, sets the hook from its init.
var NewReferenceStore func() Store
