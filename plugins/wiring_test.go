package plugins_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoForeignAssignments: wiring is explicit. No file of the module, tests
// included, assigns to (or increments) a package-level variable of another
// membench package: values travel as arguments and fields, and plug-ins
// register through functions that check what they are given.
func TestNoForeignAssignments(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, where := range foreignAssignments(f) {
			t.Errorf("%s: assigns %s, a variable of another package", fset.Position(where.pos), where.name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files: the walk missed the module", files)
	}
}

type assignment struct {
	pos  token.Pos
	name string
}

// foreignAssignments lists the assignments in f to pkg.Name where pkg is
// the name f imports a membench package under, and no local of the same
// name is declared in f (a conservative check: a file that shadows an
// import name is not searched for that name).
func foreignAssignments(f *ast.File) []assignment {
	pkgs := map[string]bool{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if path != "membench" && !strings.HasPrefix(path, "membench/") {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		if name != "_" && name != "." {
			pkgs[name] = true
		}
	}
	shadowed := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			for _, id := range n.Names {
				shadowed[id.Name] = true
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				shadowed[id.Name] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, e := range n.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						shadowed[id.Name] = true
					}
				}
			}
		}
		return true
	})
	var out []assignment
	check := func(e ast.Expr) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return
		}
		if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] && !shadowed[id.Name] {
			out = append(out, assignment{sel.Pos(), id.Name + "." + sel.Sel.Name})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				check(e)
			}
		case *ast.IncDecStmt:
			check(n.X)
		}
		return true
	})
	return out
}
