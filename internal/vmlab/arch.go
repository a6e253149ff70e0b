package vmlab

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/contend/contend/internal/vmlab/topology"
)

// Arch is an architecture the lab boots guests of (topology.Arches).
type Arch = topology.Arch

// foreign says whether a's binaries cannot run on this host.
func foreign(a Arch) bool { return a.GOARCH != runtime.GOARCH }

// aptName is a package's name as apt takes it for a: with :arch when foreign.
func aptName(a Arch, pkg string) string {
	if foreign(a) {
		return pkg + ":" + a.DebArch
	}
	return pkg
}

// archInitHead is guest.go's /init head with a's data channel, after loading
// the modules it needs and waiting for its device to appear.
func archInitHead(a Arch) string {
	head := strings.ReplaceAll(initHead, "/dev/ttyS1", a.Data)
	if len(a.Modules) == 0 {
		return head
	}
	var load strings.Builder
	for _, m := range a.Modules {
		fmt.Fprintf(&load, "insmod /lib/modules/%s\n", filepath.Base(m))
	}
	fmt.Fprintf(&load, "i=0; while [ ! -e %s ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done\n", a.Data)
	mounts := "mount -t tmpfs tmpfs /tmp\n"
	return strings.Replace(head, mounts, mounts+load.String(), 1)
}

// foreignHost is h for building and fetching a foreign arch's files: its
// own Out and Cache subdirectories, so nothing collides with the host's.
func (h *Host) foreignHost(a Arch) *Host {
	fh := *h
	fh.Arch = a.GOARCH
	fh.Out = filepath.Join(h.Out, a.GOARCH)
	fh.Cache = filepath.Join(h.Cache, a.GOARCH)
	return &fh
}

func (h *Host) arch() Arch {
	if h.Arch == "" {
		return topology.Arches["amd64"]
	}
	return topology.Arches[h.Arch]
}

// ensureForeign makes apt able to fetch a's packages (dpkg
// --add-architecture, then apt-get update) and installs a's QEMU.
func (h *Host) ensureForeign(a Arch) error {
	if _, err := exec.LookPath(a.QEMU); err == nil {
		if out, _ := exec.Command("dpkg", "--print-foreign-architectures").Output(); strings.Contains(string(out), a.DebArch) {
			return nil
		}
	}
	h.logf("adding dpkg architecture %s, installing %s", a.DebArch, a.QEMUPackage)
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	if err := h.run("/", env, "dpkg", "--add-architecture", a.DebArch); err != nil {
		return err
	}
	if err := h.run("/", env, "apt-get", "update"); err != nil {
		return err
	}
	if _, err := exec.LookPath(a.QEMU); err == nil {
		return nil
	}
	return h.run("/", env, "apt-get", "install", "-y", "--no-install-recommends", a.QEMUPackage)
}

// download fetches pkg's .deb for a into the cache (apt-get download) unless
// one is there, and returns its path.
func (h *Host) download(pkg string) (string, error) {
	if err := os.MkdirAll(h.Cache, 0o755); err != nil {
		return "", err
	}
	glob := filepath.Join(h.Cache, strings.ReplaceAll(pkg, ":", "*")+"_*.deb")
	if debs, _ := filepath.Glob(glob); len(debs) > 0 {
		return debs[len(debs)-1], nil
	}
	a := h.arch()
	h.logf("downloading %s", aptName(a, pkg))
	if err := h.run(h.Cache, nil, "apt-get", "download", aptName(a, pkg)); err != nil {
		return "", fmt.Errorf("downloading %s: %w", aptName(a, pkg), err)
	}
	debs, _ := filepath.Glob(glob)
	if len(debs) == 0 {
		return "", fmt.Errorf("apt-get download %s left no .deb in %s", aptName(a, pkg), h.Cache)
	}
	return debs[len(debs)-1], nil
}

// busybox returns the static busybox the guests run: the host's for the
// host's arch, else bin/busybox from a's busybox-static package.
func (h *Host) busybox() (string, error) {
	a := h.arch()
	if !foreign(a) {
		return busyboxPath, nil
	}
	dst := filepath.Join(h.Cache, "busybox")
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	deb, err := h.download("busybox-static")
	if err != nil {
		return "", err
	}
	if err := extractFiles(deb, map[string]string{"./bin/busybox": dst}); err != nil {
		return "", err
	}
	return dst, os.Chmod(dst, 0o755)
}

