package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"membench/allocators"
	"membench/harness"
	"membench/results"
	"membench/results/plot"
	"membench/strategies"
	"membench/workloads"
)

// updateGolden rewrites the golden files in testdata/golden. Other test
// files of this package use it too; a flag can be defined only once.
var updateGolden = flag.Bool("update", false, "rewrite golden files in testdata/golden")

func TestMain(m *testing.M) {
	// Sweeps re-execute this test binary as their workers.
	if harness.IsWorker() {
		os.Exit(harness.WorkerMain())
	}
	os.Exit(m.Run())
}

// overlapper returns every buffer at offset 0: an invalid plan, to check
// that plans are validated. Registered in this test binary only.
type overlapper struct{}

func (overlapper) Name() string { return "test-overlap" }
func (overlapper) Plan(_ context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	plan := &strategies.Plan{Offsets: make([]int64, len(p.Buffers))}
	plan.Footprint = strategies.Footprint(p.Buffers, plan.Offsets)
	return plan, nil
}

func init() {
	strategies.Register(strategies.Info{Name: "test-overlap", Runtime: "membench", Kind: strategies.Offsets, Doc: "test only: everything at offset 0",
		New: strategies.Simple(func() strategies.Strategy { return overlapper{} })})
}

const (
	complexCSV = "../../strategies/testdata/tflite/complex.csv"
	emptyCSV   = "../../strategies/testdata/tflite/empty.csv"
	execDir    = "exec:../../strategies/testdata/exec/"
)

// result is what a user sees of one membench invocation.
type result struct {
	stdout, stderr string
	code           int
}

// membench runs the command line with args as main does.
func membench(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	code := exitCode(err, &errb)
	return result{out.String(), errb.String(), code}
}

// expect runs args and checks the exit code and that stderr holds every
// string of want.
func expect(t *testing.T, code int, want []string, args ...string) result {
	t.Helper()
	r := membench(t, args...)
	if r.code != code {
		t.Errorf("membench %q: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, r.code, code, r.stdout, r.stderr)
		return r
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("membench %q: stderr lacks %q:\n%s", args, w, r.stderr)
		}
	}
	return r
}

// checkGolden compares got with testdata/golden/name (-update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// durations matches the times that Go and results print.
var durations = regexp.MustCompile(`[0-9]+(\.[0-9]+)?(ns|µs|ms|s|m|h)([0-9]+(\.[0-9]+)?(ms|s))*\b`)

// maskTimes replaces times by T, so that output with timings can be
// compared with a golden.
func maskTimes(s string) string { return durations.ReplaceAllString(s, "T") }

// stableTable masks times and collapses the runs of spaces that a table
// pads them with.
func stableTable(s string) string {
	// p-values come from the times too: with n=2 they flip between 0.333
	// and 0.667 from run to run.
	s = regexp.MustCompile(`p=[0-9.]+`).ReplaceAllString(maskTimes(s), "p=P")
	return regexp.MustCompile(` +`).ReplaceAllString(s, " ")
}

func checkPNG(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return
	}
	w, h := plot.PixelSize()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s: %dx%d pixels, want %dx%d", file, b.Dx(), b.Dy(), w, h)
	}
}

func TestList(t *testing.T) {
	var wnames []string
	for _, in := range workloads.All() {
		wnames = append(wnames, in.Name)
	}
	for _, tc := range []struct {
		kind  string
		names []string
	}{
		{"strategies", append(strategies.Names(), "exec:PATH")},
		{"allocators", allocators.Names()},
		{"workloads", wnames},
	} {
		r := expect(t, 0, nil, "list", tc.kind)
		if len(tc.names) < 2 {
			t.Errorf("%s: only %v registered", tc.kind, tc.names)
		}
		for _, n := range tc.names {
			if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(n) + ` `).MatchString(r.stdout) {
				t.Errorf("list %s lacks %q:\n%s", tc.kind, n, r.stdout)
			}
		}
		if strings.Contains(r.stdout, tc.kind+":") {
			t.Errorf("list %s prints a section header", tc.kind)
		}
	}
	r := expect(t, 0, nil, "list")
	for _, h := range []string{"strategies:\n", "allocators:\n", "workloads:\n"} {
		if !strings.Contains(r.stdout, h) {
			t.Errorf("list lacks section %q", h)
		}
	}
	expect(t, 2, []string{`list: unknown kind "bogus" (valid: strategies, allocators, workloads)`}, "list", "bogus")
	expect(t, 2, []string{"list: want at most one of"}, "list", "strategies", "allocators")
}

