package kernel

import (
	"bytes"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// task_group.cfs_rq is an array of pointers through 7.0 (Debian 7.0.13's
// BTF) and a per-cpu pointer in 7.2 (its BTF; 7.3's sched.h: "struct
// cfs_rq __percpu *cfs_rq", the cfs_rq inside struct cfs_tg_state); a
// fixture's opaque u64 says neither.
func TestCfsRqForm(t *testing.T) {
	cfsRq := &btf.Struct{Name: "cfs_rq", Size: 512}
	u64 := &btf.Int{Name: "u64", Size: 8}
	for _, c := range []struct {
		name string
		typ  btf.Type
		want string
	}{
		{"array", &btf.Pointer{Target: &btf.Pointer{Target: cfsRq}}, "array"},
		{"percpu", &btf.Pointer{Target: &btf.TypeTag{Value: "percpu", Type: cfsRq}}, "percpu"},
		{"percpu, untagged", &btf.Pointer{Target: cfsRq}, "percpu"},
		{"fixture", u64, ""},
	} {
		tg := &btf.Struct{Name: "task_group", Members: []btf.Member{{Name: "shares", Type: u64}, {Name: "cfs_rq", Type: c.typ, Offset: 64}}}
		if got := cfsRqForm(tg); got != c.want {
			t.Errorf("%s: cfsRqForm = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestLayoutOverloaded: root_domain's flag is overloaded (v6.9's name, a
// bool by 7.3) or overload before it (an int); either lands in
// RDOverloaded with its size, and neither name stays in Absent where
// one was found.
func TestLayoutOverloaded(t *testing.T) {
	boolT := &btf.Int{Name: "_Bool", Size: 1, Encoding: btf.Bool}
	intT := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	for _, c := range []struct {
		name     string
		member   string
		typ      btf.Type
		off      int64
		wantSize int64
	}{
		{"7.3's bool", "overloaded", boolT, 36, 1},
		{"6.1's int", "overload", intT, 40, 4},
	} {
		rd := &btf.Struct{Name: "root_domain", Size: 64, Members: []btf.Member{
			{Name: "refcount", Type: intT},
			{Name: c.member, Type: c.typ, Offset: btf.Bits(c.off * 8)},
		}}
		b, err := btf.NewBuilder([]btf.Type{rd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := b.Marshal(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		l, err := LayoutOf(spec)
		if err != nil {
			t.Fatal(err)
		}
		if l.RDOverloaded != c.off || l.RDOverloadedSize != c.wantSize {
			t.Errorf("%s: RDOverloaded %d, size %d; want %d, %d", c.name, l.RDOverloaded, l.RDOverloadedSize, c.off, c.wantSize)
		}
		for _, m := range []string{"root_domain.overloaded", "root_domain.overload"} {
			if why, ok := l.Absent[m]; ok {
				t.Errorf("%s: Absent[%s] = %q, want none", c.name, m, why)
			}
		}
	}
}
