package kernel

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeRoot copies the 6.12 fixture into a root and lets edit break it.
func fakeRoot(t *testing.T, edit func(root string)) string {
	t.Helper()
	root := t.TempDir()
	for _, p := range []string{btfPath, kallsymsPath, kcorePath} {
		b, err := os.ReadFile(filepath.Join("testdata/debian-6.12", p))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, p), b)
	}
	edit(root)
	return root
}

// TestOpenErrors checks each thing the finder needs, taken away, gives
// one line naming it.
func TestOpenErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(root string)
		want string
	}{
		{"no BTF", func(r string) { os.Remove(filepath.Join(r, btfPath)) }, "no BTF: /sys/kernel/btf/vmlinux does not exist (kernel built without CONFIG_DEBUG_INFO_BTF)"},
		{"bad BTF", func(r string) { os.WriteFile(filepath.Join(r, btfPath), []byte("not btf"), 0o644) }, "/sys/kernel/btf/vmlinux: reading BTF:"},
		{"hidden addresses", func(r string) {
			os.WriteFile(filepath.Join(r, kallsymsPath), []byte("0000000000000000 T _text\n0000000000000000 t update_load_avg\n"), 0o644)
		}, "kallsyms addresses are all zero (not root, or kernel.kptr_restrict=2)"},
		{"no kcore", func(r string) { os.Remove(filepath.Join(r, kcorePath)) }, "no /proc/kcore: the kernel's text cannot be read (kernel built without CONFIG_PROC_KCORE, or a container hides it)"},
		{"no kcore, config", func(r string) {
			os.Remove(filepath.Join(r, kcorePath))
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write([]byte("CONFIG_FAIR_GROUP_SCHED=y\n# CONFIG_PROC_KCORE is not set\n"))
			zw.Close()
			write(t, filepath.Join(r, configPath), b.Bytes())
		}, "no /proc/kcore: the kernel's text cannot be read (CONFIG_PROC_KCORE is not set in /proc/config.gz)"},
		{"lockdown", func(r string) {
			write(t, filepath.Join(r, lockdownPath), []byte("none integrity [confidentiality]\n"))
		}, `kernel lockdown is "confidentiality"`},
		{"not a core", func(r string) { os.WriteFile(filepath.Join(r, kcorePath), []byte("junk"), 0o644) }, "/proc/kcore: reading kernel core:"},
		{"arm64", func(r string) {
			b, _ := os.ReadFile(filepath.Join(r, kcorePath))
			binary.LittleEndian.PutUint16(b[18:], uint16(elf.EM_AARCH64))
			os.WriteFile(filepath.Join(r, kcorePath), b, 0o644)
		}, "kernel is EM_AARCH64: the finder decodes x86-64 only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(fakeRoot(t, c.edit))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Open = %v, want one line with %q", err, c.want)
			}
		})
	}
	// Integrity lockdown leaves kcore readable.
	root := fakeRoot(t, func(r string) { write(t, filepath.Join(r, lockdownPath), []byte("none [integrity] confidentiality\n")) })
	src, err := Open(root)
	if err != nil {
		t.Fatalf("Open under integrity lockdown: %v", err)
	}
	src.Close()
}

// TestFindNoSites: a kernel whose hosts hold none of the sites.
func TestFindNoSites(t *testing.T) {
	root := fakeRoot(t, func(r string) {
		b, _ := os.ReadFile(filepath.Join(r, kcorePath))
		f, _ := elf.NewFile(strings.NewReader(string(b)))
		for _, p := range f.Progs {
			for i := p.Off; i < p.Off+p.Filesz; i++ {
				b[i] = 0x90 // nop
			}
		}
		os.WriteFile(filepath.Join(r, kcorePath), b, 0o644)
	})
	r := findIn(t, root)
	if len(r.Sites) != 0 {
		t.Errorf("found %v in nops", r.Sites)
	}
	if err := r.Err(); !errors.Is(err, ErrNoSites) {
		t.Errorf("Err() = %v, want ErrNoSites", err)
	}
}

func TestCoreReadOutside(t *testing.T) {
	src, err := Open("testdata/debian-6.1")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := src.Mem.ReadAt(make([]byte, 4), 0x1000); err == nil || !strings.Contains(err.Error(), "maps nothing at 0x1000") {
		t.Errorf("ReadAt(0x1000) = %v, want it to say nothing is mapped", err)
	}
}

// renameBTF is an edit for fakeRoot: the 6.12 fixture's BTF with one name
// changed, as a later kernel renames or drops a struct or member.
func renameBTF(t *testing.T, from, to string) func(string) {
	return func(r string) {
		raw, err := os.ReadFile("testdata/debian-6.12/" + btfPath)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(from)) || len(from) != len(to) {
			t.Fatalf("renameBTF %q -> %q: not in the fixture's BTF, or not the same length", from, to)
		}
		os.WriteFile(filepath.Join(r, btfPath), bytes.ReplaceAll(raw, []byte(from), []byte(to)), 0o644)
	}
}

// TestFindAbsentMembers: a struct or member a later kernel dropped or
// renamed is a "not in this kernel" line naming it, for the sites that
// need it only; every other site is still found and the command succeeds
// (Debian 7.3.4's renamed nohz.has_blocked and dropped nr_cpus failed it).
func TestFindAbsentMembers(t *testing.T) {
	for _, c := range []struct {
		name, from, to string
		gone           map[string]string // kind -> part of why
		form           string            // nohz-idle-mask's form, "" none
	}{
		{"no task_group", "task_group\x00", "task_grouX\x00", map[string]string{"tg-load-avg": "not in this kernel: BTF has no struct task_group"}, "counter and mask"},
		{"nohz without nr_cpus", "nr_cpus\x00", "nr_cpuX\x00", map[string]string{"nohz-nr-cpus": "5d86d542f68f"}, "mask weight"},
		{"no nohz struct", "next_blocked", "next_blockeX", map[string]string{
			"nohz-idle-mask": "not in this kernel: BTF has no anonymous struct nohz", "nohz-nr-cpus": "not in this kernel: BTF has no anonymous struct nohz",
		}, ""},
		{"no nr_busy_cpus", "nr_busy_cpus", "nr_busy_cpuX", map[string]string{"nr-busy-cpus": "not in this kernel: BTF: struct sched_domain_shared has no member nr_busy_cpus"}, "counter and mask"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := findIn(t, "testdata/debian-6.12")
			r := findIn(t, fakeRoot(t, renameBTF(t, c.from, c.to)))
			if err := r.Err(); err != nil {
				t.Fatalf("Err() = %v, want sites", err)
			}
			why := map[string]string{}
			for _, m := range r.Missing {
				why[m.Kind] = m.Why
			}
			found := map[string]bool{}
			for _, s := range r.Sites {
				found[s.Kind] = true
			}
			for _, k := range Kinds {
				part, gone := c.gone[k.Name]
				switch {
				case gone && found[k.Name]:
					t.Errorf("%s still found", k.Name)
				case gone && !strings.Contains(why[k.Name], part):
					t.Errorf("%s missing because %q, want it to say %q", k.Name, why[k.Name], part)
				case !gone && why[k.Name] != "" && !slices.ContainsFunc(base.Missing, func(m Miss) bool { return m.Kind == k.Name }):
					t.Errorf("%s missing (%q), want it found", k.Name, why[k.Name])
				}
			}
			if !strings.HasPrefix(r.Forms["nohz-idle-mask"], c.form) || (c.form == "") != (r.Forms["nohz-idle-mask"] == "") {
				t.Errorf("nohz form %q, want %q", r.Forms["nohz-idle-mask"], c.form)
			}
		})
	}
}
