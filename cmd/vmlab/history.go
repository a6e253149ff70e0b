package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/contend/contend/internal/vmlab"
	"github.com/contend/contend/internal/vmlab/kernellab"
)

// historyVersions are the Debian kernels the history boots by default:
// bookworm's 6.1 and 6.12 (seed 000's bracket), and trixie-backports'
// series from 6.16 to 7.3 (the newest of each), which bracket
// 3324b2180c17, 5d86d542f68f and cache-aware scheduling.
const historyVersions = "6.1,6.12,6.16,6.18,6.19,7.0,7.2,7.3"

func historyCmd(stdout, stderr io.Writer, args []string) error {
	fs, c := flags("vmlab history", stderr)
	versions := fs.String("versions", historyVersions, "comma-separated Debian `kernels` (-debian-kernel's forms), booted in this order")
	dir := fs.String("dir", "benchdata/kernel-history", "`directory` for each kernel's sites-RELEASE.txt and count-RELEASE.results, and history.txt")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("history: unexpected argument %q", fs.Arg(0))
	}
	if c.kernel != "" || c.debianKernel != "" {
		return errors.New("history: -versions names the kernels; -kernel and -debian-kernel do not apply")
	}
	vs := strings.Split(*versions, ",")
	t, err := vmlab.Lookup("oracle-2n")
	if err != nil {
		return err
	}
	t.Steps = []string{"kernel-sites", "kernel-count"}
	c.debianKernel = vs[0] // Prepare fetches the first; no default kernel
	l, err := c.lab(stderr)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	l.Keep = filepath.Join(l.Out, "history")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var failed []string
	for _, v := range vs {
		img, err := kernellab.DebianKernel(&l.Host, v)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", v, err))
			fmt.Fprintf(stdout, "vmlab: history: FAIL %s: %v\n", v, err)
			continue
		}
		l.UseKernel(img)
		t0 := time.Now()
		cerr := l.Check(ctx, t)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err = fmt.Errorf("no outputs came back from %s", filepath.Base(img))
		if l.Kept != "" {
			err = collect(l.Kept, *dir)
		}
		switch {
		case cerr != nil:
			failed = append(failed, fmt.Sprintf("%s: %v", v, cerr))
			fmt.Fprintf(stdout, "vmlab: history: FAIL %s in %.0fs: %v\n", v, time.Since(t0).Seconds(), cerr)
		case err != nil:
			failed = append(failed, fmt.Sprintf("%s: %v", v, err))
		default:
			fmt.Fprintf(stdout, "vmlab: history: ok %s in %.0fs\n", v, time.Since(t0).Seconds())
		}
	}
	// Every kernel counted into -dir, this run's and earlier runs' (a
	// version rerun alone replaces its own file).
	results, _ := filepath.Glob(filepath.Join(*dir, "count-*.results"))
	if len(results) > 0 {
		out := filepath.Join(*dir, "history.txt")
		cmd := exec.Command(filepath.Join(l.Out, "bin", "contend"), append([]string{"kernel", "history", "-o", out}, results...)...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Run(); err != nil {
			failed = append(failed, "contend kernel history: "+err.Error())
		} else {
			fmt.Fprintf(stdout, "vmlab: history: %d kernels laid side by side in %s\n", len(results), out)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("history: %d of %d kernels failed: %s", len(failed), len(vs), strings.Join(failed, "; "))
	}
	return nil
}

// collect copies a guest's sites and results file into dir, named by its
// release.
func collect(kept, dir string) error {
	release := strings.TrimPrefix(filepath.Base(kept), "oracle-2n-")
	for _, f := range []struct{ from, to string }{
		{"kernel-sites", "sites-" + release + ".txt"},
		{"kernel-count.results", "count-" + release + ".results"},
	} {
		b, err := os.ReadFile(filepath.Join(kept, f.from))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.to), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
