package vmlab

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/contend/contend/internal/vmlab/topology"
)

// busyboxPath is the host's static busybox (busybox-static), which the
// guests of the host's arch run; the host's QEMU is topology.Arches'.
const busyboxPath = "/bin/busybox"

// A Host is where the lab keeps what it builds and downloads: Out (in the
// repository's out/, rebuilt each run) and Cache (outside the repository, so
// a fresh clone in CI reuses the kernel package).
type Host struct {
	Repo  string // module root
	Out   string // e.g. out/vmlab
	Cache string // e.g. /var/cache/contend-vmlab
	Log   io.Writer
	// Arch is the GOARCH of the guests it builds for ("" is amd64; see
	// topology.Arches); a foreign one's files live in Out/ARCH and Cache/ARCH.
	Arch string

	// AptOptions go before apt-get download's arguments: -o settings
	// naming a sources list and lists of the lab's own (kernellab's
	// Debian kernels 6.16 … 7.3), so the host's apt is left untouched.
	AptOptions []string

	modules []string // kernel modules BaseInitramfs adds (Arch.Modules)
}

func (h *Host) logf(format string, args ...any) { fmt.Fprintf(h.Log, "vmlab: "+format+"\n", args...) }

// run runs a command, its output into the log, and names it in the error.
func (h *Host) run(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(out.String())
		if len(tail) > 2000 {
			tail = "…" + tail[len(tail)-2000:]
		}
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail)
	}
	return nil
}

// EnsurePackages installs qemu-system-x86 and busybox-static through apt
// when their files are missing. A failing apt (no registry, not root) is an
// error: the lab is part of CI and must not pass by skipping.
func (h *Host) EnsurePackages() error {
	var missing []string
	host := topology.Arches["amd64"]
	if _, err := exec.LookPath(host.QEMU); err != nil {
		missing = append(missing, host.QEMUPackage)
	}
	if _, err := os.Stat(busyboxPath); err != nil || !isStatic(busyboxPath) {
		missing = append(missing, "busybox-static")
	}
	if len(missing) == 0 {
		return nil
	}
	h.logf("installing %s", strings.Join(missing, " "))
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	if err := h.run("/", env, "apt-get", "update"); err != nil {
		return fmt.Errorf("installing %s: %w", strings.Join(missing, " "), err)
	}
	args := append([]string{"install", "-y", "--no-install-recommends"}, missing...)
	if err := h.run("/", env, "apt-get", args...); err != nil {
		return fmt.Errorf("installing %s: %w", strings.Join(missing, " "), err)
	}
	return nil
}

// isStatic reports whether an ELF file has no program interpreter, which is
// what busybox-static's binary must be to run alone in the initramfs.
func isStatic(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && bytes.HasPrefix(data, []byte("\x7fELF")) && !bytes.Contains(data[:min(len(data), 4096)], []byte("/lib64/ld-linux"))
}

// Kernel returns the path of a bzImage: kernel when given, else the one in
// the cache, else the one taken from the Debian package linux-image-amd64
// depends on, fetched with apt-get download and unpacked without
// installing it.
func (h *Host) Kernel(kernel string) (string, error) {
	if kernel != "" {
		if _, err := os.Stat(kernel); err != nil {
			return "", fmt.Errorf("-kernel: %w", err)
		}
		return kernel, nil
	}
	if err := os.MkdirAll(h.Cache, 0o755); err != nil {
		return "", err
	}
	pkg, err := kernelPackage(h.arch())
	if err != nil {
		return "", err
	}
	return h.FetchKernel(pkg, aptName(h.arch(), pkg))
}

// FetchKernel returns the cached bzImage of a Debian kernel package,
// downloading the package (apt's name for it: aptName) and unpacking its
// vmlinuz first if need be.
func (h *Host) FetchKernel(pkg, aptName string) (string, error) {
	img := filepath.Join(h.Cache, pkg+".bzImage")
	if _, err := os.Stat(img); err == nil {
		return img, nil
	}
	debs, _ := filepath.Glob(filepath.Join(h.Cache, pkg+"_*.deb"))
	if len(debs) == 0 {
		h.logf("downloading %s", pkg)
		download := append(slices.Clone(h.AptOptions), "download", aptName)
		if err := h.run(h.Cache, nil, "apt-get", download...); err != nil {
			if err2 := h.run("/", nil, "apt-get", append(slices.Clone(h.AptOptions), "update")...); err2 != nil {
				return "", fmt.Errorf("downloading %s: %w", pkg, err)
			}
			if err := h.run(h.Cache, nil, "apt-get", download...); err != nil {
				return "", fmt.Errorf("downloading %s: %w", pkg, err)
			}
		}
		debs, _ = filepath.Glob(filepath.Join(h.Cache, pkg+"_*.deb"))
		if len(debs) == 0 {
			return "", fmt.Errorf("apt-get download %s left no .deb in %s", pkg, h.Cache)
		}
	}
	sort.Strings(debs)
	if err := extractKernel(debs[len(debs)-1], img); err != nil {
		return "", err
	}
	return img, nil
}

