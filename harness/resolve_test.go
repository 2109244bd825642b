package harness

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"membench/results"
	"membench/workloads"
)

// countedLoads counts the loads of synthetic/test-counted, so that a test
// can tell how often the harness builds a workload. It is registered in
// this test binary only, in a family the tests know.
var countedLoads atomic.Int64

func init() {
	workloads.Register(workloads.Info{
		Name:   "synthetic/test-counted",
		Doc:    "test only: a chain of n buffers that counts its loads",
		Params: []workloads.ParamDoc{{Name: "n", Default: "3", Doc: "buffers"}},
		New: func(a *workloads.Args) (*workloads.Problem, error) {
			countedLoads.Add(1)
			p := &workloads.Problem{Alignment: 1}
			for i := range a.Int("n", 3) {
				p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: int64(i + 1), First: i, Last: i + 1})
			}
			return p, nil
		},
	})
}

// TestConfigResolvedOnce: ParseConfig checks a config and loads each of its
// workloads once; Expand lists the cells from that, without loading them
// again. A config whose subjects flags replaced is resolved anew, its
// errors then usage errors without the file's lines, which no longer match.
func TestConfigResolvedOnce(t *testing.T) {
	const in = "strategies = [\"naive\", \"greedy-by-size\"]\nrepeats = 2\nworkloads = [{ spec = \"synthetic/test-counted\", params = { n = [2, 5] } }]\n"
	countedLoads.Store(0)
	c, err := ParseConfig("once.toml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := c.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if got := countedLoads.Load(); got != 2 {
		t.Errorf("ParseConfig and Expand loaded the 2 workloads %d times, want once each", got)
	}
	if len(pl.Cells) != 2*2*2 || pl.Infos["synthetic/test-counted?n=5"].N != 5 || pl.Infos["synthetic/test-counted?n=2"].LBLoad == 0 {
		t.Errorf("matrix: %d cells, infos %v", len(pl.Cells), pl.Infos)
	}

	c.Strategies = []Entry{{Spec: "naive"}, {Spec: "naive"}}
	_, err = c.Expand()
	var ue *workloads.UsageError
	if !errors.As(err, &ue) || err.Error() != `strategy "naive" listed twice` {
		t.Errorf("replaced subjects: err = %v (%T), want the usage error `strategy \"naive\" listed twice`", err, err)
	}
	c.Strategies = []Entry{{Spec: "naive"}}
	if pl, err = c.Expand(); err != nil || len(pl.Cells) != 2*2 {
		t.Errorf("replaced subjects: %v cells, err %v", pl, err)
	}
}

// TestCellRecord: a cell's record starts in one place, whether the worker
// ran the cell or the parent recorded how it failed.
func TestCellRecord(t *testing.T) {
	c := Cell{Index: 7, Workload: "synthetic/test-counted?n=4", Subject: "naive", Kind: "bogus", Repeat: 2,
		Info: WorkloadInfo{N: 4, Hash: "abc", LBLoad: 9, LBObjects: 10}}
	want := results.Record{Workload: c.Workload, N: 4, Hash: "abc", Subject: "naive", Kind: "bogus", Repeat: 2,
		LBLoad: 9, LBObjects: 10, TimesNs: []float64{}}
	ran := (&executor{}).Execute(context.Background(), c)
	if ran.Status != results.StatusError || ran.Error != `unknown kind "bogus"` {
		t.Errorf("ran: status %q, error %q", ran.Status, ran.Error)
	}
	gave := failed(c, results.StatusTimeout, "late")
	if gave.Status != results.StatusTimeout || gave.Error != "late" {
		t.Errorf("failed: status %q, error %q", gave.Status, gave.Error)
	}
	for _, r := range []results.Record{ran, gave} {
		r.Status, r.Error = "", ""
		if !reflect.DeepEqual(r, want) {
			t.Errorf("record\n got %+v\nwant %+v", r, want)
		}
	}
}

// TestExecutorKeepsWorkloads: a worker's executor loads each workload once
// although the cells come repeat by repeat, and within its budget drops the
// least recently used; with no budget it keeps the last workload alone.
func TestExecutorKeepsWorkloads(t *testing.T) {
	a, b, c := "synthetic/test-counted?n=2", "synthetic/test-counted?n=3", "synthetic/test-counted?n=4"
	run := func(x *executor, specs ...string) int64 {
		countedLoads.Store(0)
		for _, s := range specs {
			if _, err := x.load(s); err != nil {
				t.Fatal(err)
			}
		}
		return countedLoads.Load()
	}
	repeats := []string{a, a, b, b, a, a, b, b}
	if got := run(&executor{workloadCache{keep: keptWorkloadBytes}}, repeats...); got != 2 {
		t.Errorf("two repeats of two workloads: %d loads, want 2", got)
	}
	if got := run(&executor{}, repeats...); got != 4 {
		t.Errorf("no budget: %d loads, want 4 (once per run of cells)", got)
	}
	// Room for two of 2..4 buffers (24 bytes each): c evicts a, the least
	// recently used once b was used again.
	x := &executor{workloadCache{keep: 7 * int64(unsafe.Sizeof(workloads.Buffer{}))}}
	if got := run(x, a, b, b, c, b, a); got != 4 {
		t.Errorf("budget of two: %d loads, want 4 (a, b, c, then a again)", got)
	}
	if x.bytes > x.keep {
		t.Errorf("kept %d bytes, over the budget of %d", x.bytes, x.keep)
	}
}

// TestSweepLoadsOnce: a sweep's parent loads each workload once, to check
// the config and list the cells, and draws its figures (a layout and a
// timeline) from the workloads it kept.
func TestSweepLoadsOnce(t *testing.T) {
	countedLoads.Store(0)
	c, err := ParseConfig("once.toml", []byte(`
name = "once"
benchtime = "1ms"
samples = 1
repeats = 2
workloads = [{ spec = "synthetic/test-counted", params = { n = [6, 7] } }]
strategies = ["naive"]
allocators = ["bump"]
`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), Options{Config: c, Out: t.TempDir(), Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	var figures []string
	for _, f := range out.Files {
		if b := filepath.Base(f); strings.HasPrefix(b, "layout") || strings.HasPrefix(b, "timeline") {
			figures = append(figures, b)
		}
	}
	if got := countedLoads.Load(); got != 2 || len(figures) != 2 {
		t.Errorf("the parent loaded the 2 workloads %d times and drew %v; want once each, and a layout and a timeline", got, figures)
	}
}
