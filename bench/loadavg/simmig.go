package loadavg

import (
	"fmt"
	"strconv"
)

// A SimMig is SimConfig's migration share: the percent of wakeups that
// land on another CPU. Its text is the mig= key's and simulate's -mig
// flag's, a percentage from 0 (none) to 100, and the flag holds a SimMig,
// so the command line hands the library the value it read, untranslated.
// (They used to disagree: the flag's 0 meant no migrations and SimConfig's
// 0 the default, so the command turned 0 into -1.) The zero SimMig is the
// default, the seed's 79%, as every zero of SimConfig is; NoMig is mig=0.
type SimMig int

const (
	// DefaultMig, the zero SimMig, is the seed's 11 million migrations
	// per 14 million wakeups: 79%.
	DefaultMig SimMig = 0
	// NoMig is no migrations: the text "0".
	NoMig SimMig = -1
)

// ParseSimMig reads a migration share as mig= and -mig spell it: a
// percentage from 0 to 100.
func ParseSimMig(s string) (SimMig, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 100 {
		return DefaultMig, fmt.Errorf("mig %q: want a percentage in [0, 100]", s)
	}
	if n == 0 {
		return NoMig, nil
	}
	return SimMig(n), nil
}

// Percent returns the share as a percentage: 79 for DefaultMig, 0 for NoMig.
func (m SimMig) Percent() int {
	switch m {
	case DefaultMig:
		return defaultMig
	case NoMig:
		return 0
	}
	return int(m)
}

// String returns the share as ParseSimMig reads it.
func (m SimMig) String() string { return strconv.Itoa(m.Percent()) }

// Set reads a share into m, so that a flag holds a SimMig.
func (m *SimMig) Set(s string) error {
	v, err := ParseSimMig(s)
	if err == nil {
		*m = v
	}
	return err
}
