package counter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/contend/contend/benchname"
)

// Errors that parse and validation errors wrap, for errors.Is.
var (
	ErrUnknown = errors.New("unknown")
	ErrRange   = errors.New("out of range")
	ErrSyntax  = errors.New("syntax error")
	ErrCombo   = errors.New("does not combine")
)

// StoreKind names a storage.
type StoreKind uint8

const (
	StoreAtomic     StoreKind = iota // one atomic on a dedicated line
	StoreFalseShare                  // the atomic beside read-mostly fields
	StorePerNode                     // one slot per NUMA node
	StorePerCPU                      // one slot per CPU
)

// storeNames are the storages' names in variants, indexed by StoreKind: the
// one place they are spelt.
var storeNames = [...]string{"atomic", "falseshare", "pernode", "percpu"}

// StoreNames returns the storages' names, in StoreKind order.
func StoreNames() []string { return append([]string(nil), storeNames[:]...) }

// storeList is the storages' names for error messages.
var storeList = strings.Join(storeNames[:], ", ")

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
	WriteDelay                      // as every, but processing removed load does not call it (patch 3)
)

var writeNames = [...]string{"every", "threshold", "ratelimit", "delay"}

const writeList = "every, threshold=N, ratelimit=D, delay"

func (k WriteKind) String() string {
	if int(k) < len(writeNames) {
		return writeNames[k]
	}
	return "write(" + strconv.Itoa(int(k)) + ")"
}

// Limits of the policies' parameters. A divisor or a read count beyond a
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
	MaxOneIn      = 1 << 20
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
			return fmt.Errorf("ratelimit period %s %w [%s, %s]", benchname.FormatDuration(w.Period), ErrRange,
				benchname.FormatDuration(MinPeriod), benchname.FormatDuration(MaxPeriod))
		}
	default:
		return fmt.Errorf("write kind %d: %w (valid: %s)", w.Kind, ErrUnknown, writeList)
	}
	if w.Kind != WriteThreshold && w.Divisor != 0 && w.Divisor != KernelDivisor {
		return fmt.Errorf("write %s takes no divisor (got %d)", w.Kind, w.Divisor)
	}
	if w.Kind != WriteRateLimit && w.Period != 0 {
		return fmt.Errorf("write %s takes no period (got %s)", w.Kind, benchname.FormatDuration(w.Period))
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
		return "ratelimit=" + benchname.FormatDuration(w.Period)
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
				return WritePolicy{}, fmt.Errorf("write %q: period %s %w [%s, %s]", s, benchname.FormatDuration(d), ErrRange,
					benchname.FormatDuration(MinPeriod), benchname.FormatDuration(MaxPeriod))
			}
		}
		return WritePolicy{Kind: WriteRateLimit, Divisor: KernelDivisor, Period: d}, nil
	}
	return WritePolicy{}, fmt.Errorf("write %q: %w (valid: %s)", s, ErrUnknown, writeList)
}

// ReadKind names a read policy: when update_cfs_group() computes the group
// entity's shares.
type ReadKind uint8

const (
	// ReadEvery is the kernel: update_cfs_group() on every en/dequeue of
	// the group entity.
	ReadEvery ReadKind = iota
	// ReadSkip is patch 4, "skip some update_cfs_group() on
	// en/dequeue_entity()": none in dequeue_entity(), and none in
	// enqueue_entity() when the entity is the only one of its cfs_rq.
	ReadSkip
	// ReadOneIn is not from the thread: calc_group_shares() on one event
	// in K, by count, a knob for taking reads out of a write-heavy
	// measurement.
	ReadOneIn
)

var readNames = [...]string{"every", "skip", "onein"}

const readList = "every, skip, onein=K"

func (k ReadKind) String() string {
	if int(k) < len(readNames) {
		return readNames[k]
	}
	return "read(" + strconv.Itoa(int(k)) + ")"
}

// ReadPolicy is a read policy with its parameter.
type ReadPolicy struct {
	Kind ReadKind
	// K is K of onein=K: the shares are computed on one event in K.
	K int
}

func (r ReadPolicy) k() int {
	if r.Kind != ReadOneIn || r.K < 1 {
		return 1
	}
	return r.K
}

