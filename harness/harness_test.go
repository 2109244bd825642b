package harness

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	_ "membench/plugins"
	"membench/results"
	"membench/strategies"
	"membench/workloads"
)

// Misbehaving strategies, registered in this test binary only. Workers are
// this same binary re-executed, so they know them too.
type sleeper struct{}

func (sleeper) Name() string { return "test-sleep" }
func (sleeper) Plan(context.Context, *workloads.Problem) (*strategies.Plan, error) {
	select {} // never returns and ignores its context
}

type panicker struct{}

func (panicker) Name() string { return "test-panic" }
func (panicker) Plan(context.Context, *workloads.Problem) (*strategies.Plan, error) {
	panic("test-panic always panics")
}

type overlapper struct{}

func (overlapper) Name() string { return "test-overlap" }
func (overlapper) Plan(_ context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	plan := &strategies.Plan{Offsets: make([]int64, len(p.Buffers))}
	plan.Footprint = strategies.Footprint(p.Buffers, plan.Offsets)
	return plan, nil
}

// hog allocates far more than the test sweep's memory limit.
type hog struct{}

func (hog) Name() string { return "test-hog" }
func (hog) Plan(context.Context, *workloads.Problem) (*strategies.Plan, error) {
	var keep [][]byte
	for range 256 {
		keep = append(keep, make([]byte, 4<<20))
		time.Sleep(time.Millisecond)
	}
	return nil, fmt.Errorf("kept %d chunks: the memory limit did not hold", len(keep))
}

func init() {
	for _, s := range []strategies.Strategy{sleeper{}, panicker{}, overlapper{}, hog{}} {
		strategies.Register(strategies.Info{Name: s.Name(), Runtime: "membench", Kind: strategies.Offsets, Doc: "test only",
			New: strategies.Simple(func() strategies.Strategy { return s })})
	}
}

// sweepEnv makes the test binary run a whole sweep (for the kill -9 test).
const sweepEnv = "MEMBENCH_TEST_SWEEP"

