package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"membench/results/plot"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"membench/results"
	"membench/strategies"
	"membench/workloads"
)

// onceEnv names a folder in which the "once" test strategies leave a
// marker: they fail the first time, and plan like naive after.
const onceEnv = "MEMBENCH_TEST_ONCE_DIR"

// onceFailer fails its first call; how is its name's business.
type onceFailer struct {
	name string
	fail func() error
}

func (o onceFailer) Name() string { return o.name }
func (o onceFailer) Plan(ctx context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	marker := filepath.Join(os.Getenv(onceEnv), o.name)
	if _, err := os.Stat(marker); err != nil {
		os.WriteFile(marker, nil, 0o644)
		return nil, o.fail()
	}
	naive, _ := strategies.Lookup("naive")
	return naive.Plan(ctx, p)
}

func init() {
	for _, s := range []onceFailer{
		// A worker killed from outside (here by itself, as the OOM killer
		// or a user's kill would).
		{"test-killed-once", func() error {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}},
		{"test-fails-once", func() error { return errors.New("first call fails") }},
	} {
		strategies.Register(strategies.Info{Name: s.name, Runtime: "membench", Kind: strategies.Offsets, Doc: "test only",
			New: strategies.Simple(func() strategies.Strategy { return s })})
	}
}

// TestSecondWriterRefused: while one process writes a sweep folder, a
// second run (fresh, --resume or --force), a merge into it and a replot
// of it are refused at once, naming the folder and the holder's pid.
func TestSecondWriterRefused(t *testing.T) {
	dir := t.TempDir()
	c := tinyConfig(t)
	c.BenchTime.Duration = 50 * time.Millisecond
	spec, _ := json.Marshal(Options{Config: c, Out: dir})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), sweepEnv+"="+string(spec))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := waitLater(cmd)
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	lock := filepath.Join(dir, lockName)
	if !pollUntil(exited, func() bool { b, _ := os.ReadFile(lock); return len(b) > 0 }) {
		t.Fatal("the first sweep ended without taking the lock")
	}
	want := fmt.Sprintf("%s is in use: another membench (pid %d) is writing to it; wait for it to end, or choose another --out", dir, cmd.Process.Pid)
	for _, o := range []Options{
		{Config: tinyConfig(t), Out: dir},
		{Config: tinyConfig(t), Out: dir, Resume: true},
		{Config: tinyConfig(t), Out: dir, Force: true},
	} {
		// Refused at once: a run that waited for the lock would get it
		// when the first sweep ends, with no BusyError.
		_, err := Run(context.Background(), o)
		var be *BusyError
		if !errors.As(err, &be) || err.Error() != want {
			t.Errorf("second run (resume %v, force %v): err = %v\nwant %s", o.Resume, o.Force, err, want)
		}
	}
	if _, err := Merge(dir, []string{t.TempDir()}, true); err == nil || err.Error() != want {
		t.Errorf("merge into a locked folder: err = %v, want %s", err, want)
	}
	if _, err := Replot(context.Background(), dir, plot.Options{}); err == nil || err.Error() != want {
		t.Errorf("replot of a locked folder: err = %v, want %s", err, want)
	}
	// The first sweep's records are intact, and once it is gone (the
	// kernel drops a dead process's lock; a worker it was starting holds
	// it until its exec), --resume finishes it.
	cmd.Process.Kill()
	<-exited
	var out *Outcome
	var err error
	// Until the worker execs, it holds the lock: retry while busy.
	for ; ; time.Sleep(10 * time.Millisecond) {
		out, err = Run(context.Background(), Options{Config: c, Out: dir, Resume: true})
		var be *BusyError
		if !errors.As(err, &be) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	keysOnce(t, out.Records, 18)
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after the sweep: %v, want it removed", err)
	}
}

