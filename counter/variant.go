package counter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Errors that parse and validation errors wrap, for errors.Is.
var (
	ErrUnknown = errors.New("unknown")
	ErrRange   = errors.New("out of range")
	ErrSyntax  = errors.New("syntax error")
)

// StoreKind names a storage.
type StoreKind uint8

const (
	StoreAtomic     StoreKind = iota // one atomic on a dedicated line
	StoreFalseShare                  // the atomic beside read-mostly fields
	StorePerNode                     // one slot per NUMA node
	StorePerCPU                      // one slot per CPU
)

var storeNames = [...]string{"atomic", "falseshare", "pernode", "percpu"}

const storeList = "atomic, falseshare, pernode, percpu"

func (k StoreKind) String() string {
	if int(k) < len(storeNames) {
		return storeNames[k]
	}
	return "store(" + strconv.Itoa(int(k)) + ")"
}

// ParseStore parses a storage name.
func ParseStore(s string) (StoreKind, error) {
	for i, n := range storeNames {
		if s == n {
			return StoreKind(i), nil
		}
	}
	return 0, fmt.Errorf("store %q: %w (valid: %s)", s, ErrUnknown, storeList)
}

// WriteKind names a write policy, the shape of update_tg_load_avg.
type WriteKind uint8

const (
	WriteEvery     WriteKind = iota // push when |delta| > contrib/64
	WriteThreshold                  // push when |delta| > contrib/N
	WriteRateLimit                  // as every, at most once per period
	WriteDelay                      // as every, but removed load waits
)

var writeNames = [...]string{"every", "threshold", "ratelimit", "delay"}

const writeList = "every, threshold=N, ratelimit=D, delay"

func (k WriteKind) String() string {
	if int(k) < len(writeNames) {
		return writeNames[k]
	}
	return "write(" + strconv.Itoa(int(k)) + ")"
}

// Limits of the policies' parameters. A divisor or a skip count beyond a
// million, or a period beyond a second, is a typo rather than an
// experiment: loads are around 1024 per task, so contrib/N is already 0
// long before N reaches 1<<20, and a rate limit of a second turns the group
// weight into a once-a-second guess (the kernel's is a millisecond).
const (
	KernelDivisor = 64               // the kernel's threshold: contrib/64, about 1.5%
	DefaultPeriod = time.Millisecond // the merged rate limit: NSEC_PER_MSEC
	MinPeriod     = time.Microsecond
	MaxPeriod     = time.Second
	MaxDivisor    = 1 << 20
	DefaultSkip   = 2 // patch 4 drops the dequeue half of the reads
	MaxSkip       = 1 << 20
)

// WritePolicy is a write policy with its parameter. Zero parameters mean
// the defaults (divisor 64, period 1ms); parsing always fills them in.
type WritePolicy struct {
	Kind WriteKind
	// Divisor is N of threshold=N; every other policy uses the kernel's 64.
	Divisor int64
	// Period is D of ratelimit=D.
	Period time.Duration
}

func (w WritePolicy) divisor() int64 {
	if w.Kind != WriteThreshold || w.Divisor == 0 {
		return KernelDivisor
	}
	return w.Divisor
}

func (w WritePolicy) period() time.Duration {
	if w.Period == 0 {
		return DefaultPeriod
	}
	return w.Period
}

// Validate checks the policy's parameters.
func (w WritePolicy) Validate() error {
	switch w.Kind {
	case WriteEvery, WriteDelay:
	case WriteThreshold:
		if w.Divisor != 0 && (w.Divisor < 1 || w.Divisor > MaxDivisor) {
			return fmt.Errorf("threshold divisor %d %w [1, %d]", w.Divisor, ErrRange, MaxDivisor)
		}
	case WriteRateLimit:
		if w.Period != 0 && (w.Period < MinPeriod || w.Period > MaxPeriod) {
			return fmt.Errorf("ratelimit period %s %w [%s, %s]", formatDuration(w.Period), ErrRange,
				formatDuration(MinPeriod), formatDuration(MaxPeriod))
		}
	default:
		return fmt.Errorf("write kind %d: %w (valid: %s)", w.Kind, ErrUnknown, writeList)
	}
	if w.Kind != WriteThreshold && w.Divisor != 0 && w.Divisor != KernelDivisor {
		return fmt.Errorf("write %s takes no divisor (got %d)", w.Kind, w.Divisor)
	}
	if w.Kind != WriteRateLimit && w.Period != 0 {
		return fmt.Errorf("write %s takes no period (got %s)", w.Kind, formatDuration(w.Period))
	}
	return nil
}

// String returns the policy as ParseWrite reads it; the rate limit's
// default period is left out ("ratelimit" is ratelimit=1ms).
func (w WritePolicy) String() string {
	switch w.Kind {
	case WriteThreshold:
		return "threshold=" + strconv.FormatInt(w.divisor(), 10)
	case WriteRateLimit:
		if w.period() == DefaultPeriod {
			return "ratelimit"
		}
		return "ratelimit=" + formatDuration(w.Period)
	}
	return w.Kind.String()
}

