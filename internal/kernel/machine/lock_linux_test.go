package machine

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLockOneAtATime(t *testing.T) {
	root := t.TempDir()
	first, err := TakeLock(root, "kernel count")
	if err != nil {
		t.Fatal(err)
	}
	// flock is per open file: a second open in this process contends as
	// a second process would.
	_, err = TakeLock(root, "kernel count")
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("second TakeLock: %v, want ErrBusy", err)
	}
	msg := err.Error()
	for _, want := range []string{"pid " + strconv.Itoa(os.Getpid()), "(kernel count)", "started ", "one at a time"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("refusal is not one line: %q", msg)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if err := first.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	again, err := TakeLock(root, "kernel wakeups")
	if err != nil {
		t.Fatalf("TakeLock after Release: %v", err)
	}
	if h := ReadHolder(root); h.PID != os.Getpid() || h.What != "kernel wakeups" {
		t.Errorf("holder %+v, want this pid and kernel wakeups", h)
	}
	again.Release()
	if h := ReadHolder(root); h.PID != 0 {
		t.Errorf("released lock still names pid %d", h.PID)
	}
}

// TestLockDiesWithHolder: a holder killed with SIGKILL, which undoes
// nothing, leaves the lock free for the next run (which then removes
// what the dead one left).
func TestLockDiesWithHolder(t *testing.T) {
	if os.Getenv("CONTEND_LOCK_HOLDER") != "" {
		if _, err := TakeLock(os.Getenv("CONTEND_LOCK_HOLDER"), "holder"); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Hour)
		return
	}
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockDiesWithHolder$")
	cmd.Env = append(os.Environ(), "CONTEND_LOCK_HOLDER="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	_, err = TakeLock(root, "kernel count")
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(cmd.Process.Pid)+" (holder)") {
		t.Fatalf("while the holder lives: %v, want ErrBusy naming pid %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := TakeLock(root, "kernel count")
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	l.Release()
}

func TestParseHolder(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"pid 42\nstarted 2026-12-04T23:10:05Z\nwhat kernel count\n", "pid 42 (kernel count), started 2026-12-04T23:10:05Z"},
		{"pid 42\n", "pid 42"},
		{"", "a run that has not written its pid yet"},
		{"pid x\nstarted yesterday\n", "a run that has not written its pid yet"},
	} {
		if got := parseHolder(c.in).String(); got != c.want {
			t.Errorf("parseHolder(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
