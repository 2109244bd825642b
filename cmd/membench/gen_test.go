package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membench/workloads"
)

func init() {
	workloads.Register(workloads.Info{
		Name: "test/gen-tiny",
		Doc:  "test only: three buffers with labels, alignment and capacity",
		New: func(*workloads.Args) (*workloads.Problem, error) {
			return &workloads.Problem{Alignment: 64, Capacity: 4096, Buffers: []workloads.Buffer{
				{ID: 0, Size: 16, First: 0, Last: 1},
				{ID: 2, Size: 8, First: 1, Last: 2},
				{ID: 1, Size: 0, First: 2, Last: 2},
			}}, nil
		},
	})
}

func TestGenFormats(t *testing.T) {
	cases := []struct{ format, want string }{
		{"tflite", "size,first_task,last_task\n16,0,1\n8,1,2\n0,2,2\n"},
		{"minimalloc", "id,lower,upper,size,alignment\n0,0,2,16,64\n2,1,3,8,64\n1,2,3,0,64\n"},
		{"trace", "a,0,16\na,2,8\nf,0,\na,1,0\nf,1,\nf,2,\n"},
		{"json", `{
  "name": "test/gen-tiny",
  "alignment": 64,
  "capacity": 4096,
  "buffers": [
    {"id": 0, "size": 16, "first": 0, "last": 1},
    {"id": 2, "size": 8, "first": 1, "last": 2},
    {"id": 1, "size": 0, "first": 2, "last": 2}
  ]
}
`},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			r := expect(t, 0, nil, "gen", "test/gen-tiny", "--format", c.format)
			if r.stdout != c.want {
				t.Fatalf("stdout:\n%s\nwant\n%s", r.stdout, c.want)
			}
			// --out writes the same bytes.
			out := filepath.Join(t.TempDir(), "w."+c.format)
			expect(t, 0, nil, "gen", "--format", c.format, "--out", out, "test/gen-tiny")
			if got, err := os.ReadFile(out); err != nil || string(got) != c.want {
				t.Fatalf("--out file: %q, %v", got, err)
			}
		})
	}
	// JSON is the default format.
	if r := expect(t, 0, nil, "gen", "test/gen-tiny"); !strings.HasPrefix(r.stdout, "{\n") {
		t.Fatalf("default format: %q", r.stdout)
	}
}

// normalize drops all whitespace for "equal modulo whitespace".
func normalize(s string) string { return strings.Join(strings.Fields(s), "") }

// TestGenMiniMallocRoundTrip: gen of each shared MiniMalloc instance back
// to MiniMalloc reproduces the file.
func TestGenMiniMallocRoundTrip(t *testing.T) {
	const dir = "../../../shared/workloads/minimalloc/"
	files, _ := filepath.Glob(dir + "*.csv")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("%s absent: %v", dir, err)
	}
	if len(files) != 12 {
		t.Fatalf("%d instances in %s, want 12", len(files), dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r := expect(t, 0, nil, "gen", f, "--format", "minimalloc")
			if normalize(r.stdout) != normalize(string(want)) {
				t.Fatalf("gen changed %s:\n%s", f, r.stdout)
			}
			// Through JSON and back keeps it too (ids, labels, lifetimes).
			js := filepath.Join(t.TempDir(), "p.json")
			expect(t, 0, nil, "gen", f, "--format", "json", "--out", js)
			if r := expect(t, 0, nil, "gen", js, "--format", "minimalloc"); normalize(r.stdout) != normalize(string(want)) {
				t.Fatalf("via JSON:\n%s", r.stdout)
			}
		})
	}
}

// TestGenTraceKeepsViews: a recorded trace is written as recorded.
func TestGenTraceKeepsViews(t *testing.T) {
	in := filepath.Join(t.TempDir(), "v.trace")
	const trace = "a,1,10\nv,2,1\nf,1,\na,3,4\nf,2,\nf,3,\n"
	if err := os.WriteFile(in, []byte("# views\n"+trace), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := expect(t, 0, nil, "gen", in, "--format", "trace"); r.stdout != trace {
		t.Fatalf("got\n%s", r.stdout)
	}
	// As a problem the view is folded into its storage.
	if r := expect(t, 0, nil, "gen", in, "--format", "tflite"); r.stdout != "size,first_task,last_task\n10,0,4\n4,3,5\n" {
		t.Fatalf("got\n%s", r.stdout)
	}
}

func TestGenErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("id,lower,upper,size\n0,0,3,4\n1,5,2,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"gen", bad, "--out", out}, bad + ":3: upper 2 must be greater than lower 5 (the lifetime [lower, upper) is half-open)"},
		{[]string{"gen", "test/gen-tiny", "--format", "yaml", "--out", out}, `gen: unknown --format "yaml" (valid: tflite, minimalloc, trace, json)`},
		{[]string{"gen", "no/such-workload", "--out", out}, `unknown workload "no/such-workload": no such file or registered name`},
		{[]string{"gen", "test/gen-tiny?n=1", "--out", out}, `test/gen-tiny: unknown parameter "n" (it takes none)`},
		{[]string{"gen"}, "gen: want exactly one WORKLOAD, got 0"},
		{[]string{"gen", "test/gen-tiny", "--out", filepath.Join(dir, "missing", "x.csv")}, "gen: --out " + filepath.Join(dir, "missing", "x.csv") + ": no such file or directory"},
	}
	for _, c := range cases {
		r := expect(t, 2, []string{c.want}, c.args...)
		if r.stdout != "" {
			t.Errorf("%q wrote to stdout: %q", c.args, r.stdout)
		}
	}
	// Nothing partial: the old file is intact and no temporary is left.
	if got, _ := os.ReadFile(out); string(got) != "previous\n" {
		t.Fatalf("--out file changed to %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("files left in the output folder: %v", names)
	}
}