// ParseWrite parses every, threshold=N, ratelimit, ratelimit=D or delay.
// D is a Go duration ("500us", "2ms") in [1us, 1s]; N is in [1, 1<<20].
func ParseWrite(s string) (WritePolicy, error) {
	name, arg, hasArg := strings.Cut(s, "=")
	switch name {
	case "every", "delay":
		if hasArg {
			return WritePolicy{}, fmt.Errorf("write %q: %w: %s takes no value", s, ErrSyntax, name)
		}
		k := WriteEvery
		if name == "delay" {
			k = WriteDelay
		}
		return WritePolicy{Kind: k, Divisor: KernelDivisor}, nil
	case "threshold":
		if !hasArg {
			return WritePolicy{}, fmt.Errorf("write %q: %w: threshold needs a divisor, as in threshold=16", s, ErrSyntax)
		}
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return WritePolicy{}, fmt.Errorf("write %q: divisor %q: %w: %w", s, arg, ErrSyntax, err)
		}
		if n < 1 || n > MaxDivisor {
			return WritePolicy{}, fmt.Errorf("write %q: divisor %d %w [1, %d]", s, n, ErrRange, MaxDivisor)
		}
		return WritePolicy{Kind: WriteThreshold, Divisor: n}, nil
	case "ratelimit":
		d := DefaultPeriod
		if hasArg {
			var err error
			d, err = time.ParseDuration(arg)
			if err != nil {
				return WritePolicy{}, fmt.Errorf("write %q: period %q: %w: %w", s, arg, ErrSyntax, err)
			}
			if d < MinPeriod || d > MaxPeriod {
				return WritePolicy{}, fmt.Errorf("write %q: period %s %w [%s, %s]", s, formatDuration(d), ErrRange,
					formatDuration(MinPeriod), formatDuration(MaxPeriod))
			}
		}
		return WritePolicy{Kind: WriteRateLimit, Divisor: KernelDivisor, Period: d}, nil
	}
	return WritePolicy{}, fmt.Errorf("write %q: %w (valid: %s)", s, ErrUnknown, writeList)
}

