package resultfmt

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/sys/cpu"
)

// atomicsConfig is how an arm64 binary does its atomics, as two
// configuration keys: goarm64, the GOARM64 level it was built for (the
// build setting, "v8.0" by default), and atomics, what its atomic
// operations execute: "lse" (ARMv8.1's CAS, LDADD, SWP: a single
// instruction the interconnect can perform at the line's home) or "llsc"
// (LDAXR/STLXR retry loops, which must win the line in the core's cache).
//
// A build at v8.1 or later emits LSE unconditionally. One at v8.0 does not
// emit LL/SC unconditionally: Go guards every atomic with a run-time check
// of the CPU's HWCAP_ATOMICS (cmd/compile's
// makeAtomicGuardedIntrinsicARM64), so on any CPU that has LSE (Graviton2
// and later, Ampere Altra, Grace, QEMU's -cpu max) it runs LSE too, unless
// GODEBUG=cpu.atomics=off turns the feature off for runtime and x/sys/cpu
// alike. An LSE-against-LL/SC comparison is therefore a v8.0 build run with
// GODEBUG=cpu.atomics=off against a v8.1 build (see the README's arm64
// section); both keys differ between them, so compare names the pair.
// Elsewhere there are no keys: x86 has one kind of atomic.
func atomicsConfig() [][2]string {
	if runtime.GOARCH != "arm64" {
		return nil
	}
	level := goarm64()
	return [][2]string{{"goarm64", level}, {"atomics", atomicsKind(level, cpu.ARM64.HasATOMICS)}}
}

// goarm64 is the binary's GOARM64 build setting; v8.0, the toolchain's
// default, when the build info has none.
func goarm64() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "GOARM64" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "v8.0"
}

// atomicsKind says what a binary built at level runs on a CPU that has
// (or, by GODEBUG, is said not to have) LSE: level is vX.Y with optional
// ",lse" and ",crypto" suffixes; v8.1 and later, v9.0 and later, or ",lse"
// imply LSE.
func atomicsKind(level string, hasLSE bool) string {
	base, opts, _ := strings.Cut(level, ",")
	if strings.Contains(","+opts+",", ",lse,") || levelAtLeast(base, 8, 1) || hasLSE {
		return "lse"
	}
	return "llsc"
}

// levelAtLeast reports whether "vX.Y" is at least major.minor; v9.0 is
// above every v8.
func levelAtLeast(v string, major, minor int) bool {
	ma, mi, ok := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	x, err1 := strconv.Atoi(ma)
	y, err2 := strconv.Atoi(mi)
	if !ok || err1 != nil || err2 != nil {
		return false
	}
	return x > major || x == major && y >= minor
}