// TestPlanJSON checks `plan --format json` against TFLite's own plans of
// complex.csv (strategies/testdata/tflite/complex.json).
func TestPlanJSON(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		footprint   int64
		offsets     []int64
		objectIDs   []int
		objectSizes []int64
	}{
		{[]string{"--strategy", "greedy-by-size"}, 112, []int64{64, 0, 96, 64, 104, 0, 64, 96, 0},
			[]int{1, 0, 2, 1, 3, 0, 1, 2, 0}, []int64{64, 32, 8, 8}},
		{[]string{"--strategy", "offset-greedy-by-size"}, 96, []int64{0, 32, 80, 64, 88, 0, 64, 72, 0}, nil, nil},
		{[]string{"--strategy", "offset-greedy-by-size", "--align", "128"}, 520, []int64{0, 128, 384, 256, 512, 0, 128, 256, 0}, nil, nil},
		// Objects laid out back to back at 128-byte boundaries.
		{[]string{"--strategy", "greedy-by-size", "--align", "128"}, 392, []int64{128, 0, 256, 128, 384, 0, 128, 256, 0},
			[]int{1, 0, 2, 1, 3, 0, 1, 2, 0}, []int64{64, 32, 8, 8}},
		{[]string{"--strategy", "greedy-by-size", "--repeat", "3"}, 112, []int64{64, 0, 96, 64, 104, 0, 64, 96, 0},
			[]int{1, 0, 2, 1, 3, 0, 1, 2, 0}, []int64{64, 32, 8, 8}},
		// An external planner laying buffers back to back, as naive does.
		{[]string{"--strategy", execDir + "backtoback.sh"}, 192, []int64{0, 32, 64, 72, 88, 96, 160, 168, 176}, nil, nil},
		// No buffers: empty arrays, and both object arrays for an object plan.
		{[]string{"--strategy", "naive", emptyCSV}, 0, []int64{}, []int{}, []int64{}},
		{[]string{"--strategy", "offset-greedy-by-size", emptyCSV}, 0, []int64{}, nil, nil},
	} {
		workload, lb, lbObjects := complexCSV, int64(96), int64(112)
		if tc.args[len(tc.args)-1] == emptyCSV {
			workload, lb, lbObjects = emptyCSV, 0, 0
			tc.args = tc.args[:len(tc.args)-1]
		}
		args := append(append([]string{"plan", "--format", "json"}, tc.args...), workload)
		r := expect(t, 0, nil, args...)
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
			t.Errorf("%q: %v in %s", args, err, r.stdout)
			continue
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range raw {
				if !yield(k) {
					return
				}
			}
		})
		// lb_objects bounds object plans only.
		want := []string{"footprint", "lower_bound", "offsets", "seconds", "strategy"}
		if tc.objectIDs != nil {
			want = []string{"footprint", "lb_objects", "lower_bound", "object_ids", "object_sizes", "offsets", "seconds", "strategy"}
		}
		if !slices.Equal(keys, want) {
			t.Errorf("%q: keys %v, want %v", args, keys, want)
		}
		var got struct {
			Strategy    string  `json:"strategy"`
			Footprint   int64   `json:"footprint"`
			LowerBound  int64   `json:"lower_bound"`
			LBObjects   int64   `json:"lb_objects"`
			Seconds     float64 `json:"seconds"`
			Offsets     []int64 `json:"offsets"`
			ObjectIDs   []int   `json:"object_ids"`
			ObjectSizes []int64 `json:"object_sizes"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatal(err)
		}
		if tc.objectIDs == nil {
			lbObjects = 0
		}
		if got.Strategy != tc.args[1] || got.Footprint != tc.footprint || got.LowerBound != lb || got.LBObjects != lbObjects ||
			!(got.Seconds > 0) || !slices.Equal(got.Offsets, tc.offsets) ||
			!slices.Equal(got.ObjectIDs, tc.objectIDs) || !slices.Equal(got.ObjectSizes, tc.objectSizes) {
			t.Errorf("%q:\n got %+v\nwant footprint %d lower_bound %d lb_objects %d seconds > 0 offsets %v object_ids %v object_sizes %v",
				args, got, tc.footprint, lb, lbObjects, tc.offsets, tc.objectIDs, tc.objectSizes)
		}
	}
}

func TestPlanTextAndCSV(t *testing.T) {
	r := expect(t, 0, nil, "plan", "--strategy", "greedy-by-size", complexCSV)
	checkGolden(t, "plan-greedy-by-size.txt", maskTimes(r.stdout))
	r = expect(t, 0, nil, "plan", "--strategy", "offset-greedy-by-size", "--format", "text", "--repeat", "3", complexCSV)
	checkGolden(t, "plan-offset-greedy-by-size.txt", maskTimes(r.stdout))
	if !regexp.MustCompile(`(?m)^time +[0-9.]+(ns|µs|ms|s) \(median of 3\)$`).MatchString(r.stdout) {
		t.Errorf("no time line for --repeat 3:\n%s", r.stdout)
	}
	r = expect(t, 0, nil, "plan", "--strategy", "offset-greedy-by-size", "--format", "csv", complexCSV)
	checkGolden(t, "plan-offset-greedy-by-size.csv", r.stdout)
	// The CSV is a solution validate accepts.
	sol := filepath.Join(t.TempDir(), "sol.csv")
	os.WriteFile(sol, []byte(r.stdout), 0o644)
	expect(t, 0, nil, "validate", "--plan", sol, complexCSV)
}

func TestPlanPlot(t *testing.T) {
	file := filepath.Join(t.TempDir(), "layout.png")
	expect(t, 0, nil, "plan", "--strategy", "offset-greedy-by-size", "--plot", file, complexCSV)
	checkPNG(t, file)
}

func TestPlanErrors(t *testing.T) {
	names := append(strategies.Names(), "exec:PATH")
	for _, tc := range []struct {
		code int
		want []string
		args []string
	}{
		{2, []string{"testdata/bad-records.csv:3: "}, []string{"plan", "--strategy", "naive", "testdata/bad-records.csv"}},
		{2, append([]string{`unknown strategy "nope" (valid: `}, names...), []string{"plan", "--strategy", "nope", complexCSV}},
		{2, []string{"plan: unknown flag: --bogus"}, []string{"plan", "--bogus", "--strategy", "naive", complexCSV}},
		{2, []string{`"testdata/no-such-file.csv"`, "no such file"}, []string{"plan", "--strategy", "naive", "testdata/no-such-file.csv"}},
		{2, []string{"plan: --strategy is required"}, []string{"plan", complexCSV}},
		{2, []string{"plan: want exactly one WORKLOAD, got 2"}, []string{"plan", "--strategy", "naive", complexCSV, complexCSV}},
		{2, []string{"plan: --repeat must be >= 1"}, []string{"plan", "--strategy", "naive", "--repeat", "0", complexCSV}},
		{2, []string{`plan: unknown --format "xml" (valid: text, json, csv)`}, []string{"plan", "--strategy", "naive", "--format", "xml", complexCSV}},
		{2, []string{`plan: --align "0": want a positive byte size`}, []string{"plan", "--strategy", "naive", "--align", "0", complexCSV}},
		{2, []string{`exec strategy "exec:testdata/nope.sh": `, "no such file"}, []string{"plan", "--strategy", "exec:testdata/nope.sh", complexCSV}},
		// A plan that fails validation is the work failing: exit 1.
		{1, []string{"plan: test-overlap on " + complexCSV + " returned an invalid plan: invalid plan: ", "overlap"},
			[]string{"plan", "--strategy", "test-overlap", complexCSV}},
		{1, []string{"plan: " + execDir + "overlap.sh on " + complexCSV + " returned an invalid plan: invalid plan: ", "overlap"},
			[]string{"plan", "--strategy", execDir + "overlap.sh", complexCSV}},
		{1, []string{"plan: " + execDir + "garbage.sh on " + complexCSV + ": " + execDir + `garbage.sh output:2: offset "lots": want a non-negative integer`},
			[]string{"plan", "--strategy", execDir + "garbage.sh", complexCSV}},
		// Top level.
		{2, []string{"membench: no command given"}, nil},
		{2, []string{`unknown command "bogus" (valid: `}, []string{"bogus"}},
	} {
		r := expect(t, tc.code, tc.want, tc.args...)
		if r.code != 0 && r.stdout != "" && tc.args != nil {
			t.Errorf("membench %q failed but printed to stdout:\n%s", tc.args, r.stdout)
		}
	}
}

// TestHelp: every command prints its usage once on --help and exits 0.
func TestHelp(t *testing.T) {
	r := expect(t, 0, nil, "--help")
	for _, n := range commandNames() {
		if !strings.Contains(r.stdout, "  membench "+n+" ") {
			t.Errorf("membench --help lacks %s:\n%s", n, r.stdout)
		}
		r := expect(t, 0, nil, n, "--help")
		if !strings.HasPrefix(r.stdout, "Usage: membench "+n+" ") || strings.Count(r.stdout, "Usage:") != 1 || r.stderr != "" {
			t.Errorf("membench %s --help: want the usage once on stdout, got:\n%s\nstderr: %s", n, r.stdout, r.stderr)
		}
	}
	checkGolden(t, "help-plan.txt", membench(t, "plan", "--help").stdout)
	checkGolden(t, "help-validate.txt", membench(t, "validate", "--help").stdout)
}

func TestValidate(t *testing.T) {
	r := expect(t, 0, nil, "validate", "--plan", "testdata/complex-offsets.csv", complexCSV)
	checkGolden(t, "validate-offsets.txt", r.stdout)

	r = expect(t, 0, nil, "validate", "--format", "json", "--plan", "testdata/complex-offsets.csv", complexCSV)
	var got map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"valid": true, "footprint": 96.0, "lower_bound": 96.0, "ratio": 1.0}
	if len(got) != len(want) {
		t.Errorf("validate json %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("validate json %s = %v, want %v", k, got[k], v)
		}
	}

	r = expect(t, 1, []string{"validate: testdata/complex-overlap.csv is not a valid plan for " + complexCSV + ": invalid plan: ", "overlap"},
		"validate", "--plan", "testdata/complex-overlap.csv", complexCSV)
	if !strings.Contains(r.stdout, "footprint              64 bytes") || !strings.Contains(r.stdout, "valid                  no") {
		t.Errorf("invalid plan report:\n%s", r.stdout)
	}
	expect(t, 2, []string{`testdata/complex-malformed.csv:3: offset "thirty-two": want a non-negative integer`},
		"validate", "--plan", "testdata/complex-malformed.csv", complexCSV)
	expect(t, 2, []string{"testdata/no-such-plan.csv: cannot read: no such file or directory"},
		"validate", "--plan", "testdata/no-such-plan.csv", complexCSV)
	expect(t, 2, []string{"validate: want --plan FILE and one WORKLOAD"}, "validate", complexCSV)

	// Plan JSON as `plan --format json` prints it, round trip.
	dir := t.TempDir()
	for _, tc := range []struct {
		args      []string
		footprint string
	}{
		{[]string{"--strategy", "greedy-by-size"}, "112"},
		{[]string{"--strategy", "offset-greedy-by-size"}, "96"},
		{[]string{"--strategy", "greedy-by-size", "--align", "128"}, "392"},
		{[]string{"--strategy", "min-cost-flow"}, "112"},
	} {
		r := expect(t, 0, nil, append(append([]string{"plan", "--format", "json"}, tc.args...), complexCSV)...)
		file := filepath.Join(dir, "plan.json")
		os.WriteFile(file, []byte(r.stdout), 0o644)
		vargs := []string{"validate", "--plan", file, complexCSV}
		if len(tc.args) > 2 {
			vargs = append(vargs, tc.args[2:]...)
		}
		r = expect(t, 0, nil, vargs...)
		if !strings.Contains(r.stdout, "footprint              "+tc.footprint+" bytes") || !strings.Contains(r.stdout, "valid                  yes") {
			t.Errorf("validate of %q's JSON:\n%s", tc.args, r.stdout)
		}
		// LB_objects is shown for the object plans only.
		if objects := tc.args[1] != "offset-greedy-by-size"; strings.Contains(r.stdout, "\nLB_objects ") != objects {
			t.Errorf("validate of %q's JSON: LB_objects shown = %v, want %v:\n%s", tc.args, !objects, objects, r.stdout)
		}
	}
	// The JSON's claims are checked: object layout, footprint, syntax.
	for _, tc := range []struct {
		json, want string
		code       int
	}{
		// greedy-by-size's 128-aligned plan is not the unaligned layout.
		{`{"footprint":392,"offsets":[128,0,256,128,384,0,128,256,0],"object_ids":[1,0,2,1,3,0,1,2,0],"object_sizes":[64,32,8,8]}`,
			"invalid plan: buffer 0 has offset 128, but its object 1 starts at 64", 1},
		{`{"footprint":100,"offsets":[0,32,80,64,88,0,64,72,0]}`, "invalid plan: footprint 100, want max(offset+size) = 96", 1},
		{`{"offsets":[0,32,80]}`, "plan.json: 3 offsets for 9 buffers", 2},
		{`{"footprint": 96}`, `plan.json: no "offsets" array`, 2},
		{"{\n\"offsets\": [0,\n\"x\"]}", `plan.json:3: field "offsets": want an integer, got a string`, 2},
		{"{\n\"offsets\": [0,,]}", "plan.json:2: invalid JSON: invalid character ','", 2},
	} {
		file := filepath.Join(dir, "plan.json")
		os.WriteFile(file, []byte(tc.json), 0o644)
		expect(t, tc.code, []string{tc.want}, "validate", "--plan", file, complexCSV)
	}
}

// recordsOf reads a sweep folder's records, keyed by cell.
func recordsOf(t *testing.T, dir string) map[results.Key]results.Record {
	t.Helper()
	recs, _, err := results.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[results.Key]results.Record{}
	for _, r := range recs {
		if _, dup := m[r.Key()]; dup {
			t.Errorf("%s: cell %s recorded twice", dir, r.Key())
		}
		m[r.Key()] = r
	}
	return m
}

// TestSweep runs, resumes, shards, merges, compares and plots a tiny sweep
// through the command line.
func TestSweep(t *testing.T) {
	base := t.TempDir()
	full := filepath.Join(base, "full")
	r := expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", full)
	if !strings.Contains(r.stdout, full+": 6 cells run, 0 already done, 0 failed\n") {
		t.Errorf("run output:\n%s", r.stdout)
	}
	for _, f := range []string{"manifest.json", "results.jsonl", "results.txt", "summary.md"} {
		if _, err := os.Stat(filepath.Join(full, f)); err != nil {
			t.Error(err)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(full, "plots", "*.png"))
	if len(pngs) < 3 {
		t.Errorf("plots: %v, want footprint, layout and timeline figures", pngs)
	}
	for _, f := range pngs {
		checkPNG(t, f)
	}
	fullRecs := recordsOf(t, full)
	if len(fullRecs) != 6 {
		t.Fatalf("%d records, want 6", len(fullRecs))
	}
	for k, rec := range fullRecs {
		if rec.Status != results.StatusOK || rec.Footprint < rec.LBLoad || rec.LBLoad <= 0 {
			t.Errorf("%s: %+v", k, rec)
		}
	}

	expect(t, 2, []string{full + " already holds a sweep: pass --resume to finish it or --force to start over"},
		"run", "--config", "testdata/tiny.toml", "--out", full)
	r = expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", full, "--resume")
	if !strings.Contains(r.stdout, full+": 0 cells run, 6 already done, 0 failed\n") {
		t.Errorf("resume output:\n%s", r.stdout)
	}
	expect(t, 2, []string{`--shard "2/2": want I/N with 0 <= I < N`}, "run", "--config", "testdata/tiny.toml", "--shard", "2/2")
	expect(t, 2, []string{"run: unexpected arguments"}, "run", "--config", "testdata/tiny.toml", "extra")

	// Two shards and their merge equal the unsharded sweep.
	var shards []string
	for i, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(base, "shard"+string(rune('0'+i)))
		shards = append(shards, d)
		r := expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", d, "--shard", s)
		if !strings.Contains(r.stdout, d+": 3 cells run") {
			t.Errorf("shard %s output:\n%s", s, r.stdout)
		}
	}
	merged := filepath.Join(base, "merged")
	r = expect(t, 0, nil, append([]string{"merge", "--out", merged}, shards...)...)
	if !strings.Contains(r.stdout, merged+": merged 2 folders, 0 failed cells") {
		t.Errorf("merge output:\n%s", r.stdout)
	}
	mergedRecs := recordsOf(t, merged)
	if len(mergedRecs) != len(fullRecs) {
		t.Errorf("merged %d cells, unsharded %d", len(mergedRecs), len(fullRecs))
	}
	for k, f := range fullRecs {
		m, ok := mergedRecs[k]
		if !ok || m.Status != f.Status || m.Footprint != f.Footprint || m.LBLoad != f.LBLoad || m.Hash != f.Hash || m.Kind != f.Kind {
			t.Errorf("%s: merged %+v, unsharded %+v", k, m, f)
		}
	}
	expect(t, 2, []string{"merge: want --out DIR and at least one shard folder"}, "merge", shards[0])
	expect(t, 2, []string{"merge: shards 1/2 are missing"}, "merge", "--out", filepath.Join(base, "m2"), shards[0])

	// compare over the results folder.
	r = expect(t, 0, nil, "compare", "--baseline", "naive", "--candidate", "greedy-by-size", full)
	checkGolden(t, "compare-tiny.txt", stableTable(r.stdout))
	expect(t, 1, []string{`compare: no workload has ok results for both "naive" and "nope"`}, "compare", "--baseline", "naive", "--candidate", "nope", full)
	expect(t, 2, []string{"compare: --baseline and --candidate are required"}, "compare", "--baseline", "naive", full)
	expect(t, 2, []string{"compare: give either a results DIR or run flags, not both"},
		"compare", "--baseline", "naive", "--candidate", "greedy-by-size", "--workloads", "synthetic/chain", full)

	// plot regenerates the figures; scaling needs three sizes of a family.
	os.RemoveAll(filepath.Join(full, "plots"))
	r = expect(t, 0, nil, "plot", full)
	for _, f := range pngs {
		if !strings.Contains(r.stdout, "wrote "+f+"\n") {
			t.Errorf("plot did not rewrite %s:\n%s", f, r.stdout)
		}
		checkPNG(t, f)
	}
	r = expect(t, 0, nil, "plot", "--kind", "layout", full)
	if r.stdout != "wrote "+filepath.Join(full, "plots", "layout.png")+"\n" {
		t.Errorf("plot --kind layout:\n%s", r.stdout)
	}
	expect(t, 1, []string{"plot: the results in " + full + " support no scaling figure"}, "plot", "--kind", "scaling", full)
	expect(t, 2, []string{`plot: unknown --kind "bogus" (valid: footprint, runtime, scaling, layout, timeline, distribution)`}, "plot", "--kind", "bogus", full)
	expect(t, 2, []string{filepath.Join(base, "results.jsonl")}, "plot", base)
	os.WriteFile(filepath.Join(base, "results.jsonl"), nil, 0o644)
	expect(t, 1, []string{"plot: the results in " + base + " support no figure"}, "plot", base)
}

// TestCompareFreshSweep compares two subjects in a sweep of their own,
// with an external planner as the candidate.
func TestCompareFreshSweep(t *testing.T) {
	for _, tc := range []struct {
		candidate, verdict string
	}{
		{"greedy-by-size", "over 2 workloads: 2 wins, 0 ties, 0 losses"},
		// Back to back is naive's layout: ties everywhere.
		{execDir + "backtoback.sh", "footprint ratio geomean 1.0000 over 2 workloads: 0 wins, 2 ties, 0 losses"},
	} {
		out := filepath.Join(t.TempDir(), "cmp")
		r := expect(t, 0, nil, "compare", "--baseline", "naive", "--candidate", tc.candidate, "--workloads",
			"synthetic/chain?n=8,synthetic/random-dag?n=20", "--repeats", "1", "--out", out)
		if !strings.HasPrefix(r.stdout, "sweep in "+out+"\n") || !strings.Contains(r.stdout, tc.verdict) {
			t.Errorf("compare naive vs %s:\n%s", tc.candidate, r.stdout)
		}
		if n := len(recordsOf(t, out)); n != 4 {
			t.Errorf("compare naive vs %s ran %d cells, want 4", tc.candidate, n)
		}
	}
	expect(t, 2, []string{`compare: "nope" is neither a strategy`}, "compare", "--baseline", "naive", "--candidate", "nope",
		"--workloads", "synthetic/chain?n=8", "--out", filepath.Join(t.TempDir(), "x"))
}