// formatDuration writes d in the largest whole unit, in ASCII ("500us",
// not Duration.String's "500µs"), so benchmark names stay grep-able.
func formatDuration(d time.Duration) string {
	switch {
	case d != 0 && d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d != 0 && d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	case d != 0 && d%time.Microsecond == 0:
		return strconv.FormatInt(int64(d/time.Microsecond), 10) + "us"
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// ReadKind names a read policy, when update_cfs_group computes the shares.
type ReadKind uint8

const (
	ReadEvery ReadKind = iota // on every event
	ReadSkip                  // on one event in K
)

var readNames = [...]string{"every", "skip"}

const readList = "every, skip=K"

func (k ReadKind) String() string {
	if int(k) < len(readNames) {
		return readNames[k]
	}
	return "read(" + strconv.Itoa(int(k)) + ")"
}

// ReadPolicy is a read policy with its parameter. K zero means
// DefaultSkip; parsing always fills it in.
type ReadPolicy struct {
	Kind ReadKind
	// K is K of skip=K: the shares are computed on one event in K.
	K int
}

func (r ReadPolicy) k() int {
	switch {
	case r.Kind != ReadSkip:
		return 1
	case r.K == 0:
		return DefaultSkip
	}
	return r.K
}

// Validate checks the policy's parameter.
func (r ReadPolicy) Validate() error {
	switch r.Kind {
	case ReadEvery:
		if r.K != 0 && r.K != 1 {
			return fmt.Errorf("read every takes no K (got %d)", r.K)
		}
	case ReadSkip:
		if r.K != 0 && (r.K < 1 || r.K > MaxSkip) {
			return fmt.Errorf("skip K %d %w [1, %d]", r.K, ErrRange, MaxSkip)
		}
	default:
		return fmt.Errorf("read kind %d: %w (valid: %s)", r.Kind, ErrUnknown, readList)
	}
	return nil
}

// String returns the policy as ParseRead reads it; the default K is left
// out ("skip" is skip=2).
func (r ReadPolicy) String() string {
	if r.Kind == ReadSkip && r.k() != DefaultSkip {
		return "skip=" + strconv.Itoa(r.k())
	}
	return r.Kind.String()
}

// ParseRead parses every, skip or skip=K with K in [1, 1<<20].
func ParseRead(s string) (ReadPolicy, error) {
	name, arg, hasArg := strings.Cut(s, "=")
	switch name {
	case "every":
		if hasArg {
			return ReadPolicy{}, fmt.Errorf("read %q: %w: every takes no value", s, ErrSyntax)
		}
		return ReadPolicy{Kind: ReadEvery}, nil
	case "skip":
		if !hasArg {
			return ReadPolicy{Kind: ReadSkip, K: DefaultSkip}, nil
		}
		k, err := strconv.Atoi(arg)
		if err != nil {
			return ReadPolicy{}, fmt.Errorf("read %q: K %q: %w: %w", s, arg, ErrSyntax, err)
		}
		if k < 1 || k > MaxSkip {
			return ReadPolicy{}, fmt.Errorf("read %q: K %d %w [1, %d]", s, k, ErrRange, MaxSkip)
		}
		return ReadPolicy{Kind: ReadSkip, K: k}, nil
	}
	return ReadPolicy{}, fmt.Errorf("read %q: %w (valid: %s)", s, ErrUnknown, readList)
}

// Variant is one configuration of tg->load_avg: where it is stored, when
// writers push, when readers read.
type Variant struct {
	Store StoreKind
	Write WritePolicy
	Read  ReadPolicy
}

// Validate checks all three parts.
func (v Variant) Validate() error {
	if int(v.Store) >= len(storeNames) {
		return fmt.Errorf("store kind %d: %w (valid: %s)", v.Store, ErrUnknown, storeList)
	}
	if err := v.Write.Validate(); err != nil {
		return err
	}
	return v.Read.Validate()
}

// String returns the benchmark form, "store=pernode/write=ratelimit/read=every",
// which ParseVariant reads back. No value ends in -<digits>, which
// benchstat would take for a GOMAXPROCS suffix.
func (v Variant) String() string {
	return "store=" + v.Store.String() + "/write=" + v.Write.String() + "/read=" + v.Read.String()
}

// presets are the thread's labels. The v1 series was cumulative, each patch
// on top of the one before, and every changelog's table compares against
// base, so node is patch 2, delay is patches 2+3, skip is patches 2+3+4.
// The v2 labels name what they say: rate is the rate limit alone (what was
// merged, on the dedicated-line atomic), rate+node and rate+skip add one
// v1 idea each, which is how Aaron Lu found that "as long as 'ratelimit'
// patch is there, adding those two other optimizations doesn't improve
// performance further".
var presets = []struct {
	name string
	v    Variant
}{
	{"base", Variant{StoreAtomic, WritePolicy{Kind: WriteEvery, Divisor: KernelDivisor}, ReadPolicy{Kind: ReadEvery}}},
	{"node", Variant{StorePerNode, WritePolicy{Kind: WriteEvery, Divisor: KernelDivisor}, ReadPolicy{Kind: ReadEvery}}},
	{"delay", Variant{StorePerNode, WritePolicy{Kind: WriteDelay, Divisor: KernelDivisor}, ReadPolicy{Kind: ReadEvery}}},
	{"skip", Variant{StorePerNode, WritePolicy{Kind: WriteDelay, Divisor: KernelDivisor}, ReadPolicy{Kind: ReadSkip, K: DefaultSkip}}},
	{"rate", Variant{StoreAtomic, WritePolicy{Kind: WriteRateLimit, Divisor: KernelDivisor, Period: DefaultPeriod}, ReadPolicy{Kind: ReadEvery}}},
	{"rate+node", Variant{StorePerNode, WritePolicy{Kind: WriteRateLimit, Divisor: KernelDivisor, Period: DefaultPeriod}, ReadPolicy{Kind: ReadEvery}}},
	{"rate+skip", Variant{StoreAtomic, WritePolicy{Kind: WriteRateLimit, Divisor: KernelDivisor, Period: DefaultPeriod}, ReadPolicy{Kind: ReadSkip, K: DefaultSkip}}},
}

const presetList = "base, node, delay, skip, rate, rate+node, rate+skip"

// Presets returns the preset names in the order the thread met them.
func Presets() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return names
}

// Preset returns the variant behind one of the thread's labels.
func Preset(name string) (Variant, error) {
	for _, p := range presets {
		if p.name == name {
			return p.v, nil
		}
	}
	return Variant{}, fmt.Errorf("preset %q: %w (valid: %s)", name, ErrUnknown, presetList)
}

// ParseVariant parses a preset name ("rate+node") or the key=value form
// that String writes ("store=pernode/write=ratelimit=2ms/read=skip=4").
// Keys may come in any order; a missing key takes base's value (atomic,
// every, every). Errors name the offending part and its byte offset.
func ParseVariant(s string) (Variant, error) {
	if !strings.Contains(s, "=") {
		v, err := Preset(s)
		if err != nil {
			return Variant{}, fmt.Errorf("variant %q: %w", s, err)
		}
		return v, nil
	}
	v, _ := Preset("base")
	var seen [3]bool
	off := 0
	for part := range strings.SplitSeq(s, "/") {
		key, val, ok := strings.Cut(part, "=")
		var err error
		idx := -1
		switch {
		case !ok:
			err = fmt.Errorf("%w: %q is not key=value", ErrSyntax, part)
		case key == "store":
			idx = 0
			v.Store, err = ParseStore(val)
		case key == "write":
			idx = 1
			v.Write, err = ParseWrite(val)
		case key == "read":
			idx = 2
			v.Read, err = ParseRead(val)
		default:
			err = fmt.Errorf("key %q: %w (valid: store, write, read)", key, ErrUnknown)
		}
		if err == nil && seen[idx] {
			err = fmt.Errorf("%w: key %q given twice", ErrSyntax, key)
		}
		if err != nil {
			return Variant{}, fmt.Errorf("variant %q: at offset %d: %w", s, off, err)
		}
		seen[idx] = true
		off += len(part) + 1
	}
	return v, nil
}
