package strategies_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// tfliteNames maps the fixtures' strategy names to membench's. In the
// fixtures' "offsets" section GREEDY_BY_SIZE is the arena planner.
var tfliteNames = map[string]string{
	"NAIVE":             "naive",
	"EQUALITY":          "equality",
	"GREEDY_IN_ORDER":   "greedy-in-order",
	"GREEDY_BY_BREADTH": "greedy-by-breadth",
	"GREEDY_BY_SIZE":    "greedy-by-size",
	"GREEDY_BEST":       "greedy-best",
	"MINCOSTFLOW":       "min-cost-flow",
}

type fixtureObjects struct {
	Valid       string   `json:"valid"`
	Total       uint64   `json:"total"`
	ObjectIDs   []uint64 `json:"object_ids"`
	ObjectSizes []uint64 `json:"object_sizes"`
}

type fixtureOffsets struct {
	Valid     string   `json:"valid"`
	Offsets   []uint64 `json:"offsets"`
	TotalSize uint64   `json:"total_size"`
}

type fixture struct {
	Records         [][3]int64                `json:"records"`
	LowerBound      int64                     `json:"lower_bound"`
	Objects         map[string]fixtureObjects `json:"objects"`
	Offsets         map[string]fixtureOffsets `json:"offsets"`
	OffsetsAlign128 map[string]fixtureOffsets `json:"offsets_align128"`
}

func loadFixtures(t *testing.T) map[string]*fixture {
	t.Helper()
	paths, err := filepath.Glob("testdata/tflite/*.json")
	if err != nil || len(paths) != 23 {
		t.Fatalf("want 23 TFLite fixtures in testdata/tflite, found %d (%v)", len(paths), err)
	}
	out := map[string]*fixture{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f fixture
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = &f
	}
	return out
}

func (f *fixture) problem(name string, align int64) *workloads.Problem {
	p := &workloads.Problem{Name: name, Alignment: align}
	for i, r := range f.Records {
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: r[0], First: int(r[1]), Last: int(r[2])})
	}
	return p
}

func toInt64(xs []uint64) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

func toInt(xs []uint64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func planWith(t *testing.T, spec string, p *workloads.Problem) *strategies.Plan {
	t.Helper()
	s, err := strategies.Lookup(spec)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", spec, err)
	}
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: Plan: %v", spec, err)
	}
	if err := strategies.Validate(p, plan); err != nil {
		t.Fatalf("%s: invalid plan: %v", spec, err)
	}
	return plan
}

// TestGoldenTFLite checks every strategy against TFLite's own outputs:
// object ids, object sizes, offsets and footprint must be identical. Where
// TFLite's own plan is invalid, membench must return a valid plan instead.
func TestGoldenTFLite(t *testing.T) {
	for name, f := range loadFixtures(t) {
		for tfName, want := range f.Objects {
			spec := tfliteNames[tfName]
			t.Run(name+"/"+spec, func(t *testing.T) {
				p := f.problem(name, 0)
				got := planWith(t, spec, p)
				if want.Valid != "ok" {
					return // TFLite's defect; planWith checked validity.
				}
				if !slices.Equal(got.ObjectIDs, toInt(want.ObjectIDs)) {
					t.Errorf("object_ids = %v, want %v", got.ObjectIDs, want.ObjectIDs)
				}
				if !slices.Equal(got.ObjectSizes, toInt64(want.ObjectSizes)) {
					t.Errorf("object_sizes = %v, want %v", got.ObjectSizes, want.ObjectSizes)
				}
				off := f.Offsets[tfName]
				if tfName == "GREEDY_BY_SIZE" {
					// The fixtures' offsets entry of that name is the arena
					// planner; the object plan's offsets are its objects
					// laid back to back, as for every other strategy.
					off = objectsLaidOut(f, want)
				}
				if !slices.Equal(got.Offsets, toInt64(off.Offsets)) {
					t.Errorf("offsets = %v, want %v", got.Offsets, off.Offsets)
				}
				if got.Footprint != int64(want.Total) || got.Footprint != int64(off.TotalSize) {
					t.Errorf("footprint = %d, want %d", got.Footprint, want.Total)
				}
			})
		}
		for align, set := range map[int64]map[string]fixtureOffsets{1: f.Offsets, 128: f.OffsetsAlign128} {
			want := set["GREEDY_BY_SIZE"]
			t.Run(name+"/offset-greedy-by-size/align"+itoa(align), func(t *testing.T) {
				got := planWith(t, "offset-greedy-by-size", f.problem(name, align))
				if got.ObjectIDs != nil {
					t.Errorf("offset planner returned object ids %v", got.ObjectIDs)
				}
				if !slices.Equal(got.Offsets, toInt64(want.Offsets)) {
					t.Errorf("offsets = %v, want %v", got.Offsets, want.Offsets)
				}
				if got.Footprint != int64(want.TotalSize) {
					t.Errorf("footprint = %d, want %d", got.Footprint, want.TotalSize)
				}
			})
		}
	}
}

// TestGoldenLowerBound checks LB_load against the fixtures' lower bounds.
func TestGoldenLowerBound(t *testing.T) {
	for name, f := range loadFixtures(t) {
		p := f.problem(name, 0)
		if got := strategies.LowerBounds(p).Load; got != f.LowerBound {
			t.Errorf("%s: LB_load = %d, want %d", name, got, f.LowerBound)
		}
		if got := p.LoadBound(); got != f.LowerBound {
			t.Errorf("%s: Problem.LoadBound = %d, want %d", name, got, f.LowerBound)
		}
	}
}

// objectsLaidOut returns the offsets of TFLite's object plan laid back to
// back by ObjectsToOffsets.
func objectsLaidOut(f *fixture, want fixtureObjects) fixtureOffsets {
	plan := &strategies.Plan{ObjectIDs: toInt(want.ObjectIDs), ObjectSizes: toInt64(want.ObjectSizes)}
	strategies.ObjectsToOffsets(plan, f.problem("", 0).Buffers, 0)
	out := fixtureOffsets{Valid: want.Valid, TotalSize: uint64(plan.Footprint)}
	for _, o := range plan.Offsets {
		out.Offsets = append(out.Offsets, uint64(o))
	}
	return out
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
