package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hostile-config corpus: configs and tables made to break membench,
// each with the one error (exit 2, file and line) it must give. Deep
// nesting is generated below instead of committed.
const hostileConfigDir = "testdata/hostile-config/"

func TestHostileConfig(t *testing.T) {
	cases := map[string]string{
		"name-nul.toml":    `:3: name "out\x00put" must be a plain folder name, without control characters`,
		"name-long.toml":   `:3: name "` + strings.Repeat("n", 80) + `…" (300 bytes) must be a plain folder name of at most 200 bytes`,
		"star-params.toml": `:4: strategy "*": params do not apply to every strategy; list the strategies to give params to apart`,
		"cells.toml": `: the sweep has 1000 repeats of 1200 cells, 1.2e+06 cells in all: more than the 1000000 a sweep may have; ` +
			`lower repeats, or split the sweep into several configs`,
	}
	files, err := filepath.Glob(hostileConfigDir + "*.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(cases) {
		t.Errorf("%d files in %s, %d cases: every file needs a case", len(files), hostileConfigDir, len(cases))
	}
	for _, file := range files {
		want, ok := cases[filepath.Base(file)]
		if !ok {
			t.Errorf("%s: no case", file)
			continue
		}
		checkBadInput(t, file, file+want)
	}

	// Nesting 10,000 deep: the TOML decoder would take minutes and
	// gigabytes.
	dir := t.TempDir()
	const head = "strategies = [\"naive\"]\nworkloads = [\"synthetic/chain\"]\n"
	for name, content := range map[string]string{
		"inline.toml": head + "x = " + strings.Repeat("{a=", 10000) + "1" + strings.Repeat("}", 10000) + "\n",
		"dotted.toml": head + strings.Repeat("a.", 10000) + "a = 1\n",
	} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		checkBadInput(t, file, file+":3: nested more than 16 deep (tables, arrays and dotted keys): a config needs a few levels")
	}
}

// TestHostileBestTable: a best-known table of the wrong shape is named
// with its line, the field and what was expected.
func TestHostileBestTable(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ content, want string }{
		"type.json":   {"{\n  \"abc\": {\n    \"workload\": 5\n  }\n}\n", `:3: field "workload": want a string, got a number`},
		"syntax.json": {"{\n  \"abc\": {\n    \"workload\": \"w\"\n    \"n\": 3\n  }\n}\n", `:4: invalid JSON: invalid character '"' after object key:value pair`},
		"bound.json": {"{\n  \"abc\": {\"workload\": \"w\", \"footprint\": 3, \"bound\": 4},\n  \"de\": {\"workload\": \"w\", \"footprint\": 4, \"bound\": 4, \"optimal\": true}\n}\n",
			`:2: not a best-known table: entry "abc": footprint 3 is below its bound 4`},
		"array.json": {"[1]\n", `:1: the top level: want an object, got an array`},
	} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		r := membench(t, "best", "--table", file, "show")
		if want := "membench: " + file + tc.want + "\n"; r.code != 2 || r.stderr != want {
			t.Errorf("best --table %s: exit %d, stderr %q, want %q", name, r.code, r.stderr, want)
		}
	}
}