// fetchModules returns the paths in the cache of a's Modules, taken from the
// kernel package pkg.
func (h *Host) fetchModules(pkg string) ([]string, error) {
	a := h.arch()
	if len(a.Modules) == 0 {
		return nil, nil
	}
	dir := filepath.Join(h.Cache, pkg+".modules")
	var paths []string
	want := map[string]string{}
	for _, m := range a.Modules {
		p := filepath.Join(dir, filepath.Base(m))
		paths = append(paths, p)
		if _, err := os.Stat(p); err != nil {
			want[m] = p
		}
	}
	if len(want) == 0 {
		return paths, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	deb, err := h.download(pkg)
	if err != nil {
		return nil, err
	}
	version := strings.TrimPrefix(pkg, "linux-image-")
	byName := map[string]string{}
	for m, p := range want {
		byName["./lib/modules/"+version+"/"+m] = p
	}
	return paths, extractFiles(deb, byName)
}

// extractFiles copies the named regular files out of a .deb's data archive
// to their destinations; each must be there.
func extractFiles(deb string, dst map[string]string) error {
	return extractMatching(deb, func(name string) (string, bool) {
		to, ok := dst[name]
		return to, ok
	}, len(dst))
}

// extractMatching copies the regular files of a .deb's data archive
// (dpkg-deb --fsys-tarfile) that match says to copy, each to the path it
// returns, and fails unless at least want were found.
func extractMatching(deb string, match func(name string) (dst string, ok bool), want int) error {
	cmd := exec.Command("dpkg-deb", "--fsys-tarfile", deb)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("dpkg-deb: %w", err)
	}
	found := 0
	tr := tar.NewReader(pipe)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			cmd.Wait()
			return fmt.Errorf("reading %s: %w", deb, err)
		}
		to, ok := match(hdr.Name)
		if !ok || hdr.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err == nil {
			err = os.WriteFile(to, data, 0o644)
		}
		if err != nil {
			cmd.Wait()
			return fmt.Errorf("%s from %s: %w", hdr.Name, deb, err)
		}
		found++
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("dpkg-deb --fsys-tarfile %s: %w: %s", deb, err, strings.TrimSpace(stderr.String()))
	}
	if found < want {
		return fmt.Errorf("%s holds %d of the %d files wanted", deb, found, want)
	}
	return nil
}

// assets returns the kernel and shared initramfs for t's arch: the host's
// from Prepare, a foreign one's prepared on first use (its packages,
// kernel, modules, binaries built for it, its base initramfs).
func (l *Lab) assets(t Topology) (kernel, base string, err error) {
	a := t.Architecture()
	if !foreign(a) {
		return l.kernel, l.base, nil
	}
	if f, ok := l.foreign[a.GOARCH]; ok {
		return f.kernel, f.base, nil
	}
	f := &Lab{Host: *l.foreignHost(a)}
	if err := f.prepareForeign(a); err != nil {
		return "", "", fmt.Errorf("preparing %s guests: %w", a.GOARCH, err)
	}
	if l.foreign == nil {
		l.foreign = map[string]*Lab{}
	}
	l.foreign[a.GOARCH] = f
	return f.kernel, f.base, nil
}

// prepareForeign is Prepare for a foreign arch. -kernel names the host
// arch's kernel, so a foreign guest always boots Debian's.
func (l *Lab) prepareForeign(a Arch) error {
	if err := l.ensureForeign(a); err != nil {
		return err
	}
	k, err := l.Host.Kernel("")
	if err != nil {
		return err
	}
	l.kernel = k
	if l.Host.modules, err = l.Host.fetchModules(strings.TrimSuffix(filepath.Base(k), ".bzImage")); err != nil {
		return err
	}
	bin := filepath.Join(l.Out, "bin")
	tests, err := l.Binaries(bin)
	if err != nil {
		return err
	}
	l.base = filepath.Join(l.Out, "base.cpio")
	return l.BaseInitramfs(bin, tests, l.base)
}
