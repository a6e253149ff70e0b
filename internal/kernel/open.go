package kernel

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The files the finder reads, relative to the root ("/" on a live
// machine, a fixture directory in tests).
const (
	btfPath      = "sys/kernel/btf/vmlinux"
	kallsymsPath = "proc/kallsyms"
	kcorePath    = "proc/kcore"
	lockdownPath = "sys/kernel/security/lockdown"
	configPath   = "proc/config.gz"
)

// Source is a kernel opened for the finder.
type Source struct {
	Input
	Machine elf.Machine // the kernel's, from its core
	kcore   *os.File
}

// Close releases the core.
func (s *Source) Close() error { return s.kcore.Close() }

// Open reads the kernel under root: its BTF layout, kallsyms and core. Each
// error is one line naming what is missing and why, in the order a user
// has to fix them.
func Open(root string) (*Source, error) {
	raw, err := os.ReadFile(filepath.Join(root, btfPath))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no BTF: /%s does not exist (kernel built without CONFIG_DEBUG_INFO_BTF)", btfPath)
	case err != nil:
		return nil, fmt.Errorf("no BTF: %w", err)
	}
	l, err := ReadLayout(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("/%s: %w", btfPath, err)
	}

	ks, err := os.Open(filepath.Join(root, kallsymsPath))
	if err != nil {
		return nil, fmt.Errorf("no kallsyms: %w", err)
	}
	syms, err := ReadKallsyms(ks)
	ks.Close()
	if err != nil {
		return nil, fmt.Errorf("/%s: %w", kallsymsPath, err)
	}

	if mode := Lockdown(root); mode == "confidentiality" {
		return nil, fmt.Errorf("kernel lockdown is %q: it refuses /%s and perf's kernel breakpoints", mode, kcorePath)
	}
	kc, err := os.Open(filepath.Join(root, kcorePath))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why := "kernel built without CONFIG_PROC_KCORE, or a container hides it"
		if v, ok := Config(root, "CONFIG_PROC_KCORE"); ok && v == "" {
			why = "CONFIG_PROC_KCORE is not set in /" + configPath
		}
		return nil, fmt.Errorf("no /%s: the kernel's text cannot be read (%s)", kcorePath, why)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("/%s: permission denied (needs root, CAP_SYS_RAWIO)", kcorePath)
	case err != nil:
		return nil, fmt.Errorf("/%s: %w", kcorePath, err)
	}
	core, err := OpenCore(kc)
	if err != nil {
		kc.Close()
		return nil, fmt.Errorf("/%s: %w", kcorePath, err)
	}
	m := core.Machine
	if m != elf.EM_X86_64 {
		kc.Close()
		return nil, fmt.Errorf("kernel is %v: the finder decodes x86-64 only (its sites are x86 lock-prefixed instructions)", m)
	}
	return &Source{Input: Input{Layout: l, Syms: syms, Mem: core}, Machine: m, kcore: kc}, nil
}

// Lockdown returns the kernel's lockdown mode (none, integrity,
// confidentiality), or "" where the kernel has no lockdown LSM.
func Lockdown(root string) string {
	b, err := os.ReadFile(filepath.Join(root, lockdownPath))
	if err != nil {
		return ""
	}
	// "none [integrity] confidentiality": the bracketed one is in force.
	for _, f := range strings.Fields(string(b)) {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			return strings.Trim(f, "[]")
		}
	}
	return ""
}

// Config returns a kernel config option's value from /proc/config.gz
// ("" for "is not set"), and whether the kernel exposes its config.
func Config(root, option string) (string, bool) {
	f, err := os.Open(filepath.Join(root, configPath))
	if err != nil {
		return "", false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", false
	}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), option+"="); ok {
			return v, true
		}
	}
	return "", sc.Err() == nil
}
