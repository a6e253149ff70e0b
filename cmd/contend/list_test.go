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

// Every key's bad-value error comes from the declaration contend list
// prints: walking each key of each scenario as list -json gives it, a
// value the key refuses gets an error naming every value and range its
// domain lists, so that what list says and what the error says are one
// thing. Values a key takes (mig=1.5) are skipped; "zz" no key takes.
func TestKeyErrorsNameTheirDomain(t *testing.T) {
	out, _, err := runContend("list", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var scenarios []struct {
		Name string
		Keys []struct{ Name, Domain string }
	}
	if err := json.Unmarshal([]byte(out), &scenarios); err != nil {
		t.Fatal(err)
	}
	keys := 0
	for _, sc := range scenarios {
		spec, err := bench.Lookup(sc.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range sc.Keys {
			keys++
			refused := 0
			for _, bad := range []string{"zz", "0", "-1", "1.5", "99999999999", "auto=1", "threshold=0", "onein=0", "ratelimit=1h"} {
				_, err := spec.New(k.Name + "=" + bad)
				if err == nil {
					continue
				}
				refused++
				for _, item := range domainItems(k.Domain) {
					if !strings.Contains(err.Error(), item) {
						t.Errorf("%s %s=%s: error %q does not name %q, which contend list shows as %s=%s",
							sc.Name, k.Name, bad, err, item, k.Name, k.Domain)
					}
				}
			}
			if refused == 0 {
				t.Errorf("%s %s: no bad value refused", sc.Name, k.Name)
			}
		}
	}
	if keys == 0 {
		t.Fatal("list -json listed no keys")
	}
}

// domainItems splits a domain as contend list shows it into what an error
// must name: each alternative of its grammar ("auto", "1..100000") and,
// after "; ", what the grammar's placeholders take.
func domainItems(domain string) []string {
	grammar, where, _ := strings.Cut(domain, "; ")
	items := strings.Split(grammar, "|")
	if where != "" {
		items = append(items, where)
	}
	return items
}
