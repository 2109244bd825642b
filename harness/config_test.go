package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// TestParseConfigLines: every config error names the file and the line of
// the bad key or entry, in words, with no Go types.
func TestParseConfigLines(t *testing.T) {
	const ok = "strategies = [\"naive\"]\nworkloads = [\"synthetic/chain\"]\n"
	for _, tc := range []struct{ name, in, want string }{
		{"unknown workload param", "name = \"x\"\nrepeats = 1\nstrategies = [\"naive\"]\nworkloads = [\"synthetic/chain?bogus=1\"]\n",
			`exp.toml:4: workload "synthetic/chain?bogus=1": unknown parameter "bogus" (valid: max, min, n, seed)`},
		{"entry on its own line", "strategies = [\"naive\"]\nworkloads = [\n  \"synthetic/chain\",\n  # a comment\n  { spec = \"synthetic/random-dag\", params = { n = [10, -1] } },\n]\n",
			`exp.toml:5: workload "synthetic/random-dag?n=-1": n=-1 must be in [0, 100000000]`},
		{"workload value", "strategies = [\"naive\"]\nworkloads = [\"synthetic/chain?n=abc\"]\n",
			`exp.toml:2: workload "synthetic/chain?n=abc": parameter n="abc": want an integer`},
		{"unknown strategy", "strategies = [\"naive\", \"nope\"]\nworkloads = [\"synthetic/chain\"]\n",
			`exp.toml:1: unknown strategy "nope" (valid: ` + strings.Join(strategies.Names(), ", ") + `, exec:PATH)`},
		{"strategy param", "workloads = [\"synthetic/chain\"]\nstrategies = [\"naive?x=1\"]\n",
			`exp.toml:2: strategy "naive?x=1": unknown parameter "x" (it takes none)`},
		{"allocator param", "workloads = [\"synthetic/chain\"]\nallocators = [\n 'bump',\n 'bfc?memory_limit=zz',\n]\n",
			`exp.toml:4: allocator "bfc?memory_limit=zz": parameter memory_limit="zz": want a byte size such as 4096, 64K, 1G`},
		{"subject twice", "workloads = [\"synthetic/chain\"]\nstrategies = [\"*\",\n \"naive\"]\n",
			`exp.toml:3: strategy "naive" listed twice (first on line 2)`},
		{"workload twice", "strategies = [\"naive\"]\nworkloads = [\"synthetic/chain?n=3\", { spec = \"synthetic/chain\", params = { n = [2, 3] } }]\n",
			`exp.toml:2: workload "synthetic/chain?n=3" listed twice (first on line 2)`},
		{"workload twice by seed", "seed = 4\nstrategies = [\"naive\"]\nworkloads = [\"synthetic/chain\",\n\"synthetic/chain?seed=4\"]\n",
			`exp.toml:4: workload "synthetic/chain?seed=4" listed twice (first on line 3)`},
		{"empty param list", "strategies = [\"naive\"]\nworkloads = [{ spec = \"synthetic/chain\", params = { n = [] } }]\n",
			`exp.toml:2: workload "synthetic/chain": param n: empty list`},
		{"param table", "strategies = [\"naive\"]\nworkloads = [{ spec = \"synthetic/chain\", params = { n = { a = 1 } } }]\n",
			`exp.toml:2: workload "synthetic/chain": param n: want a string, number or bool, got a table`},
		{"expansion bound", "strategies = [\"naive\"]\nworkloads = [{ spec = \"synthetic/chain\", params = { n = [" + strings.Repeat("1,", 101) + "1], seed = [" + strings.Repeat("1,", 99) + "1] } }]\n",
			`exp.toml:2: workload "synthetic/chain": params expand to more than 10000 specs`},
		{"unknown key", "name = \"x\"\n\nbogus = 1\n" + ok,
			`exp.toml:3: unknown key "bogus" (valid: name, seed, repeats, timeout, benchtime, samples, memory_limit, max_n, workloads, strategies, allocators)`},
		{"unknown table", ok + "[bogus]\nx = 1\n",
			`exp.toml:3: unknown key "bogus" (valid: name, seed, repeats, timeout, benchtime, samples, memory_limit, max_n, workloads, strategies, allocators)`},
		{"entry key", "strategies = [\"naive\"]\nworkloads = [{ spec = \"synthetic/chain\", bogus = 1 }]\n",
			`exp.toml:2: workloads: unknown key "bogus" (valid: spec, params, max_n, only)`},
		{"only value", "strategies = [\"naive\"]\nworkloads = [{ spec = \"synthetic/chain\", only = \"both\" }]\n",
			`exp.toml:2: workloads: only: want "strategies" or "allocators", got "both"`},
		{"entry type", "strategies = [\"naive\"]\nworkloads = [5]\n", `exp.toml:2: workloads: want a spec string or a table, got an integer`},
		{"type", "repeats = \"3\"\n" + ok, `exp.toml:1: repeats: want an integer, got a string`},
		{"table type", "max_n = 3\n" + ok, `exp.toml:1: max_n: want a table, got an integer`},
		{"duration", "timeout = \"abc\"\n" + ok, `exp.toml:1: timeout: want a duration such as 90s or 5m, got "abc"`},
		{"negative duration", ok + "benchtime = \"-1s\"\n", `exp.toml:3: benchtime: duration "-1s" must be positive`},
		{"byte size", "memory_limit = \"8Q\"\n" + ok, `exp.toml:1: memory_limit: bad byte size "8Q"`},
		{"syntax", "name = \"x\n" + ok, `exp.toml:1: strings cannot contain newlines`},
		{"name", ok + "name = \"a/b\"\n", `exp.toml:3: name "a/b" must be a plain folder name`},
		{"no workloads", "strategies = [\"naive\"]\nworkloads = []\n", `exp.toml:2: no workloads`},
		{"no subjects", "workloads = [\"synthetic/chain\"]\n", `exp.toml: no strategies or allocators`},
		// Bounds (DESIGN: nothing that multiplies is unbounded).
		{"repeats", "repeats = 1000000000000\n" + ok, `exp.toml:1: repeats = 1000000000000: want 1 to 1000`},
		{"negative repeats", "repeats = -1\n" + ok, `exp.toml:1: repeats = -1: want 1 to 1000`},
		{"samples", ok + "samples = 1001\n", `exp.toml:3: samples = 1001: want 1 to 1000`},
		{"timeout overflow", "timeout = \"2562047h47m16s\"\n" + ok, `exp.toml:1: timeout = "2562047h47m16s": want at most 168h0m0s (a week)`},
		{"timeout past a week", "timeout = \"169h\"\n" + ok, `exp.toml:1: timeout = "169h0m0s": want at most 168h0m0s (a week)`},
		{"benchtime", "benchtime = \"2m\"\n" + ok, `exp.toml:1: benchtime = "2m0s": want at most 1m0s`},
		{"negative max_n", "max_n = { naive = 3, \"min-cost-flow\" = -5 }\n" + ok,
			`exp.toml:1: max_n "min-cost-flow" = -5: want a buffer count from 0 (no limit) to 1099511627776`},
		{"negative max_n table", ok + "\n[max_n]\nnaive = 1\ngreedy-by-size = -1\n",
			`exp.toml:6: max_n "greedy-by-size" = -1: want a buffer count from 0 (no limit) to 1099511627776`},
		{"negative entry max_n", "workloads = [\"synthetic/chain\"]\nstrategies = [{ spec = \"naive\", max_n = -1 }]\n",
			`exp.toml:2: strategies: max_n = -1: want a buffer count from 0 (no limit) to 1099511627776`},
		{"long value", "strategies = [\"naive\"]\nworkloads = [\"" + strings.Repeat("x", 200) + "\"]\n",
			`exp.toml:2: unknown workload "` + strings.Repeat("x", 80) + `…" (200 bytes): no such file or registered name (families: idealloc/..., minimalloc-small/..., minimalloc/..., onnx/..., recorded/..., synthetic/..., tflite/..., zoo/...; ` + "`membench list workloads`" + ` lists every name)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig("exp.toml", []byte(tc.in))
			var ie *workloads.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v (%T), want an InputError", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %s\nwant %s", err, tc.want)
			}
		})
	}
}

// TestConfigShape: configs nested deeper than MaxConfigDepth, with more
// than MaxConfigKeys keys or MaxConfigBytes bytes are refused on the line
// where they pass the bound, before the TOML decoder (whose time and
// memory explode on them) reads them.
func TestConfigShape(t *testing.T) {
	const ok = "strategies = [\"naive\"]\nworkloads = [\"synthetic/chain\"]\n"
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	dotted := func(n int) string { return strings.TrimSuffix(strings.Repeat("a.", n), ".") }
	const tooDeep = "nested more than 16 deep (tables, arrays and dotted keys): a config needs a few levels"
	for _, tc := range []struct{ name, in, want string }{
		{"inline tables 10,000 deep", ok + "x = " + deep("{a=", "}", 10000) + "\n", "exp.toml:3: " + tooDeep},
		{"arrays 10,000 deep", ok + "x = " + deep("[", "]", 10000) + "\n", "exp.toml:3: " + tooDeep},
		{"dotted key of 10,000 parts", ok + dotted(10000) + " = 1\n", "exp.toml:3: " + tooDeep},
		{"table header of 10,000 parts", ok + "[" + dotted(10000) + "]\nb = 1\n", "exp.toml:3: " + tooDeep},
		{"dotted keys in a deep header", ok + "[" + dotted(10) + "]\n" + dotted(8) + " = 1\n", "exp.toml:4: " + tooDeep},
		{"dotted keys in inline tables", ok + "x = {" + dotted(10) + " = {" + dotted(6) + " = 1}}\n", "exp.toml:3: " + tooDeep},
		{"arrays over lines", ok + "x = [\n" + strings.Repeat("[\n", 20) + "1" + strings.Repeat("]", 21) + "\n", "exp.toml:18: " + tooDeep},
		{"numeric dotted key", ok + strings.TrimSuffix(strings.Repeat("1.", 40), ".") + " = 1\n", "exp.toml:3: " + tooDeep},
		{"keys", ok + strings.Repeat("k = 1\n", MaxConfigKeys+1), "exp.toml:10001: more than 10000 keys: a config needs a few"},
		{"size", ok + "# " + strings.Repeat("x", MaxConfigBytes) + "\n", "exp.toml: 2097210 bytes: a config may have at most 2097152"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig("exp.toml", []byte(tc.in))
			var ie *workloads.InputError
			if !errors.As(err, &ie) || err.Error() != tc.want {
				t.Errorf("error\n got %v\nwant %s", err, tc.want)
			}
		})
	}
	// What is no nesting: brackets, braces and dots in strings and
	// comments, floats, dates, and the deepest a config needs.
	for _, in := range []string{
		"name = \"" + deep("{[", "]}", 20) + "\"\n" + ok,
		"name = '" + dotted(40) + "'\n" + ok,
		"name = \"\"\"\n" + deep("[", "]", 20) + "\n\\\"\"\"\n" + ok,
		"name = '''\n" + deep("[", "]", 20) + "\n'''\n" + ok,
		"# " + deep("[", "]", 20) + " " + dotted(40) + "\n" + ok,
		"workloads = [{ spec = \"synthetic/chain\", params = { n = [3, 4] } }, { spec = \"synthetic/random-dag\", params = { n = 5 } }]\n" +
			"strategies = [\"naive\"]\nx = [" + strings.Repeat("1.5, ", 100) + "1979-05-27T07:32:00.999]\n",
		ok + "[\"a.b\".c]\nd = [[[[[[[[[[1]]]]]]]]]]\n",
	} {
		if err := checkShape("exp.toml", in); err != nil {
			t.Errorf("checkShape(%.60q): %v", in, err)
		}
	}
	files, _ := filepath.Glob("../scripts/configs/*.toml")
	for _, f := range append(files, "default.toml", "../cmd/membench/testdata/tiny.toml") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkShape(f, string(data)); err != nil {
			t.Error(err)
		}
	}
}

// TestParseConfigAccepts: a byte-order mark, limits at their maxima and
// literal strings are fine.
func TestParseConfigAccepts(t *testing.T) {
	c, err := ParseConfig("exp.toml", []byte(workloads.BOM+"name = 'bom'\nrepeats = 1000\nsamples = 1000\ntimeout = \"168h\"\nbenchtime = \"1m\"\nmax_n = { naive = 0 }\n"+
		"workloads = ['synthetic/chain?n=3']\nstrategies = [{ spec = 'naive', max_n = 5 }]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "bom" || c.Repeats != MaxRepeats || c.Samples != MaxSamples || c.Timeout.Duration != MaxTimeout ||
		c.BenchTime.Duration != MaxBenchTime || c.Strategies[0].MaxN != 5 {
		t.Errorf("config %+v", c)
	}
}

// TestOnly runs a workload entry with only = "allocators" under the
// allocators alone, and one with only = "strategies" under the strategies.
func TestOnly(t *testing.T) {
	c, err := ParseConfig("only.toml", []byte(`repeats = 1
strategies = ["naive", "greedy-by-size"]
allocators = ["bump"]
workloads = [{ spec = "synthetic/chain?n=8", only = "allocators" }, { spec = "synthetic/chain?n=9", only = "strategies" }, "synthetic/chain?n=10"]
`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Expand()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cell := range m.Cells {
		got = append(got, strings.TrimPrefix(cell.Workload, "synthetic/chain?")+" "+cell.Subject)
	}
	want := "n=8&seed=0 bump, n=9&seed=0 naive, n=9&seed=0 greedy-by-size, n=10&seed=0 naive, n=10&seed=0 greedy-by-size, n=10&seed=0 bump"
	if strings.Join(got, ", ") != want {
		t.Errorf("cells %s\nwant  %s", strings.Join(got, ", "), want)
	}
}