// kernelPackage asks apt which linux-image-*-ARCH package a's metapackage
// depends on now (linux-image-6.1.0-57-amd64 on bookworm at the time of
// writing), without the :arch apt adds to a foreign one's name.
func kernelPackage(a Arch) (string, error) {
	meta := aptName(a, a.KernelMeta)
	out, err := exec.Command("apt-cache", "depends", meta).Output()
	if err != nil {
		return "", fmt.Errorf("apt-cache depends %s: %w (is apt's package list fetched? apt-get update)", meta, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if dep, ok := strings.CutPrefix(strings.TrimSpace(line), "Depends: "); ok && strings.HasPrefix(dep, "linux-image-") {
			dep, _, _ = strings.Cut(dep, ":")
			return dep, nil
		}
	}
	return "", fmt.Errorf("apt-cache depends %s names no linux-image package", meta)
}

// extractKernel copies the vmlinuz out of a kernel .deb's data archive
// (dpkg-deb --fsys-tarfile) into dst: boot/vmlinuz-V to Debian's 6.18,
// usr/lib/modules/V/vmlinuz in linux-binary-V from 6.19.
func extractKernel(deb, dst string) error {
	err := extractMatching(deb, func(name string) (string, bool) {
		return dst + ".tmp", isVmlinuz(name)
	}, 1)
	if err != nil {
		return err
	}
	return os.Rename(dst+".tmp", dst)
}

// Binaries builds contend and every package's test binary under bench/
// statically (CGO_ENABLED=0: the initramfs has no libc) into dir, and
// returns the test binaries' names.
func (h *Host) Binaries(dir string) ([]string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + h.arch().GOARCH}
	h.logf("building contend and the bench/... test binaries (CGO_ENABLED=0)")
	if err := h.run(h.Repo, env, "go", "build", "-ldflags=-s -w", "-o", filepath.Join(dir, "contend"), "./cmd/contend"); err != nil {
		return nil, err
	}
	tests := filepath.Join(dir, "tests")
	if err := os.MkdirAll(tests, 0o755); err != nil {
		return nil, err
	}
	if err := h.run(h.Repo, env, "go", "test", "-c", "-ldflags=-s -w", "-o", tests+"/", "./bench/..."); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(tests)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".test") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, errors.New("go test -c ./bench/... built no test binaries")
	}
	return names, nil
}

// BaseInitramfs writes the archive every guest shares: busybox with a link
// for each of its applets, contend and the test binaries.
func (h *Host) BaseInitramfs(bin string, tests []string, dst string) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer f.Close()
	c := newCPIO(f)
	for _, d := range []string{"proc", "sys", "dev", "tmp", "root"} {
		c.mkdirAll(d)
	}
	bb, err := h.busybox()
	if err != nil {
		return err
	}
	c.CopyFile("bin/busybox", bb, 0o755)
	for _, m := range h.modules {
		c.mkdirAll("lib/modules")
		c.CopyFile("lib/modules/"+filepath.Base(m), m, 0o644)
	}
	applets, err := exec.Command(busyboxPath, "--list").Output()
	if err != nil {
		return fmt.Errorf("busybox --list: %w", err)
	}
	for _, a := range strings.Fields(string(applets)) {
		if a != "busybox" {
			c.Symlink("bin/"+a, "busybox")
		}
	}
	c.CopyFile("bin/contend", filepath.Join(bin, "contend"), 0o755)
	for _, t := range tests {
		c.CopyFile("tests/"+t, filepath.Join(bin, "tests", t), 0o755)
	}
	if err := c.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return f.Close()
}

// GuestInitramfs writes base followed by a second archive holding /init:
// the kernel unpacks both, in order.
func GuestInitramfs(base, initScript, dst string) error {
	data, err := os.ReadFile(base)
	if err != nil {
		return err
	}
	var extra bytes.Buffer
	c := newCPIO(&extra)
	c.File("init", 0o755, []byte(initScript))
	if err := c.Close(); err != nil {
		return err
	}
	return os.WriteFile(dst, append(data, extra.Bytes()...), 0o644)
}

// isVmlinuz reports whether a path in a kernel package's data archive is
// its compressed kernel.
func isVmlinuz(name string) bool {
	if strings.HasPrefix(name, "./boot/vmlinuz-") {
		return true
	}
	rest, ok := strings.CutPrefix(name, "./usr/lib/modules/")
	return ok && strings.HasSuffix(rest, "/vmlinuz") && strings.Count(rest, "/") == 1
}