func TestMain(m *testing.M) {
	if IsWorker() {
		os.Exit(WorkerMain())
	}
	if spec := os.Getenv(sweepEnv); spec != "" {
		var o Options
		if err := json.Unmarshal([]byte(spec), &o); err != nil {
			panic(err)
		}
		if _, err := Run(context.Background(), o); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func tinyConfig(t *testing.T, strats ...string) *Config {
	t.Helper()
	c, err := ParseConfig("tiny.toml", []byte(`
name = "tiny"
repeats = 2
benchtime = "1ms"
samples = 2
timeout = "20s"
workloads = ["synthetic/chain?n=12", { spec = "synthetic/random-dag", params = { n = [30, 60] } }]
strategies = ["naive"] # replaced below
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(strats) == 0 {
		strats = []string{"naive", "greedy-by-size", "offset-greedy-by-size"}
	}
	c.Strategies = entries(strats...)
	return c
}

func entries(specs ...string) []Entry {
	var out []Entry
	for _, s := range specs {
		out = append(out, Entry{Spec: s})
	}
	return out
}

func keysOnce(t *testing.T, recs []results.Record, want int) map[results.Key]results.Record {
	t.Helper()
	m := map[results.Key]results.Record{}
	for _, r := range recs {
		if _, dup := m[r.Key()]; dup {
			t.Errorf("cell %s recorded twice", r.Key())
		}
		m[r.Key()] = r
	}
	if len(m) != want {
		t.Errorf("%d distinct cells recorded, want %d", len(m), want)
	}
	return m
}

func TestSweepEndToEnd(t *testing.T) {
	dir := t.TempDir()
	out, err := Run(context.Background(), Options{Config: tinyConfig(t), Out: dir, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	// 3 workloads x 3 strategies x 2 repeats.
	if out.Ran != 18 || out.Skipped != 0 {
		t.Errorf("ran %d, skipped %d; want 18, 0", out.Ran, out.Skipped)
	}
	recs := keysOnce(t, out.Records, 18)
	for k, r := range recs {
		if r.Status != results.StatusOK || len(r.TimesNs) != 2 || r.Iters < 1 || r.Footprint < r.LBLoad || r.LBLoad <= 0 {
			t.Errorf("%s: %+v", k, r)
		}
	}
	for _, f := range []string{"manifest.json", "results.jsonl", "results.txt", "summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	f, _ := os.Open(filepath.Join(dir, "results.txt"))
	defer f.Close()
	br := benchfmt.NewReader(f, "results.txt")
	n := 0
	for br.Scan() {
		if _, ok := br.Result().(*benchfmt.Result); ok {
			n++
		}
	}
	if n != 36 {
		t.Errorf("results.txt holds %d results, want 36 (18 cells x 2 samples)", n)
	}
	// A second run without --resume refuses to overwrite.
	if _, err := Run(context.Background(), Options{Config: tinyConfig(t), Out: dir}); err == nil ||
		!strings.Contains(err.Error(), "pass --resume") {
		t.Errorf("rerun without --resume: err = %v", err)
	}
	// Resuming a finished sweep runs nothing.
	out, err = Run(context.Background(), Options{Config: tinyConfig(t), Out: dir, Resume: true})
	if err != nil || out.Ran != 0 || out.Skipped != 18 {
		t.Errorf("resume of a finished sweep: ran %d skipped %d err %v", out.Ran, out.Skipped, err)
	}
	// Resuming with another config is refused.
	other := tinyConfig(t, "naive")
	if _, err := Run(context.Background(), Options{Config: other, Out: dir, Resume: true}); err == nil ||
		!strings.Contains(err.Error(), "another config") {
		t.Errorf("resume with another config: err = %v", err)
	}
}

func TestFailuresAreRecorded(t *testing.T) {
	c := tinyConfig(t, "naive", "test-sleep", "test-panic", "test-overlap", "test-hog")
	c.Timeout.Duration = 500 * time.Millisecond
	c.MemoryLimit.Bytes = 256 << 20
	c.Repeats = 1
	c.Workloads = entries("synthetic/chain?n=12")
	// test-sleep never returns: the sweep ends only if its cell is killed.
	out, err := Run(context.Background(), Options{Config: c, Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "4 of 5 cells failed") {
		t.Fatalf("err = %v, want 4 of 5 cells failed", err)
	}
	want := map[string]string{"naive": "ok", "test-sleep": "timeout", "test-panic": "error", "test-overlap": "invalid", "test-hog": "oom"}
	for _, r := range out.Records {
		if r.Status != want[r.Subject] {
			t.Errorf("%s: status %s, want %s (%s)", r.Subject, r.Status, want[r.Subject], r.Error)
		}
		if r.Subject == "test-panic" && !strings.Contains(r.Error, "test-panic always panics") {
			t.Errorf("panic record lacks the panic value: %q", r.Error)
		}
		if r.Subject == "test-overlap" && !strings.Contains(r.Error, "overlap") {
			t.Errorf("invalid record lacks the validator's reason: %q", r.Error)
		}
	}
	if len(out.Records) != 5 {
		t.Errorf("%d records, want 5", len(out.Records))
	}
}

func TestKillAndResume(t *testing.T) {
	dir := t.TempDir()
	c := tinyConfig(t)
	c.BenchTime.Duration = 30 * time.Millisecond
	o := Options{Config: c, Out: dir}
	spec, _ := json.Marshal(o)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), sweepEnv+"="+string(spec))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "results.jsonl")
	exited := waitLater(cmd)
	if !pollUntil(exited, func() bool { recs, _, _ := results.ReadFile(path); return len(recs) >= 4 }) {
		t.Fatal("the sweep ended before it had written 4 records")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	// Power loss mid-write: a torn last line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"workload":"synthetic/chain?n=12","subject":"na`)
	f.Close()
	before, _, _ := results.ReadFile(path)
	if len(before) >= 18 {
		t.Fatalf("the sweep finished before it was killed (%d records); slow it down", len(before))
	}
	o.Resume = true
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if out.Skipped != len(before) || out.Ran != 18-len(before) {
		t.Errorf("resume ran %d and skipped %d; %d were done", out.Ran, out.Skipped, len(before))
	}
	keysOnce(t, out.Records, 18)
}

func TestShardAndMerge(t *testing.T) {
	base := t.TempDir()
	whole := filepath.Join(base, "whole")
	if _, err := Run(context.Background(), Options{Config: tinyConfig(t), Out: whole}); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := range 3 {
		d := filepath.Join(base, "shard"+string(rune('0'+i)))
		dirs = append(dirs, d)
		out, err := Run(context.Background(), Options{Config: tinyConfig(t), Out: d, Shard: i, Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		if out.Ran != 6 {
			t.Errorf("shard %d ran %d cells, want 6", i, out.Ran)
		}
	}
	merged := filepath.Join(base, "merged")
	if _, err := Merge(merged, dirs[:2], false); err == nil || !strings.Contains(err.Error(), "shards 2/3 are missing") {
		t.Errorf("merge of 2 of 3 shards: err = %v", err)
	}
	out, err := Merge(merged, dirs, false)
	if err != nil {
		t.Fatal(err)
	}
	wrecs, _, _ := results.ReadFile(filepath.Join(whole, "results.jsonl"))
	w := keysOnce(t, wrecs, 18)
	m := keysOnce(t, out.Records, 18)
	for k, r := range w {
		mr, ok := m[k]
		if !ok || mr.Status != r.Status || mr.Footprint != r.Footprint || mr.LBLoad != r.LBLoad || mr.Hash != r.Hash || mr.N != r.N {
			t.Errorf("%s: merged %+v, unsharded %+v", k, mr, r)
		}
	}
	for _, f := range []string{"manifest.json", "results.txt", "summary.md"} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := Merge(filepath.Join(base, "m2"), []string{dirs[0], dirs[0]}, false); err == nil {
		t.Error("merging a shard twice: want an error")
	}
}

func TestExpand(t *testing.T) {
	specs, err := Expand(Entry{Spec: "synthetic/random-dag", Params: map[string]any{"n": []any{int64(10), int64(20)}, "k": int64(4)}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"synthetic/random-dag?k=4&n=10", "synthetic/random-dag?k=4&n=20"}
	if strings.Join(specs, " ") != strings.Join(want, " ") {
		t.Errorf("Expand = %q, want %q", specs, want)
	}
	c := tinyConfig(t)
	c.Seed = 7
	c.Strategies = entries("*")
	c.MaxN = map[string]int{"min-cost-flow": 20}
	pl, err := c.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if pl.Workloads[1] != "synthetic/random-dag?n=30&seed=7" {
		t.Errorf("seed not added: %q", pl.Workloads[1])
	}
	subjects := map[string]int{}
	for _, cell := range pl.Cells {
		subjects[cell.Subject]++
	}
	if len(subjects) != len(strategies.Names()) {
		t.Errorf("\"*\" expanded to %d strategies, want %d", len(subjects), len(strategies.Names()))
	}
	if subjects["min-cost-flow"] != 2 { // only chain n=12, twice
		t.Errorf("min-cost-flow cells = %d, want 2 (max_n 20)", subjects["min-cost-flow"])
	}
	for i, cell := range pl.Cells {
		if cell.Index != i {
			t.Fatalf("cell %d has index %d", i, cell.Index)
		}
	}
	c.Strategies = entries("no-such-strategy")
	var ue *workloads.UsageError
	if _, err := c.Expand(); !errors.As(err, &ue) || !strings.Contains(err.Error(), "valid:") {
		t.Errorf("unknown strategy: err = %v, want a usage error listing the valid names", err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"name = \"x\"\nbogus = 1\nworkloads=[\"a\"]\nstrategies=[\"naive\"]\n", `bad.toml:2: unknown key "bogus"`},
		{"name = \"x\"\nrepeats = \n", "bad.toml:2:"},
		{"name = \"x\"\nstrategies=[\"naive\"]\n", "bad.toml: no workloads"},
		{"workloads=[{spec=\"a\", bogus=1}]\nstrategies=[\"naive\"]\n", `unknown key "bogus"`},
		{"timeout = \"-1s\"\nworkloads=[\"a\"]\nstrategies=[\"naive\"]\n", "must be positive"},
	} {
		_, err := ParseConfig("bad.toml", []byte(tc.in))
		var ie *workloads.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%q) = %v, want an input error containing %q", tc.in, err, tc.want)
		}
	}
	c, err := DefaultConfig()
	if err != nil || c.Name != "default" {
		t.Fatalf("DefaultConfig: %v", err)
	}
}

// TestExampleConfigs checks that every example config in scripts/configs
// parses, from the repository root as the README runs them (their files
// are relative to it). None needs ../shared: the data they name ships.
func TestExampleConfigs(t *testing.T) {
	t.Chdir("..")
	paths, _ := filepath.Glob("scripts/configs/*.toml")
	if len(paths) < 5 {
		t.Fatalf("found %d example configs, want at least 5", len(paths))
	}
	for _, p := range paths {
		if _, err := LoadConfig(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if data, _ := os.ReadFile(p); strings.Contains(string(data), "shared/") {
			t.Errorf("%s names a file under ../shared: a fresh clone has none", p)
		}
	}
}

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// TestSummaryGolden runs a tiny fixed sweep and compares its summary.md,
// less the time tables (times vary run to run), with a golden file.
func TestSummaryGolden(t *testing.T) {
	c := tinyConfig(t, "naive", "greedy-by-size", "offset-greedy-by-size")
	c.Allocators = entries("bfc", "bump")
	c.Repeats = 1
	dir := t.TempDir()
	if _, err := Run(context.Background(), Options{Config: c, Out: dir}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	skip := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "## ") {
			skip = strings.Contains(line, "time")
		}
		if !skip {
			kept = append(kept, line)
		}
	}
	got := strings.Join(kept, "\n")
	golden := filepath.Join("testdata", "summary-tiny.md")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("summary.md (time tables aside) differs from %s; run with -update to accept:\n%s", golden, got)
	}
}

// waitLater waits for the started cmd in the background; the channel
// closes when it has exited.
func waitLater(cmd *exec.Cmd) <-chan struct{} {
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return exited
}

// pollUntil polls cond every 10 ms until it holds (true) or exited closes
// first (false): no deadline, so a loaded machine only makes it slower.
func pollUntil(exited <-chan struct{}, cond func() bool) bool {
	for !cond() {
		select {
		case <-exited:
			return cond()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

// TestUnsupportedIsNotFailure: a strategy that refuses a workload's size
// type by design (TFLite's greedy-by-size on 2D textures) is recorded as
// unsupported, shown as n/a, and does not fail the sweep.
func TestUnsupportedIsNotFailure(t *testing.T) {
	c := tinyConfig(t, "greedy-in-order", "greedy-by-size")
	c.Repeats = 1
	c.Workloads = entries("tflite/selfie-segmentation?storage=texture2d")
	dir := t.TempDir()
	out, err := Run(context.Background(), Options{Config: c, Out: dir})
	if err != nil {
		t.Fatalf("sweep failed: %v", err)
	}
	want := map[string]string{"greedy-in-order": results.StatusOK, "greedy-by-size": results.StatusUnsupported}
	for _, r := range out.Records {
		if r.Status != want[r.Subject] {
			t.Errorf("%s: status %s, want %s (%s)", r.Subject, r.Status, want[r.Subject], r.Error)
		}
		if r.Subject == "greedy-by-size" && r.Error != "greedy-by-size: 2d sizes: MemoryStrategy is not supported with current tensor size type." {
			t.Errorf("greedy-by-size: error %q", r.Error)
		}
	}
	if len(out.Failed) != 0 {
		t.Errorf("failed cells: %v", out.Failed)
	}
	sum, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sum), "| n/a |") {
		t.Errorf("summary.md has no n/a cell:\n%s", sum)
	}
	// Resuming runs neither cell again.
	out, err = Run(context.Background(), Options{Config: c, Out: dir, Resume: true, RetryFailed: true})
	if err != nil || out.Ran != 0 {
		t.Errorf("resume: ran %d, err %v", out.Ran, err)
	}
}
