package kernel

import (
	"strings"
	"testing"
)

func TestReadKallsyms(t *testing.T) {
	const in = `ffffffff81000000 T _text
ffffffff810e8d80 t update_load_avg
ffffffff810e9500 t update_blocked_averages
ffffffff810f5450 t _nohz_idle_balance.isra.0
ffffffff810f5830 t run_rebalance_domains
ffffffffc0000000 t mod_fn	[somemod]
ffffffff83f86ac0 b nohz
`
	s, err := ReadKallsyms(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		addr, size uint64
		ok         bool
	}{
		{"update_load_avg", 0xffffffff810e8d80, 0x780, true},
		{"_nohz_idle_balance", 0xffffffff810f5450, 0x3e0, true}, // the clone
		{"nohz", 0, 0, false},   // data, not a function
		{"mod_fn", 0, 0, false}, // a module's
		{"run_rebalance_domains", 0xffffffff810f5830, 0x2e73290, true},
	} {
		sym, size, ok := s.Func(c.name)
		if ok != c.ok || (ok && (sym.Addr != c.addr || size != min(c.size, maxFunc))) {
			t.Errorf("Func(%q) = %#x, %#x, %v; want %#x, %#x, %v", c.name, sym.Addr, size, ok, c.addr, min(c.size, maxFunc), c.ok)
		}
	}
	if sym, ok := s.At(0xffffffff810e9000); !ok || sym.Name != "update_load_avg" {
		t.Errorf("At(0xffffffff810e9000) = %v, %v; want update_load_avg", sym, ok)
	}
}

func TestReadKallsymsErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "lists no symbols"},
		{"ffffffff81000000 T\n", "kallsyms line 1: want"},
		{"ffffffff81000000 T _text\nzz T x\n", `kallsyms line 2: address "zz": not hex`},
		{"ffffffff81000000 TT _text\n", "kallsyms line 1: want"},
		{"0000000000000000 T _text\n0000000000000000 t f\n", "all zero"},
	} {
		_, err := ReadKallsyms(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadKallsyms(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzReadKallsyms: any input gives symbols or an error, never a panic,
// and every function found lies inside the table.
func FuzzReadKallsyms(f *testing.F) {
	f.Add("ffffffff81000000 T _text\nffffffff810e8d80 t update_load_avg\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadKallsyms(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, sym := range s.sorted {
			if fsym, size, ok := s.Func(sym.Name); ok && (size == 0 || size > maxFunc || !fsym.Text()) {
				t.Errorf("Func(%q) = %v, size %d", sym.Name, fsym, size)
			}
		}
	})
}
