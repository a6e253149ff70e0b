package counter

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseStore(t *testing.T) {
	for i, name := range storeNames {
		got, err := ParseStore(name)
		if err != nil || got != StoreKind(i) || got.String() != name {
			t.Errorf("ParseStore(%q) = %v, %v, want %v", name, got, err, StoreKind(i))
		}
	}
	if got := strings.Join(StoreNames(), ", "); got != "atomic, falseshare, pernode, percpu" || got != storeList {
		t.Errorf("StoreNames() = %s, storeList %q; want atomic, falseshare, pernode, percpu, in StoreKind order", got, storeList)
	}
	for _, bad := range []string{"", "Atomic", "per-node", "xsync", "atomic "} {
		_, err := ParseStore(bad)
		if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), storeList) || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("ParseStore(%q) = %v, want ErrUnknown naming the input and listing %q", bad, err, storeList)
		}
	}
}

func TestParseWrite(t *testing.T) {
	tests := []struct {
		in      string
		want    WritePolicy
		str     string // String(), if not in
		wantErr error
		errText string
	}{
		{in: "every", want: WritePolicy{Kind: WriteEvery, Divisor: 64}},
		{in: "delay", want: WritePolicy{Kind: WriteDelay, Divisor: 64}},
		{in: "threshold=16", want: WritePolicy{Kind: WriteThreshold, Divisor: 16}},
		{in: "threshold=1", want: WritePolicy{Kind: WriteThreshold, Divisor: 1}},
		{in: "threshold=1048576", want: WritePolicy{Kind: WriteThreshold, Divisor: MaxDivisor}},
		{in: "ratelimit", want: WritePolicy{Kind: WriteRateLimit, Divisor: 64, Period: time.Millisecond}},
		{in: "ratelimit=1ms", want: WritePolicy{Kind: WriteRateLimit, Divisor: 64, Period: time.Millisecond}, str: "ratelimit"},
		{in: "ratelimit=500us", want: WritePolicy{Kind: WriteRateLimit, Divisor: 64, Period: 500 * time.Microsecond}},
		{in: "ratelimit=500µs", want: WritePolicy{Kind: WriteRateLimit, Divisor: 64, Period: 500 * time.Microsecond}, str: "ratelimit=500us"},
		{in: "ratelimit=1.5ms", want: WritePolicy{Kind: WriteRateLimit, Divisor: 64, Period: 1500 * time.Microsecond}, str: "ratelimit=1500us"},
		{in: "ratelimit=1s", want: WritePolicy{Kind: WriteRateLimit, Divisor: 64, Period: time.Second}},
		{in: "ratelimit=1us", want: WritePolicy{Kind: WriteRateLimit, Divisor: 64, Period: time.Microsecond}},

		{in: "ratelimit=0", wantErr: ErrRange, errText: "period 0ns out of range [1us, 1s]"},
		{in: "ratelimit=0s", wantErr: ErrRange, errText: "out of range"},
		{in: "ratelimit=-1ms", wantErr: ErrRange, errText: "period -1ms out of range"},
		{in: "ratelimit=2s", wantErr: ErrRange, errText: "period 2s out of range"},
		{in: "ratelimit=1h", wantErr: ErrRange, errText: "out of range"},
		{in: "ratelimit=999ns", wantErr: ErrRange, errText: "out of range"},
		{in: "ratelimit=5", wantErr: ErrSyntax, errText: `period "5"`},
		{in: "ratelimit=ms", wantErr: ErrSyntax, errText: `period "ms"`},
		{in: "ratelimit=", wantErr: ErrSyntax, errText: `period ""`},
		{in: "threshold=0", wantErr: ErrRange, errText: "divisor 0 out of range [1, 1048576]"},
		{in: "threshold=-4", wantErr: ErrRange, errText: "divisor -4 out of range"},
		{in: "threshold=1048577", wantErr: ErrRange, errText: "out of range"},
		{in: "threshold=99999999999999999999", wantErr: ErrSyntax, errText: "value out of range"},
		{in: "threshold=x", wantErr: ErrSyntax, errText: `divisor "x"`},
		{in: "threshold", wantErr: ErrSyntax, errText: "needs a divisor"},
		{in: "every=1", wantErr: ErrSyntax, errText: "every takes no value"},
		{in: "delay=1ms", wantErr: ErrSyntax, errText: "delay takes no value"},
		{in: "rate", wantErr: ErrUnknown, errText: writeList},
		{in: "", wantErr: ErrUnknown, errText: writeList},
	}
	for _, tt := range tests {
		got, err := ParseWrite(tt.in)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) || !strings.Contains(err.Error(), `write "`) {
				t.Errorf("ParseWrite(%q) = %v, want %v containing %q", tt.in, err, tt.wantErr, tt.errText)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("ParseWrite(%q) error spans lines: %q", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseWrite(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
			continue
		}
		str := tt.str
		if str == "" {
			str = tt.in
		}
		if got.String() != str {
			t.Errorf("ParseWrite(%q).String() = %q, want %q", tt.in, got.String(), str)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("ParseWrite(%q).Validate() = %v", tt.in, err)
		}
	}
}

func TestParseRead(t *testing.T) {
	tests := []struct {
		in      string
		want    ReadPolicy
		wantErr error
		errText string
	}{
		{in: "every", want: ReadPolicy{Kind: ReadEvery}},
		{in: "skip", want: ReadPolicy{Kind: ReadSkip}},
		{in: "onein=1", want: ReadPolicy{Kind: ReadOneIn, K: 1}},
		{in: "onein=1024", want: ReadPolicy{Kind: ReadOneIn, K: 1024}},
		{in: "skip=2", wantErr: ErrSyntax, errText: "onein=K"}, // the old count knob, renamed
		{in: "skip=1", wantErr: ErrSyntax, errText: "patch 4"},
		{in: "onein", wantErr: ErrSyntax, errText: "needs a count"},
		{in: "onein=0", wantErr: ErrRange, errText: "K 0 out of range [1, 1048576]"},
		{in: "onein=-2", wantErr: ErrRange, errText: "K -2 out of range"},
		{in: "onein=2000000", wantErr: ErrRange, errText: "out of range"},
		{in: "onein=two", wantErr: ErrSyntax, errText: `K "two"`},
		{in: "onein=", wantErr: ErrSyntax, errText: `K ""`},
		{in: "every=2", wantErr: ErrSyntax, errText: "every takes no value"},
		{in: "sometimes", wantErr: ErrUnknown, errText: readList},
	}
	for _, tt := range tests {
		got, err := ParseRead(tt.in)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) || !strings.Contains(err.Error(), `read "`) {
				t.Errorf("ParseRead(%q) = %v, want %v containing %q", tt.in, err, tt.wantErr, tt.errText)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRead(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
			continue
		}
		if got.String() != tt.in {
			t.Errorf("ParseRead(%q).String() = %q", tt.in, got.String())
		}
		if err := got.Validate(); err != nil {
			t.Errorf("ParseRead(%q).Validate() = %v", tt.in, err)
		}
	}
}

// TestPresets pins each of the thread's labels to what it meant there: v1
// cumulative (node = patch 2, delay = 2+3, skip = 2+3+4) with the per-node
// reader walking all MAX_NUMNODES bits, as for_each_node did when v1 ran;
// v2 cumulative (rate on base, skip on rate, node on skip, node with
// PeterZ's nr_node_ids bound); base in both.
func TestPresets(t *testing.T) {
	want := []struct {
		name, series, label, variant string
	}{
		{"base", "v1, v2", "base", "store=atomic/write=every/read=every/scan=bounded"},
		{"node", "v1", "node", "store=pernode/write=every/read=every/scan=full"},
		{"delay", "v1", "delay", "store=pernode/write=delay/read=every/scan=full"},
		{"skip", "v1", "skip", "store=pernode/write=delay/read=skip/scan=full"},
		{"rate", "v2", "rate", "store=atomic/write=ratelimit/read=every/scan=bounded"},
		{"rate+skip", "v2", "skip", "store=atomic/write=ratelimit/read=skip/scan=bounded"},
		{"rate+skip+node", "v2", "node", "store=pernode/write=ratelimit/read=skip/scan=bounded"},
	}
	table := PresetTable()
	if len(table) != len(want) || strings.Join(Presets(), ", ") != presetList {
		t.Fatalf("Presets() = %v, want the %d of %s", Presets(), len(want), presetList)
	}
	for i, w := range want {
		p := table[i]
		if p.Name != w.name || p.Series != w.series || p.Label != w.label || p.Variant.String() != w.variant {
			t.Errorf("preset %d = %s (%s %q) %s, want %s (%s %q) %s", i, p.Name, p.Series, p.Label, p.Variant, w.name, w.series, w.label, w.variant)
		}
		v, err := Preset(w.name)
		if err != nil || v != p.Variant || PresetOf(v) != w.name {
			t.Errorf("Preset(%q) = %v, %v; PresetOf gives %q", w.name, v, err, PresetOf(v))
		}
		if err := v.Validate(); err != nil {
			t.Errorf("Preset(%q).Validate() = %v", w.name, err)
		}
		pv, err := ParseVariant(w.name)
		if err != nil || pv != v {
			t.Errorf("ParseVariant(%q) = %v, %v, want %v", w.name, pv, err, v)
		}
		if p.Patches == "" {
			t.Errorf("preset %s says nothing of what it includes", w.name)
		}
	}
	// Names whose meaning changed are gone, not aliased.
	for _, old := range []string{"rate+node", "ratelimit"} {
		if _, err := Preset(old); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), presetList) {
			t.Errorf("Preset(%q) = %v, want ErrUnknown listing %s", old, err, presetList)
		}
	}
	if PresetOf(Variant{Store: StorePerCPU}) != "" {
		t.Error("PresetOf(percpu) names a preset")
	}
}