// TestResumeGarbledMiddle: a garbled line in the middle of results.jsonl
// (two writers interleaved) is dropped with a warning naming its line, the
// good records are kept, and the cells whose records were lost run again.
func TestResumeGarbledMiddle(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), Options{Config: tinyConfig(t), Out: dir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "results.jsonl")
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	// Half of line 5 glued to line 6, as two unsynchronised writers leave.
	lines[4] = lines[4][:len(lines[4])/2]
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	if _, _, err := results.ReadFile(path); err == nil {
		t.Fatal("ReadFile accepts the garbled file")
	}
	var log bytes.Buffer
	out, err := Run(context.Background(), Options{Config: tinyConfig(t), Out: dir, Resume: true, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if out.Ran != 2 || out.Skipped != 16 {
		t.Errorf("resume ran %d and skipped %d; want 2 (the cells of lines 5 and 6) and 16", out.Ran, out.Skipped)
	}
	keysOnce(t, out.Records, 18)
	want := fmt.Sprintf("membench: warning: %s:5: not a result record (", path)
	if !strings.Contains(log.String(), want) || !strings.Contains(log.String(), "its cell runs again") {
		t.Errorf("resume's warnings:\n%s\nwant one starting %q", log.String(), want)
	}
	if _, _, err := results.ReadFile(path); err != nil {
		t.Errorf("results.jsonl after resume: %v", err)
	}
}

// TestResumeForeignRecords: records of cells the config does not have (a
// workload it does not name, another config's records altogether, a cell
// of another kind or of a workload whose content changed) are dropped on
// resume like garbled lines: a warning names each line, their text is
// kept aside, and they reach neither the records nor the reports.
func TestResumeForeignRecords(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), Options{Config: tinyConfig(t), Out: dir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "results.jsonl")
	data, _ := os.ReadFile(path)
	recs, _, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	foreign := func(edit func(*results.Record)) string {
		r := recs[0]
		edit(&r)
		b, _ := json.Marshal(&r)
		return string(b) + "\n"
	}
	extra := []string{
		foreign(func(r *results.Record) { r.Workload = "zoo/elsewhere" }),
		foreign(func(r *results.Record) { r.Subject, r.Footprint = "min-cost-flow", 1 }),
		foreign(func(r *results.Record) { r.Repeat = 7 }),
		foreign(func(r *results.Record) { r.Kind = results.KindAllocator }),
		foreign(func(r *results.Record) { r.Hash = "0123456789abcdef" }),
	}
	os.WriteFile(path, append(data, strings.Join(extra, "")...), 0o644)
	var log bytes.Buffer
	out, err := Run(context.Background(), Options{Config: tinyConfig(t), Out: dir, Resume: true, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if out.Ran != 0 || out.Skipped != 18 {
		t.Errorf("resume ran %d and skipped %d; want 0 and 18", out.Ran, out.Skipped)
	}
	keysOnce(t, out.Records, 18)
	k := recs[0].Key()
	for i, want := range []string{
		fmt.Sprintf("a record of zoo/elsewhere × %s #0, which is no cell of the config", k.Subject),
		fmt.Sprintf("a record of %s × min-cost-flow #0, which is no cell of the config", k.Workload),
		fmt.Sprintf("a record of %s × %s #7, which is no cell of the config", k.Workload, k.Subject),
		fmt.Sprintf(`a record of %s of kind "allocator", which the config runs as a strategy`, k),
		fmt.Sprintf(`a record of %s on workload content "0123456789abcdef", which is now %s`, k, recs[0].Hash),
	} {
		line := fmt.Sprintf("membench: warning: %s:%d: %s; dropped (its text is kept in %s)\n", path, 19+i, want, path+results.GarbledSuffix)
		if !strings.Contains(log.String(), line) {
			t.Errorf("resume's warnings:\n%s\nlack %q", log.String(), line)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(data) {
		t.Errorf("results.jsonl after resume:\n%s\nwant the sweep's own records:\n%s", after, data)
	}
	if kept, _ := os.ReadFile(path + results.GarbledSuffix); string(kept) != strings.Join(extra, "") {
		t.Errorf("%s:\n%s\nwant\n%s", results.GarbledSuffix, kept, strings.Join(extra, ""))
	}
	for _, f := range []string{"summary.md", "results.txt"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if strings.Contains(string(b), "elsewhere") || strings.Contains(string(b), "min-cost-flow") {
			t.Errorf("%s shows another config's records:\n%s", f, b)
		}
	}

	// A merge refuses such a record, naming its line.
	os.WriteFile(path, append(data, extra[0]...), 0o644)
	_, err = Merge(filepath.Join(t.TempDir(), "merged"), []string{dir}, false)
	want := fmt.Sprintf("%s:19: a record of zoo/elsewhere × %s #0, which is no cell of the config (membench run --resume drops such records)", path, k.Subject)
	var ie *workloads.InputError
	if !errors.As(err, &ie) || err.Error() != want {
		t.Errorf("merge: %v\nwant input error %s", err, want)
	}
}

// TestKilledWorkerIsRetried: a worker killed by a signal membench did not
// send is an error naming the signal, not oom, and --resume runs the cell
// again (without --retry-failed).
func TestKilledWorkerIsRetried(t *testing.T) {
	t.Setenv(onceEnv, t.TempDir())
	c := tinyConfig(t, "naive", "test-killed-once")
	c.Repeats = 1
	c.Workloads = entries("synthetic/chain?n=12")
	dir := t.TempDir()
	out, err := Run(context.Background(), Options{Config: c, Out: dir})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 cells failed") {
		t.Fatalf("err = %v, want 1 of 2 cells failed", err)
	}
	r := out.Failed[0]
	want := "worker killed by signal SIGKILL (not sent by membench: another process, or the kernel's OOM killer); --resume runs the cell again"
	if r.Subject != "test-killed-once" || r.Status != results.StatusError || r.Error != want {
		t.Errorf("killed worker's record: %s %q\nwant error %q", r.Status, r.Error, want)
	}
	out, err = Run(context.Background(), Options{Config: c, Out: dir, Resume: true})
	if err != nil || out.Ran != 1 || out.Skipped != 1 {
		t.Fatalf("resume: ran %d, skipped %d, err %v; want the killed cell run again", out.Ran, out.Skipped, err)
	}
	keysOnce(t, out.Records, 2)
	for _, r := range out.Records {
		if r.Status != results.StatusOK {
			t.Errorf("%s after resume: %s %q, want ok", r.Key(), r.Status, r.Error)
		}
	}
}

// TestRetryFailed: --resume --retry-failed reruns the failed cells; the new
// record supersedes the old one in the results, the summary, a merge and
// later resumes, while results.jsonl keeps both.
func TestRetryFailed(t *testing.T) {
	t.Setenv(onceEnv, t.TempDir())
	c := tinyConfig(t, "naive", "test-fails-once", "test-overlap")
	c.Repeats = 1
	c.Workloads = entries("synthetic/chain?n=12")
	dir := t.TempDir()
	if _, err := Run(context.Background(), Options{Config: c, Out: dir}); err == nil || !strings.Contains(err.Error(), "2 of 3 cells failed") {
		t.Fatalf("err = %v, want 2 of 3 cells failed", err)
	}
	// A plain resume leaves failed cells alone: they are results.
	out, err := Run(context.Background(), Options{Config: c, Out: dir, Resume: true})
	if out.Ran != 0 || err == nil {
		t.Errorf("plain resume ran %d cells (err %v); want none, and the failures reported", out.Ran, err)
	}
	if _, err := Run(context.Background(), Options{Config: c, Out: dir, RetryFailed: true}); err == nil || !strings.Contains(err.Error(), "--retry-failed goes with --resume") {
		t.Errorf("--retry-failed without --resume: err = %v", err)
	}
	out, err = Run(context.Background(), Options{Config: c, Out: dir, Resume: true, RetryFailed: true})
	if out.Ran != 2 || out.Skipped != 1 {
		t.Errorf("--retry-failed ran %d, skipped %d; want 2, 1", out.Ran, out.Skipped)
	}
	wantErr := "1 of 3 cells failed:\n  synthetic/chain?n=12&seed=0 × test-overlap #0: invalid: invalid plan: "
	if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
		t.Errorf("err = %v, want %q...", err, wantErr)
	}
	check := func(what string, recs []results.Record) {
		t.Helper()
		m := keysOnce(t, recs, 3)
		for k, r := range m {
			want := results.StatusOK
			if k.Subject == "test-overlap" {
				want = results.StatusInvalid
			}
			if r.Status != want {
				t.Errorf("%s: %s: %s %q, want %s", what, k, r.Status, r.Error, want)
			}
		}
	}
	check("sweep", out.Records)
	data, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if n := strings.Count(string(data), "\n"); n != 5 {
		t.Errorf("results.jsonl has %d lines, want 5 (3 cells, 2 of them rerun)", n)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if strings.Contains(string(summary), "error") {
		t.Errorf("summary.md still shows the superseded error:\n%s", summary)
	}
	merged, err := Merge(filepath.Join(t.TempDir(), "merged"), []string{dir}, false)
	if merged == nil {
		t.Fatalf("merge: %v", err)
	}
	check("merge", merged.Records)
	out, _ = Run(context.Background(), Options{Config: c, Out: dir, Resume: true})
	if out.Ran != 0 {
		t.Errorf("a later resume ran %d cells, want 0", out.Ran)
	}
	check("later resume", out.Records)
}

func TestRerun(t *testing.T) {
	for _, tc := range []struct {
		status, err  string
		plain, retry bool
	}{
		{results.StatusOK, "", false, false},
		{results.StatusError, "worker killed by signal SIGKILL (not sent by membench...)", true, true},
		{results.StatusError, noWorkerPrefix + "fork/exec membench: resource temporarily unavailable", true, true},
		{results.StatusError, "panic: boom", false, true},
		{results.StatusTimeout, "cell timed out after 1s", false, true},
		{results.StatusOOM, "worker died: exit status 3\nmembench worker: out of memory", false, true},
		{results.StatusInvalid, "invalid plan: overlap", false, true},
	} {
		r := results.Record{Status: tc.status, Error: tc.err}
		if got := Rerun(r, false); got != tc.plain {
			t.Errorf("Rerun(%s %q, false) = %v, want %v", tc.status, tc.err, got, tc.plain)
		}
		if got := Rerun(r, true); got != tc.retry {
			t.Errorf("Rerun(%s %q, true) = %v, want %v", tc.status, tc.err, got, tc.retry)
		}
	}
}

// TestExpandMaxCells: a config of 10^12 repeats is refused before any
// cell is listed, naming the config file.
func TestExpandMaxCells(t *testing.T) {
	c := tinyConfig(t, "naive", "greedy-by-size")
	c.Repeats = 1_000_000_000_000
	// A loop over the repeats would not return at all.
	_, err := c.Expand()
	want := "the sweep has 1000000000000 repeats of 6 cells, 6e+12 cells in all: more than the 1000000 a sweep may have; lower repeats, or split the sweep into several configs"
	var ie *workloads.InputError
	if !errors.As(err, &ie) || err.Error() != "tiny.toml: "+want {
		t.Errorf("Expand: %v\nwant input error tiny.toml: %s", err, want)
	}
	// A config read back from a manifest has no file to name.
	fromManifest := *c
	fromManifest.src = nil
	_, err = fromManifest.Expand()
	var ue *workloads.UsageError
	if !errors.As(err, &ue) || err.Error() != want {
		t.Errorf("Expand of a manifest's config: %v\nwant usage error %s", err, want)
	}
	c.Repeats = MaxCells / 6
	if m, err := c.Expand(); err != nil || len(m.Cells) != MaxCells/6*6 {
		t.Errorf("Expand at the bound: %v", err)
	}
	// No subject fits: no cells, and no loop over the repeats.
	c.Repeats = 1_000_000_000_000
	c.MaxN = map[string]int{"naive": 1, "greedy-by-size": 1}
	if m, err := c.Expand(); err != nil || len(m.Cells) != 0 {
		t.Errorf("Expand with no cells: %v", err)
	}
}

// TestTempsRemoved: what a kill during an atomic write leaves (.NAME.tmp*
// in the folder and in plots/) goes on the next resume and replot.
func TestTempsRemoved(t *testing.T) {
	c := tinyConfig(t, "naive")
	c.Repeats = 1
	dir := t.TempDir()
	if _, err := Run(context.Background(), Options{Config: c, Out: dir}); err != nil {
		t.Fatal(err)
	}
	leave := func() []string {
		files := []string{filepath.Join(dir, "plots", ".footprint.png.tmp123"), filepath.Join(dir, ".summary.md.tmp9")}
		for _, f := range files {
			os.WriteFile(f, []byte("partial"), 0o600)
		}
		return files
	}
	gone := func(what string, files []string) {
		t.Helper()
		for _, f := range files {
			if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s left %s (%v)", what, f, err)
			}
		}
	}
	files := leave()
	var log bytes.Buffer
	if _, err := Run(context.Background(), Options{Config: c, Out: dir, Resume: true, Progress: &log}); err != nil {
		t.Fatal(err)
	}
	gone("resume", files)
	if !strings.Contains(log.String(), "membench: removed "+files[0]+", left by an interrupted write") {
		t.Errorf("resume's log:\n%s\nwant the removal named", log.String())
	}
	files = leave()
	if _, err := Replot(context.Background(), dir, plot.Options{Kind: "footprint"}); err != nil {
		t.Fatal(err)
	}
	gone("replot", files)
}

func TestHeadline(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"exec:p.py: exit status 1: Traceback (most recent call last):\n  File \"p.py\", line 3, in <module>\n    f()\nValueError: no plan\n", "ValueError: no plan"},
		{"panic: boom\ngoroutine 1 [running]:\nmain.f()\n\t/x.go:3", "panic: boom"},
		{"worker died: exit status 3\nmembench worker: out of memory: 9 heap bytes", "membench worker: out of memory: 9 heap bytes"},
		{"cell timed out after 1s", "cell timed out after 1s"},
		{"", ""},
	} {
		if got := Headline(tc.in); got != tc.want {
			t.Errorf("Headline(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCostModel: the ETA weighs the cells left by n log n of their size
// and their subject's measured rate, not by their count.
func TestCostModel(t *testing.T) {
	cell := func(subject string, n int) Cell { return Cell{Subject: subject, Info: WorkloadInfo{N: n}} }
	todo := []Cell{cell("slow", 100), cell("slow", 1000), cell("fast", 100), cell("fast", 1000), cell("new", 1000)}
	m := newCostModel(todo)
	if _, ok := m.eta(1); ok {
		t.Error("an ETA before any cell ended")
	}
	u100, u1000 := sizeUnits(100), sizeUnits(1000)
	if !near(u100, 100*math.Log2(102)) || !near(u1000, 1000*math.Log2(1002)) {
		t.Errorf("sizeUnits(100), (1000) = %v, %v; want n log2(n+2)", u100, u1000)
	}
	m.done(todo[0], 10*time.Second)       // slow: 10s per u100
	m.done(todo[2], 100*time.Millisecond) // fast: 0.1s per u100
	slow, fast := 10/u100, 0.1/u100
	all := 10.1 / (2 * u100)
	want := u1000*slow + u1000*fast + u1000*all
	got, ok := m.eta(1)
	if !ok || !near(got.Seconds(), want) {
		t.Errorf("eta(1) = %v, want %.3fs", got, want)
	}
	if got2, _ := m.eta(2); !near(got2.Seconds(), want/2) {
		t.Errorf("eta(2) = %v, want %.3fs", got2, want/2)
	}
	// Counting cells would say 3/2 of the time so far (15.15s); the
	// weights know the big slow cell dominates.
	if got.Seconds() < 200 {
		t.Errorf("eta = %v: the size of the cells left is not weighed", got)
	}
	for _, c := range todo[3:] {
		m.done(c, time.Second)
	}
	m.done(todo[1], time.Second)
	if got, _ := m.eta(1); got != 0 {
		t.Errorf("eta with nothing left = %v", got)
	}
	if sizeUnits(0) != 1 || sizeUnits(1) != math.Log2(3) {
		t.Errorf("sizeUnits(0), (1) = %v, %v; want 1, log2(3)", sizeUnits(0), sizeUnits(1))
	}
}

func near(a, b float64) bool { return a-b < 1e-6*b && b-a < 1e-6*b }

// TestProgressShowsFailures: the terminal bar counts failed cells and
// shows the weighted ETA; the plain lines do too.
func TestProgressShowsFailures(t *testing.T) {
	cells := []Cell{{Subject: "a", Info: WorkloadInfo{N: 10}}, {Subject: "a", Info: WorkloadInfo{N: 10}}, {Subject: "a", Info: WorkloadInfo{N: 10}}}
	for _, terminal := range []bool{true, false} {
		var buf bytes.Buffer
		p := newProgress(Options{Progress: &buf, Terminal: terminal, Jobs: 1}, cells)
		p.step(cells[0], results.Record{Status: results.StatusTimeout}, 2*time.Second)
		p.step(cells[1], results.Record{Status: results.StatusOK}, 2*time.Second)
		want := "cells (1 failed, ETA 2s)"
		if !terminal {
			p.step(cells[2], results.Record{Status: results.StatusOK}, 2*time.Second)
			want = "membench: 3/3 cells, 1 failed, 0s elapsed, ETA 0s\n"
		}
		p.finish()
		if !strings.Contains(buf.String(), want) {
			t.Errorf("terminal %v: progress output %q lacks %q", terminal, buf.String(), want)
		}
	}
}
