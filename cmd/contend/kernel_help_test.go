package main

import (
	"strings"
	"testing"
)

// contend kernel's errors and -h name every subcommand meant for people,
// and each subcommand's -h says what that subcommand does (each once said
// "find its contended sites").
func TestKernelHelp(t *testing.T) {
	out, _, _ := runContend("kernel", "-h")
	for _, sub := range strings.Split(kernelSubList, ", ") {
		if !strings.Contains(out, "\n  "+sub+" ") {
			t.Errorf("kernel -h lacks %s:\n%s", sub, out)
		}
		if _, ok := kernelSubs[sub]; !ok {
			t.Errorf("%s is listed but not a subcommand", sub)
		}
		sout, _, _ := runContend("kernel", sub, "-h")
		if !strings.Contains(sout, "Usage: contend kernel "+sub) || !strings.Contains(sout, kernelSummaries[sub]) {
			t.Errorf("kernel %s -h: want its usage and its own summary %q:\n%s", sub, kernelSummaries[sub], sout)
		}
		if sub != "sites" && strings.Contains(sout, "contended sites") {
			t.Errorf("kernel %s -h speaks of finding contended sites:\n%s", sub, sout)
		}
	}
	if got := commands["kernel"].summary; !strings.Contains(got, "wakeups-model") {
		t.Errorf("kernel's summary %q after the subcommands' -h: not restored", got)
	}
	_, _, err := runContend("kernel", "bogus")
	if err == nil || !strings.Contains(err.Error(), "(want "+kernelSubList+")") {
		t.Errorf("kernel bogus: %v", err)
	}
}
