package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/contend/contend/internal/vmlab"
	"github.com/contend/contend/internal/vmlab/topology"
)

// TestErrors: bad command lines fail in one line naming the problem, before
// anything is installed, built or booted.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-topology", "nope"}, `-topology: unknown topology "nope"`},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"-steps", "nope"}, `unknown step "nope"`},
		{[]string{"run"}, "want -- contend ARGS"},
		{[]string{"run", "--", "ls"}, "want -- contend ARGS"},
		{[]string{"run", "-topology", "nope", "--", "contend", "topo"}, `run: -topology: unknown topology "nope"`},
		{[]string{"-bogus"}, "flag provided but not defined"},
	} {
		var out, errb bytes.Buffer
		err := vmlabCmd(&out, &errb, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("vmlab %q = %v, want an error containing %q", c.args, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("vmlab %q: error of several lines: %q", c.args, err)
		}
	}
}

func TestList(t *testing.T) {
	var out bytes.Buffer
	if err := vmlabCmd(&out, &bytes.Buffer{}, []string{"-list"}); err != nil {
		t.Fatal(err)
	}
	for _, topo := range append(topology.Matrix, topology.Big...) {
		if !strings.Contains(out.String(), topo.Name+" ") {
			t.Errorf("-list does not show %s", topo.Name)
		}
	}
	for _, s := range vmlab.Steps {
		if !strings.Contains(out.String(), "  "+s.Name+" ") {
			t.Errorf("-list does not show step %s", s.Name)
		}
	}
}
