package vmlab

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The guest talks to the host over its second serial port (ttyS1, a file
// on the host): the console (ttyS0) carries the kernel's messages, which
// could land in the middle of a line, so it is kept only as a log. Each
// step's output goes out base64-encoded between two marker lines, so any
// bytes survive the tty and nothing a command prints can fake a marker:
//
//	@@vmlab begin NAME
//	<base64 lines>
//	@@vmlab end NAME rc=N t=SECONDS
//
// where SECONDS is the guest's uptime at the end (for the lab's log of
// where the time goes; a TCG guest's seconds are no measurement).
// The guest's first line is "@@vmlab init", sent as soon as /init has the
// channel open (the host's sign that the kernel booted: see QEMU), and its
// last line is "@@vmlab done".
const (
	markInit  = "@@vmlab init"
	markBegin = "@@vmlab begin "
	markEnd   = "@@vmlab end "
	markDone  = "@@vmlab done"
)

// initHead is the start of every guest's /init: the file systems the
// commands need, the data channel on fd 3, and the two shell functions the
// steps use. run NAME CMD... runs a command into NAME's output (stdout and
// stderr); runo NAME CMD... sends its stdout as NAME and its stderr as
// NAME.err, for output that must parse (JSON); emit NAME FILE RC sends a
// file. Every step's commands are bounded by timeout, so a
// hung command costs its step, not the lab.
const initHead = `#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mkdir -p /tmp/out
# The loopback a booted system's init brings up: kernel count -shape udp
# and server send over it ("network is unreachable" without).
ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null
cd /tmp
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 3>/dev/ttyS1
echo "@@vmlab init" >&3
emit() {
	echo "@@vmlab begin $1" >&3
	base64 "$2" >&3
	read up idle < /proc/uptime
	echo "@@vmlab end $1 rc=$3 t=$up" >&3
}
run() {
	n=$1; shift
	"$@" > /tmp/out/$n 2>&1
	rc=$?
	emit "$n" "/tmp/out/$n" $rc
}
runo() {
	n=$1; shift
	"$@" > /tmp/out/$n 2> /tmp/out/$n.err
	rc=$?
	emit "$n" "/tmp/out/$n" $rc
	emit "$n.err" "/tmp/out/$n.err" $rc
}
`

// initTail powers the guest off; -no-reboot and panic=-1 make QEMU exit
// instead should /init die first.
const initTail = `echo "@@vmlab done" >&3
sync
poweroff -f
`

// InitScript returns the guest's /init for t running the shell snippets
// body (each a step's commands).
func InitScript(t Topology, body []string) string {
	var b strings.Builder
	b.WriteString(archInitHead(t.Architecture()))
	for _, c := range t.Offline {
		fmt.Fprintf(&b, "echo 0 > /sys/devices/system/cpu/cpu%d/online\n", c)
	}
	for _, s := range body {
		b.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteString("\n")
		}
	}
	b.WriteString(initTail)
	return b.String()
}

// An Output is what one guest command sent back.
type Output struct {
	Name string
	RC   int
	Data []byte
	At   float64 // the guest's uptime when it ended, in seconds
}

// A Transcript is everything a guest sent over its data channel, and what
// the host knows of the run that the checks need.
type Transcript struct {
	Outputs []Output
	Done    bool // the guest reached the end of /init

	// Accel is the accelerator the guest ran under ("tcg" or "kvm"), set
	// by Lab.Boot: a check may gate on a timing only under kvm, since
	// TCG's timings measure the emulator on a host that may be busy.
	Accel string
	// Notes are lines the checks report without failing (Notef): the
	// figures a guest measured that decide nothing, printed in the lab's
	// output beside the verdict.
	Notes []string
}

// Notef adds a reported line to the transcript's Notes.
func (t *Transcript) Notef(format string, args ...any) {
	t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
}

// Get returns the output named name, or nil.
func (t *Transcript) Get(name string) *Output {
	for i := range t.Outputs {
		if t.Outputs[i].Name == name {
			return &t.Outputs[i]
		}
	}
	return nil
}

// ParseTranscript reads the data channel. An output cut off by the guest's
// death is kept with RC -1 and what arrived of it, so the report can show it.
func ParseTranscript(r io.Reader) (*Transcript, error) {
	t := &Transcript{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cur *Output
	var b64 bytes.Buffer
	flush := func(rc int) error {
		data, err := base64.StdEncoding.DecodeString(b64.String())
		if err != nil && rc != -1 {
			return fmt.Errorf("output %s: %w", cur.Name, err)
		}
		cur.Data, cur.RC = data, rc
		t.Outputs = append(t.Outputs, *cur)
		cur = nil
		b64.Reset()
		return nil
	}
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, markBegin):
			if cur != nil {
				if err := flush(-1); err != nil {
					return nil, err
				}
			}
			cur = &Output{Name: strings.TrimPrefix(line, markBegin)}
		case strings.HasPrefix(line, markEnd):
			if cur == nil {
				return nil, fmt.Errorf("%q without a begin line", line)
			}
			name, rest, ok := strings.Cut(strings.TrimPrefix(line, markEnd), " rc=")
			rcs, ts, _ := strings.Cut(rest, " t=")
			rc, err := strconv.Atoi(rcs)
			if !ok || err != nil || name != cur.Name {
				return nil, fmt.Errorf("bad end line %q for output %s", line, cur.Name)
			}
			cur.At, _ = strconv.ParseFloat(ts, 64)
			if err := flush(rc); err != nil {
				return nil, err
			}
		case line == markDone:
			t.Done = true
		case cur != nil:
			b64.WriteString(line)
		}
	}
	if cur != nil {
		if err := flush(-1); err != nil {
			return nil, err
		}
	}
	return t, sc.Err()
}

// RunScript runs contend with args in the scratch directory /tmp/work and
// sends back its output ("run") and the files it left there ("files.tgz").
func RunScript(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return "mkdir -p /tmp/work && cd /tmp/work\n" +
		"run run contend " + strings.Join(q, " ") + "\n" +
		"tar czf /tmp/files.tgz . && emit files.tgz /tmp/files.tgz 0\ncd /tmp\n"
}
