package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/contend/contend/affinity"
)

func init() {
	register(&command{
		name:    "topo",
		summary: "print the machine's topology: nodes, distances, LLC groups, SMT, cache line, allowed cpus",
		run:     topoCmd,
	})
}

// topoFlags are the flags every command that needs a topology shares.
type topoFlags struct {
	sysfs string
	fake  int
}

func (f *topoFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.sysfs, "sysfs", "", "read the topology from this sysfs `root` (a directory holding sys/devices/system) instead of this machine's")
	fs.IntVar(&f.fake, "fake-nodes", 0, "split the allowed cpus into `K` contiguous fake NUMA nodes (results are labelled fake-K)")
}

// load returns the topology the flags ask for. A run measures this machine, so
// it refuses a topology read from another machine's sysfs tree.
func (f *topoFlags) load(fs *flag.FlagSet, forRun bool) (*affinity.Topology, error) {
	fakeSet := flagSet(fs, "fake-nodes")
	if fakeSet && f.fake < 1 {
		return nil, fmt.Errorf("%s: -fake-nodes %d: need at least 1 node", fs.Name(), f.fake)
	}
	var t *affinity.Topology
	var err error
	if f.sysfs != "" {
		if forRun {
			return nil, fmt.Errorf("%s: -sysfs describes another machine; runs measure this one (use contend topo -sysfs to inspect it)", fs.Name())
		}
		t, err = affinity.Load(f.sysfs)
	} else {
		t, err = affinity.Host()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fs.Name(), err)
	}
	if fakeSet {
		ft, err := t.Fake(f.fake)
		if err != nil {
			return nil, fmt.Errorf("%s: -fake-nodes %d: %w", fs.Name(), f.fake, err)
		}
		return ft, nil
	}
	return t, nil
}

func topoCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "topo", "[-sysfs DIR] [-fake-nodes K] [-json]")
	var tf topoFlags
	tf.register(fs)
	asJSON := fs.Bool("json", false, "print the topology as JSON")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	t, err := tf.load(fs, false)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, t)
	}
	_, err = fmt.Fprint(stdout, t.String())
	return err
}
