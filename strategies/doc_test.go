package strategies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDocTable checks the package doc's planner -> runtime -> file
// table against the registry: every registered planner has a row, each
// row's runtime is the registered one, and its first file registers it.
func TestPackageDocTable(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ runtime, file string }
	rows := map[string]row{}
	for line := range strings.Lines(string(src)) {
		f := strings.Fields(strings.TrimPrefix(line, "//\t"))
		if !strings.HasPrefix(line, "//\t") || len(f) < 3 {
			continue
		}
		rows[f[0]] = row{f[1], strings.TrimSuffix(f[2], ",")}
	}
	// Planners the tests register (example_test.go) are not in the table.
	var code strings.Builder
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			b, _ := os.ReadFile(f)
			code.Write(b)
		}
	}
	n := 0
	for _, in := range All() {
		if !strings.Contains(code.String(), `"`+in.Name+`"`) {
			continue
		}
		n++
		r, ok := rows[in.Name]
		if !ok {
			t.Errorf("%s: no row in doc.go's table", in.Name)
			continue
		}
		if r.runtime != in.Runtime {
			t.Errorf("%s: doc.go says runtime %s, registered %s", in.Name, r.runtime, in.Runtime)
		}
		file, err := os.ReadFile(r.file)
		if err != nil {
			t.Errorf("%s: %v", in.Name, err)
			continue
		}
		if !strings.Contains(string(file), `"`+in.Name+`"`) {
			t.Errorf("%s: doc.go names %s, which does not name it", in.Name, r.file)
		}
	}
	if n < 20 {
		t.Errorf("checked %d planners against doc.go's table, want them all", n)
	}
}
