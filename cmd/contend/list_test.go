package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

// contend list prints each scenario's keys from their declarations: the
// domain after the name, the default, the doc; and its hot functions.
func TestListKeys(t *testing.T) {
	out, _, err := runContend("list", "atomicadd")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"    line=shared|private (default shared)\n        all workers add to one word, or each to its own line\n",
		"    work=0..100000 (default 0)\n",
		"  hot functions (perf annotate): github.com/contend/contend/bench/atomicadd.atomicAddLoop\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("contend list atomicadd lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runContend("list", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Name string
		Keys []struct {
			Name, Default, Domain, Doc string
			OmitDefault                bool `json:"omit_default"`
		}
		HotSymbols []string `json:"hot_symbols"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(bench.Specs()) {
		t.Fatalf("list -json: %d scenarios, want %d", len(got), len(bench.Specs()))
	}
	for i, spec := range bench.Specs() {
		g := got[i]
		if g.Name != spec.Name || len(g.Keys) != len(spec.Keys) || strings.Join(g.HotSymbols, " ") != strings.Join(spec.HotSymbols, " ") {
			t.Errorf("list -json %s: %+v, want its spec's keys and hot symbols", spec.Name, g)
			continue
		}
		for j, k := range spec.Keys {
			if gk := g.Keys[j]; gk.Name != k.Name || gk.Default != k.Default || gk.Domain != k.Domain.Syntax() || gk.Doc != k.Doc || gk.OmitDefault != k.OmitDefault {
				t.Errorf("list -json %s key %d = %+v, want %s (default %q)", spec.Name, j, gk, k, k.Default)
			}
		}
	}
}
