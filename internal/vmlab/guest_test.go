package vmlab

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// transcript writes outputs as the guest's emit does: base64 at 76 columns,
// lines ending \r\n as the tty's onlcr makes them.
func transcript(outs ...Output) string {
	var b strings.Builder
	for _, o := range outs {
		b.WriteString(markBegin + o.Name + "\r\n")
		enc := base64.StdEncoding.EncodeToString(o.Data)
		for len(enc) > 76 {
			b.WriteString(enc[:76] + "\r\n")
			enc = enc[76:]
		}
		if enc != "" {
			b.WriteString(enc + "\r\n")
		}
		b.WriteString(markEnd + o.Name + " rc=" + string(rune('0'+o.RC)) + " t=12.5\r\n")
	}
	return b.String()
}

func TestParseTranscript(t *testing.T) {
	long := bytes.Repeat([]byte("@@vmlab done\nbinary \x00\xff "), 40)
	in := transcript(Output{Name: "topo", Data: []byte(`{"x":1}`)}, Output{Name: "big", RC: 3, Data: long}, Output{Name: "empty"}) + markDone + "\r\n"
	tr, err := ParseTranscript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Done || len(tr.Outputs) != 3 {
		t.Fatalf("ParseTranscript = %d outputs, done %v; want 3, true", len(tr.Outputs), tr.Done)
	}
	if o := tr.Get("topo"); o == nil || string(o.Data) != `{"x":1}` || o.RC != 0 || o.At != 12.5 {
		t.Errorf("topo = %+v", o)
	}
	if o := tr.Get("big"); o == nil || !bytes.Equal(o.Data, long) || o.RC != 3 {
		t.Errorf("big: data or rc wrong: %+v", o)
	}
	if o := tr.Get("empty"); o == nil || len(o.Data) != 0 {
		t.Errorf("empty = %+v", o)
	}
	if tr.Get("nope") != nil {
		t.Error("Get(nope) found an output")
	}
}

func TestParseTranscriptCutOff(t *testing.T) {
	// The guest died in the middle of an output: what came is kept, rc -1.
	in := transcript(Output{Name: "a", Data: []byte("one")}) + markBegin + "b\r\n" + base64.StdEncoding.EncodeToString([]byte("partial")) + "\r\n"
	tr, err := ParseTranscript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Done {
		t.Error("Done without the done line")
	}
	if o := tr.Get("b"); o == nil || o.RC != -1 || string(o.Data) != "partial" {
		t.Errorf("b = %+v, want rc -1 and its data", o)
	}
}

func TestParseTranscriptErrors(t *testing.T) {
	for _, in := range []string{
		markEnd + "a rc=0\n",
		markBegin + "a\n" + markEnd + "b rc=0\n",
		markBegin + "a\n" + markEnd + "a rc=x\n",
		markBegin + "a\n!!!!\n" + markEnd + "a rc=0\n",
	} {
		if _, err := ParseTranscript(strings.NewReader(in)); err == nil {
			t.Errorf("ParseTranscript(%q) succeeded", in)
		}
	}
}

func FuzzParseTranscript(f *testing.F) {
	f.Add(transcript(Output{Name: "topo", Data: []byte("{}")}) + markDone + "\n")
	f.Add(markBegin + "a\nAAAA\n")
	f.Add(markEnd + "a rc=0\n")
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := ParseTranscript(strings.NewReader(in))
		if err == nil && tr == nil {
			t.Fatal("nil transcript without an error")
		}
	})
}

func TestInitScript(t *testing.T) {
	topo, _ := Lookup("offline-2s")
	s := InitScript(topo, []string{"run a true", "run b false\n"})
	for _, want := range []string{"#!/bin/sh\n", "mount -t sysfs", "exec 3>/dev/ttyS1",
		"echo 0 > /sys/devices/system/cpu/cpu3/online\nrun a true\nrun b false\n", "@@vmlab done", "poweroff -f"} {
		if !strings.Contains(s, want) {
			t.Errorf("InitScript lacks %q", want)
		}
	}
}

func TestRunScriptQuotes(t *testing.T) {
	s := RunScript([]string{"run", "loadavg", "-variant", "it's/x=1", "-o", "r.txt"})
	if !strings.Contains(s, `run run contend 'run' 'loadavg' '-variant' 'it'\''s/x=1' '-o' 'r.txt'`) {
		t.Errorf("RunScript quoting wrong:\n%s", s)
	}
}