// Validate checks the policy's parameter.
func (r ReadPolicy) Validate() error {
	switch r.Kind {
	case ReadEvery, ReadSkip:
		if r.K != 0 {
			return fmt.Errorf("read %s takes no K (got %d)", r.Kind, r.K)
		}
	case ReadOneIn:
		if r.K < 1 || r.K > MaxOneIn {
			return fmt.Errorf("onein K %d %w [1, %d]", r.K, ErrRange, MaxOneIn)
		}
	default:
		return fmt.Errorf("read kind %d: %w (valid: %s)", r.Kind, ErrUnknown, readList)
	}
	return nil
}

// String returns the policy as ParseRead reads it.
func (r ReadPolicy) String() string {
	if r.Kind == ReadOneIn {
		return "onein=" + strconv.Itoa(r.K)
	}
	return r.Kind.String()
}

// ParseRead parses every, skip or onein=K with K in [1, 1<<20]. skip takes
// no value: it is patch 4's choice of paths, not a count, and skip=K (what
// an older version of this package meant by it) is refused with a pointer
// to onein=K.
func ParseRead(s string) (ReadPolicy, error) {
	name, arg, hasArg := strings.Cut(s, "=")
	switch name {
	case "every":
		if hasArg {
			return ReadPolicy{}, fmt.Errorf("read %q: %w: every takes no value", s, ErrSyntax)
		}
		return ReadPolicy{Kind: ReadEvery}, nil
	case "skip":
		if hasArg {
			return ReadPolicy{}, fmt.Errorf("read %q: %w: skip is patch 4's en/dequeue paths and takes no value (one read in K by count is onein=K)", s, ErrSyntax)
		}
		return ReadPolicy{Kind: ReadSkip}, nil
	case "onein":
		if !hasArg {
			return ReadPolicy{}, fmt.Errorf("read %q: %w: onein needs a count, as in onein=1024", s, ErrSyntax)
		}
		k, err := strconv.Atoi(arg)
		if err != nil {
			return ReadPolicy{}, fmt.Errorf("read %q: K %q: %w: %w", s, arg, ErrSyntax, err)
		}
		if k < 1 || k > MaxOneIn {
			return ReadPolicy{}, fmt.Errorf("read %q: K %d %w [1, %d]", s, k, ErrRange, MaxOneIn)
		}
		return ReadPolicy{Kind: ReadOneIn, K: k}, nil
	}
	return ReadPolicy{}, fmt.Errorf("read %q: %w (valid: %s)", s, ErrUnknown, readList)
}

// Variant is one configuration of tg->load_avg: where it is stored, when
// writers push, when readers read, and, for the per-node store, how far the
// reader walks the node mask.
type Variant struct {
	Store StoreKind
	Write WritePolicy
	Read  ReadPolicy
	// FullScan walks all MAX_NUMNODES bits of the node mask, as
	// for_each_node did when v1 ran; only with StorePerNode.
	FullScan bool
}

// Validate checks every part.
func (v Variant) Validate() error {
	if int(v.Store) >= len(storeNames) {
		return fmt.Errorf("store kind %d: %w (valid: %s)", v.Store, ErrUnknown, storeList)
	}
	if err := v.Write.Validate(); err != nil {
		return err
	}
	if err := v.Read.Validate(); err != nil {
		return err
	}
	if v.FullScan && v.Store != StorePerNode {
		return fmt.Errorf("scan=full %w with store=%s: only the per-node store walks a node mask", ErrCombo, v.Store)
	}
	return nil
}

func (v Variant) scan() string {
	if v.FullScan {
		return "full"
	}
	return "bounded"
}

// String returns the benchmark form,
// "store=pernode/write=ratelimit/read=skip/scan=bounded", which
// ParseVariant reads back. No value ends in -<digits>, which benchstat
// would take for a GOMAXPROCS suffix.
func (v Variant) String() string {
	return "store=" + v.Store.String() + "/write=" + v.Write.String() + "/read=" + v.Read.String() + "/scan=" + v.scan()
}

// A PresetInfo is one of the thread's labels and what it stood for.
type PresetInfo struct {
	// Name is the preset's name in variants. v1's labels are kept as the
	// seed spells them; v2's rows, which reused "skip" and "node" for a
	// different stack, are named by what they add up to.
	Name string
	// Series is the posting whose tables use the label: "v1" (Aaron
	// Lu's four-patch series), "v2" (the ratelimit data in the reply
	// of Aug 2, 2023), or "v1, v2" for base.
	Series string
	// Label is the row's label in the seed's tables.
	Label string
	// Patches says what the row included, in the seed's words.
	Patches string
	Variant Variant
}