var dashDigits = regexp.MustCompile(`-[0-9]+$`)

func TestParseVariant(t *testing.T) {
	tests := []struct {
		in   string
		want string // String() of the result
	}{
		{"store=pernode/write=ratelimit/read=every", "store=pernode/write=ratelimit/read=every/scan=bounded"},
		{"read=onein=4/store=percpu/write=threshold=16", "store=percpu/write=threshold=16/read=onein=4/scan=bounded"},
		{"store=falseshare", "store=falseshare/write=every/read=every/scan=bounded"},
		{"write=ratelimit=250us", "store=atomic/write=ratelimit=250us/read=every/scan=bounded"},
		{"write=ratelimit=2ms/read=skip", "store=atomic/write=ratelimit=2ms/read=skip/scan=bounded"},
		{"scan=full/store=pernode", "store=pernode/write=every/read=every/scan=full"},
		{"rate+skip+node", "store=pernode/write=ratelimit/read=skip/scan=bounded"},
	}
	for _, tt := range tests {
		v, err := ParseVariant(tt.in)
		if err != nil {
			t.Errorf("ParseVariant(%q): %v", tt.in, err)
			continue
		}
		if v.String() != tt.want {
			t.Errorf("ParseVariant(%q).String() = %q, want %q", tt.in, v, tt.want)
		}
		back, err := ParseVariant(v.String())
		if err != nil || back != v {
			t.Errorf("ParseVariant(%q) = %+v, %v, want %+v back", v.String(), back, err, v)
		}
		for part := range strings.SplitSeq(v.String(), "/") {
			if dashDigits.MatchString(part) {
				t.Errorf("%q: part %q ends in -<digits>, which benchstat reads as GOMAXPROCS", v, part)
			}
		}
	}
}

func TestParseVariantErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr error
		errText string
	}{
		{"", ErrUnknown, presetList},
		{"fast", ErrUnknown, `preset "fast"`},
		{"store=xsync", ErrUnknown, `at offset 0: store "xsync": unknown (valid: ` + storeList + ")"},
		{"store=atomic/write=often", ErrUnknown, `at offset 13: write "often": unknown (valid: ` + writeList + ")"},
		{"store=atomic/write=every/read=seldom", ErrUnknown, `at offset 25: read "seldom": unknown (valid: ` + readList + ")"},
		{"store=atomic/write=ratelimit=0", ErrRange, "at offset 13"},
		{"write=ratelimit=10s", ErrRange, "period 10s out of range"},
		{"read=onein=0", ErrRange, "K 0 out of range"},
		{"read=skip=3", ErrSyntax, "onein=K"},
		{"scan=full", ErrCombo, "store=atomic"},
		{"scan=wide", ErrUnknown, `scan "wide"`},
		{"write=threshold=0", ErrRange, "divisor 0 out of range"},
		{"write=ratelimit=fast", ErrSyntax, `period "fast"`},
		{"store=atomic/threads=8", ErrUnknown, `at offset 13: key "threads": unknown (valid: store, write, read, scan)`},
		{"store=atomic/store=pernode", ErrSyntax, `at offset 13: syntax error: key "store" given twice`},
		{"store=atomic//read=every", ErrSyntax, `at offset 13: syntax error: "" is not key=value`},
		{"store=atomic/base", ErrSyntax, `"base" is not key=value`},
	}
	for _, tt := range tests {
		_, err := ParseVariant(tt.in)
		if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) {
			t.Errorf("ParseVariant(%q) = %v, want %v containing %q", tt.in, err, tt.wantErr, tt.errText)
		}
		if err != nil && !strings.HasPrefix(err.Error(), `variant "`+tt.in+`"`) {
			t.Errorf("ParseVariant(%q) = %v, want it to start by naming the input", tt.in, err)
		}
	}
}

