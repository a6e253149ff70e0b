package loadavg

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/contend/contend/bench/ktime"
)

// The sensitivity table: the rate limit's tg_weight error is not one number.
// It is made by the loads the cfs_rqs hold back for up to a millisecond,
// against the group's whole load, so it moves with how much load each
// cfs_rq carries and how fast it moves: tasks per cpu, the load each task
// carries, how much of it migrates, and the level (an upper level's load
// is its child group's entity's, whose weight the readers below keep
// moving). SensitivityKnobs are the values tried, one knob at a time from
// the workload given.
var SensitivityKnobs = []SensKnob{
	{"tasks", []int{1, 2, 4, 8}},
	{"weight", []int{335, 1024, 3121}}, // nice 5, 0, -5
	{"levels", []int{1, 2, 3}},
	{"mig", []int{0, 25, 50, 79, 100}},
}

// A SensKnob is one knob of the sensitivity table and its values.
type SensKnob struct {
	Name   string
	Values []int
}

// A SensRow is one cell of the sensitivity table: preset rate at the
// workload with one knob changed.
type SensRow struct {
	Knob    string
	Value   int
	Default bool // the value is the workload's own
	Config  SimConfig
	// TGWeightErr and WritesPerCPUSec are per level, the tasks' group's
	// first.
	TGWeightErr     []float64
	WritesPerCPUSec []float64
}

// A SensTable is the sensitivity table.
type SensTable struct {
	Config SimConfig // the workload every row starts from, defaults filled in
	Rows   []SensRow
}

// Sensitivity runs preset rate at cfg's workload with each knob of
// SensitivityKnobs changed in turn, the cells side by side on at most
// GOMAXPROCS goroutines. cfg.Variants is ignored.
func Sensitivity(cfg SimConfig) (*SensTable, error) {
	cfg.Variants = []string{"rate"}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	t := &SensTable{Config: cfg}
	for _, k := range SensitivityKnobs {
		for _, v := range k.Values {
			c := cfg
			var own int
			switch k.Name {
			case "tasks":
				c.Tasks, own = v, cfg.Tasks
			case "weight":
				c.Weight, own = v, cfg.Weight
			case "levels":
				c.Levels, own = v, cfg.Levels
			case "mig":
				c.Mig, own = SimMig(v), cfg.Mig.Percent()
				if v == 0 {
					c.Mig = NoMig // SimMig's zero is the default
				}
			}
			t.Rows = append(t.Rows, SensRow{Knob: k.Name, Value: v, Default: v == own, Config: c})
		}
	}
	errs := make([]error, len(t.Rows))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range t.Rows {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r := &t.Rows[i]
			tab, err := Simulate(r.Config)
			if err != nil {
				errs[i] = fmt.Errorf("%s=%d: %w", r.Knob, r.Value, err)
				return
			}
			r.Config = tab.Config
			for _, lv := range tab.Rows[0].Levels {
				r.TGWeightErr = append(r.TGWeightErr, lv.TGWeightErr)
				r.WritesPerCPUSec = append(r.WritesPerCPUSec, lv.WritesPerCPUSec)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// WriteText writes the table: per cell each level's error and writes per
// cfs_rq per second, then each level's range over the cells.
func (t *SensTable) WriteText(w io.Writer) error {
	c := t.Config
	var b strings.Builder
	fmt.Fprintf(&b, "tg_weight error under the rate limit (preset rate), one knob at a time from %d tasks of weight %d per cpu, %d levels, mig=%d%%; %d cpus, %s of kernel time per cell (* marks the workload's own value)\n\n",
		c.Tasks, c.Weight, c.Levels, c.Mig.Percent(), c.CPUs, ktime.Format(c.Duration))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	var head strings.Builder
	head.WriteString("knob\tvalue\t")
	for l := range maxLevels {
		fmt.Fprintf(&head, "l%d err %%\t", l+1)
	}
	for l := range maxLevels {
		fmt.Fprintf(&head, "l%d writes/cfs_rq/s\t", l+1)
	}
	fmt.Fprintln(tw, head.String())
	lo, hi := [maxLevels]float64{}, [maxLevels]float64{}
	for l := range maxLevels {
		lo[l], hi[l] = math.Inf(1), math.Inf(-1)
	}
	for _, r := range t.Rows {
		mark := ""
		if r.Default {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s\t%s%d\t", r.Knob, mark, r.Value)
		for l := range maxLevels {
			if l < len(r.TGWeightErr) {
				fmt.Fprintf(tw, "%.2f\t", r.TGWeightErr[l])
				lo[l], hi[l] = math.Min(lo[l], r.TGWeightErr[l]), math.Max(hi[l], r.TGWeightErr[l])
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		for l := range maxLevels {
			if l < len(r.WritesPerCPUSec) {
				fmt.Fprintf(tw, "%.0f\t", r.WritesPerCPUSec[l])
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("range over the cells:")
	for l := range maxLevels {
		if !math.IsInf(lo[l], 0) {
			fmt.Fprintf(&b, " level %d %.2f–%.2f %%;", l+1, lo[l], hi[l])
		}
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
