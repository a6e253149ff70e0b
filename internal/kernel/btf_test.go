package kernel

import (
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