func TestVariantValidate(t *testing.T) {
	bad := []Variant{
		{Store: 7},
		{Write: WritePolicy{Kind: WriteRateLimit, Period: 3 * time.Second}},
		{Write: WritePolicy{Kind: WriteEvery, Divisor: 16}},
		{Read: ReadPolicy{Kind: ReadEvery, K: 3}},
		{Read: ReadPolicy{Kind: ReadSkip, K: 2}},
		{Read: ReadPolicy{Kind: ReadOneIn}},
		{Read: ReadPolicy{Kind: 5}},
		{Store: StoreAtomic, FullScan: true},
	}
	for _, v := range bad {
		if err := v.Validate(); err == nil {
			t.Errorf("%+v.Validate() = nil, want an error", v)
		}
	}
	if err := (Variant{}).Validate(); err != nil {
		t.Errorf("the zero Variant (base) does not validate: %v", err)
	}
}

// FuzzParseVariant: ParseVariant never panics, and whatever it accepts
// prints as a string it reads back to the same variant, with no part
// ending in -<digits>.
func FuzzParseVariant(f *testing.F) {
	for _, p := range Presets() {
		f.Add(p)
	}
	f.Add("store=pernode/write=ratelimit=2ms/read=onein=4/scan=full")
	f.Add("write=threshold=16")
	f.Add("read=skip=2")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVariant(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("ParseVariant(%q) error spans lines: %q", s, err)
			}
			return
		}
		if err := v.Validate(); err != nil {
			t.Errorf("ParseVariant(%q) = %+v, which does not validate: %v", s, v, err)
		}
		str := v.String()
		back, err := ParseVariant(str)
		if err != nil || back != v {
			t.Errorf("ParseVariant(%q) = %+v; ParseVariant(%q) = %+v, %v", s, v, str, back, err)
		}
		for part := range strings.SplitSeq(str, "/") {
			if dashDigits.MatchString(part) {
				t.Errorf("%q: part %q ends in -<digits>", str, part)
			}
		}
	})
}