var (
	every     = WritePolicy{Kind: WriteEvery, Divisor: KernelDivisor}
	delay     = WritePolicy{Kind: WriteDelay, Divisor: KernelDivisor}
	ratelimit = WritePolicy{Kind: WriteRateLimit, Divisor: KernelDivisor, Period: DefaultPeriod}
	readEvery = ReadPolicy{Kind: ReadEvery}
	readSkip  = ReadPolicy{Kind: ReadSkip}
)

// presets are the thread's labels. Both series were cumulative and both
// compared every row against base. v1 (on v6.5-rc1 with tg->load_avg on a
// dedicated line): "node means patch2, delay means patch3 and skip means
// patch4", each on top of the one before, and its per-node reader was
// for_each_node over MAX_NUMNODES (PeterZ's nr_node_ids fix came later in
// the thread). v2: "rate: ... applied on top of base", "skip: ... applied
// on top of rate", "node: the patch ... per node + peterz's numa
// optimizations; applied on top of skip".
var presets = []PresetInfo{
	{"base", "v1, v2", "base", "the kernel: tg->load_avg one atomic on a dedicated line",
		Variant{StoreAtomic, every, readEvery, false}},
	{"node", "v1", "node", "patch 2: tg->load_avg per node, for_each_node over MAX_NUMNODES",
		Variant{StorePerNode, every, readEvery, true}},
	{"delay", "v1", "delay", "patches 2+3: removed load no longer makes update_load_avg() call update_tg_load_avg()",
		Variant{StorePerNode, delay, readEvery, true}},
	{"skip", "v1", "skip", "patches 2+3+4: no update_cfs_group() in dequeue_entity(), nor in enqueue_entity() into an empty cfs_rq",
		Variant{StorePerNode, delay, readSkip, true}},
	{"rate", "v2", "rate", "update_tg_load_avg() at most once per ms (merged: 1528c661c24b)",
		Variant{StoreAtomic, ratelimit, readEvery, false}},
	{"rate+skip", "v2", "skip", "rate + v1's patch 4",
		Variant{StoreAtomic, ratelimit, readSkip, false}},
	{"rate+skip+node", "v2", "node", "rate + skip + per-node tg->load_avg with PeterZ's nr_node_ids bound",
		Variant{StorePerNode, ratelimit, readSkip, false}},
}

// presetList is the presets' names for error messages.
var presetList = strings.Join(Presets(), ", ")

// Presets returns the preset names in the order the thread met them.
func Presets() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return names
}

// PresetTable returns every preset with the seed's label for it.
func PresetTable() []PresetInfo { return append([]PresetInfo(nil), presets...) }

// Preset returns the variant behind one of the thread's labels.
func Preset(name string) (Variant, error) {
	for _, p := range presets {
		if p.Name == name {
			return p.Variant, nil
		}
	}
	return Variant{}, fmt.Errorf("preset %q: %w (valid: %s)", name, ErrUnknown, presetList)
}

// PresetOf returns the name of the preset that is v, or "" if none is.
func PresetOf(v Variant) string {
	for _, p := range presets {
		if p.Variant == v {
			return p.Name
		}
	}
	return ""
}

// ParseVariant parses a preset name ("rate+skip") or the key=value form
// that String writes ("store=pernode/write=ratelimit=2ms/read=skip/scan=full").
// Keys may come in any order; a missing key takes base's value (atomic,
// every, every, bounded). Errors name the offending part and its byte
// offset.
func ParseVariant(s string) (Variant, error) {
	if !strings.Contains(s, "=") {
		v, err := Preset(s)
		if err != nil {
			return Variant{}, fmt.Errorf("variant %q: %w", s, err)
		}
		return v, nil
	}
	v, _ := Preset("base")
	var seen [4]bool
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
		case key == "scan":
			idx = 3
			switch val {
			case "full", "bounded":
				v.FullScan = val == "full"
			default:
				err = fmt.Errorf("scan %q: %w (valid: bounded, full)", val, ErrUnknown)
			}
		default:
			err = fmt.Errorf("key %q: %w (valid: store, write, read, scan)", key, ErrUnknown)
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
	if err := v.Validate(); err != nil {
		return Variant{}, fmt.Errorf("variant %q: %w", s, err)
	}
	return v, nil
}
