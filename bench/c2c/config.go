package c2c

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contend/contend/nodemask"
)

// A Mode is how the two threads hand the line over.
type Mode string

const (
	// ReadWrite: each side spins loading the line until the value says
	// it is its turn, then stores the next value. A transfer is a read miss
	// followed by an upgrade: the pattern of a flag or counter that one
	// CPU polls and another writes.
	ReadWrite Mode = "rw"
	// CAS: each side spins on compare-and-swap from the peer's value to
	// its own. Every attempt, failed or not, takes the line exclusive: the
	// pattern of sched_balance_running's cmpxchg and of lock acquisition.
	CAS Mode = "cas"
)

// Modes lists the modes in canonical order.
var Modes = []Mode{ReadWrite, CAS}

// ParseModes parses "rw", "cas", "all" or a comma-separated list of modes.
func ParseModes(s string) ([]Mode, error) {
	if s == "all" {
		return slices.Clone(Modes), nil
	}
	var modes []Mode
	for i, part := range strings.Split(s, ",") {
		m := Mode(part)
		if !slices.Contains(Modes, m) {
			return nil, fmt.Errorf("unknown c2c mode %q at position %d of %q (want rw, cas, all or a comma list)", part, i+1, s)
		}
		if slices.Contains(modes, m) {
			return nil, fmt.Errorf("c2c mode %q given twice in %q", part, s)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// A Home says on which node the ping-pong line lives. On multi-socket
// machines the home node decides how far a transfer travels: AMD's
// directory lives with the memory, so a line homed on a third socket costs
// about twice as much as one homed at either end.
type Home struct {
	// Which is "first" (the pinging CPU's node), "second" (the answering
	// CPU's node) or "node" (Node, whatever the pair).
	Which string
	Node  int
}

// ParseHome parses first, second or a node id.
func ParseHome(s string) (Home, error) {
	switch s {
	case "first", "second":
		return Home{Which: s, Node: -1}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= nodemask.MaxNumNodes {
		return Home{}, fmt.Errorf("unknown c2c home %q (want first, second or a node id in [0, %d))", s, nodemask.MaxNumNodes)
	}
	return Home{Which: "node", Node: n}, nil
}

// String returns the home as ParseHome reads it.
func (h Home) String() string {
	if h.Which == "node" {
		return strconv.Itoa(h.Node)
	}
	if h.Which == "" {
		return "first"
	}
	return h.Which
}

// Config says how to measure one pair. Zero fields take the defaults.
type Config struct {
	Mode    Mode          // default rw
	Samples int           // measured samples, default 300
	Rounds  int           // round trips per sample, default 1000
	Warmup  Warmup        // samples run and dropped first: AutoWarmup (Samples/10, at least 1), NoWarmup or a count
	Preheat time.Duration // ping-pong unmeasured this long first, so both cores reach full clock
	Home    Home          // default first
	// Stat is the statistic Result.NS holds: Median (default) or Min.
	// Both are always recorded.
	Stat Stat
	// Context, if set, stops a measurement between samples.
	Context context.Context
}

// Defaults, chosen like core-to-core-latency's: a sample of 1000 round trips
// lasts 50-500 µs, long enough that two clock reads vanish, short enough that
// an interrupt spoils one sample rather than the median.
const (
	defaultSamples = 300
	defaultRounds  = 1000
	maxSamples     = 1 << 24
	maxRounds      = 1 << 30
)

// WithDefaults returns c with its zero fields set to the defaults, or an
// error naming the first bad field: the configuration a measurement really
// runs with.
func (c Config) WithDefaults() (Config, error) {
	if c.Mode == "" {
		c.Mode = ReadWrite
	}
	if !slices.Contains(Modes, c.Mode) {
		return c, fmt.Errorf("c2c: unknown mode %q (want rw, cas)", c.Mode)
	}
	if c.Samples == 0 {
		c.Samples = defaultSamples
	}
	if c.Rounds == 0 {
		c.Rounds = defaultRounds
	}
	if c.Samples < 1 || c.Samples > maxSamples {
		return c, fmt.Errorf("c2c: samples %d out of range [1, %d]", c.Samples, maxSamples)
	}
	if c.Rounds < 1 || c.Rounds > maxRounds {
		return c, fmt.Errorf("c2c: rounds %d out of range [1, %d]", c.Rounds, maxRounds)
	}
	switch {
	case c.Warmup == AutoWarmup:
		c.Warmup = Warmup(max(1, c.Samples/10))
	case c.Warmup < 0:
		c.Warmup = NoWarmup // stays "none", so that defaults applied twice agree
	}
	if c.Preheat < 0 {
		return c, fmt.Errorf("c2c: negative preheat %v", c.Preheat)
	}
	if c.Home.Which == "" {
		c.Home = Home{Which: "first", Node: -1}
	}
	if c.Stat == "" {
		c.Stat = Median
	}
	if _, err := ParseStat(string(c.Stat)); err != nil {
		return c, fmt.Errorf("c2c: %w", err)
	}
	if c.Context == nil {
		c.Context = context.Background()
	}
	return c, nil
}
