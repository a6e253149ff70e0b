package all_test

import (
	"debug/elf"
	"debug/gosym"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

const module = "github.com/contend/contend"

// Every scenario names the functions its hot loop runs in, and each is in
// this test binary's symbol table under that name (so perf annotate, given
// it, finds it in contend's), and is declared //go:noinline in its package's
// source (so the compiler keeps it a function of its own, not inlined into
// its caller where its samples would be charged to another symbol).
func TestHotSymbols(t *testing.T) {
	syms := binarySymbols(t)
	for _, spec := range bench.Specs() {
		if len(spec.HotSymbols) == 0 {
			t.Errorf("%s declares no HotSymbols: perf-annotate.sh would have nothing to annotate", spec.Name)
		}
		for _, sym := range spec.HotSymbols {
			if syms != nil && !syms[sym] {
				t.Errorf("%s: hot symbol %s is not in the binary's symbol table", spec.Name, sym)
			}
			if err := declaredNoinline(sym); err != nil {
				t.Errorf("%s: hot symbol %s: %v", spec.Name, sym, err)
			}
		}
	}
}

// binarySymbols returns the functions of the running test binary, read
// from its Go line table (.gopclntab), which go test keeps when it strips
// the ELF symbol table: the names are the ones a go build of contend gives
// perf in its symbol table. nil (and a log line) where it is not ELF.
func binarySymbols(t *testing.T) map[string]bool {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Logf("not checking the symbol table: %v", err)
		return nil
	}
	defer f.Close()
	pcln, text := f.Section(".gopclntab"), f.Section(".text")
	if pcln == nil || text == nil {
		t.Fatalf("%s has no .gopclntab or .text", exe)
	}
	data, err := pcln.Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		t.Fatal(err)
	}
	syms := map[string]bool{}
	for _, fn := range tab.Funcs {
		syms[fn.Name] = true
	}
	return syms
}

// declaredNoinline finds sym ("<import path>.f", ".(*T).m" or ".T.m") in its
// package's source, below this module's root, and checks that its doc
// comment carries //go:noinline.
func declaredNoinline(sym string) error {
	slash := strings.LastIndexByte(sym, '/')
	dot := strings.IndexByte(sym[slash+1:], '.')
	if dot < 0 || !strings.HasPrefix(sym, module+"/") {
		return fmt.Errorf("not a function of a package of %s", module)
	}
	pkg, name := sym[:slash+1+dot], sym[slash+2+dot:]
	recv := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		recv, name = strings.Trim(name[:i], "()"), name[i+1:]
	}
	dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(pkg, module+"/")))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != name || receiver(fd) != recv {
				continue
			}
			if fd.Doc != nil {
				for _, c := range fd.Doc.List {
					if c.Text == "//go:noinline" {
						return nil
					}
				}
			}
			return errors.New("declared without //go:noinline")
		}
	}
	return fmt.Errorf("no such function in %s", dir)
}

// receiver spells fd's receiver type as a symbol does: "*T", "T", or "".
func receiver(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	switch t := fd.Recv.List[0].Type.(type) {
	case *ast.StarExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			return "*" + id.Name
		}
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
