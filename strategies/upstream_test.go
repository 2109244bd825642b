package strategies

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// upstreamFile is one testdata/upstream/*.json file: the expected values
// of an upstream project's own unit tests, carried over as data.
type upstreamFile struct {
	Upstream string         `json:"upstream"`
	Revision string         `json:"revision"`
	Cases    []upstreamCase `json:"cases"`
}

// upstreamCase is one upstream test. Its input is either events (alloc
// and free calls, one time step each, as XLA's heap simulator and ONNX
// Runtime's pattern planner number them) or buffers ({size, first, last}
// in call order). Strategy is a registered spec, or
// "SimpleMemoryArena.Allocate": TFLite's arena called in the given order.
type upstreamCase struct {
	Test      string   `json:"test"`
	Strategy  string   `json:"strategy"`
	Alignment int64    `json:"alignment"`
	RawEvents [][]any  `json:"events"`
	Buffers   [][3]int `json:"buffers"`
	Offsets   []int64  `json:"offsets"`
	// OffsetsOf holds expected offsets by buffer index where the upstream
	// test asserts only some.
	OffsetsOf map[int]int64 `json:"offsets_of"`
	Footprint *int64        `json:"footprint"`
	// FootprintBelow is an upper bound where the upstream test only
	// bounds the footprint.
	FootprintBelow int64 `json:"footprint_below"`
}

func (c *upstreamCase) problem(t *testing.T) *workloads.Problem {
	t.Helper()
	if c.RawEvents != nil {
		tr := &workloads.Trace{Name: c.Test}
		for _, e := range c.RawEvents {
			kind, _ := e[0].(string)
			id, _ := e[1].(float64)
			switch {
			case kind == "alloc" && len(e) == 3:
				size, _ := e[2].(float64)
				tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Alloc, ID: int(id), Size: int64(size)})
			case kind == "free" && len(e) == 2:
				tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Free, ID: int(id)})
			default:
				t.Fatalf("%s: bad event %v (want [\"alloc\", id, size] or [\"free\", id])", c.Test, e)
			}
		}
		p, err := tr.ToProblem()
		if err != nil {
			t.Fatalf("%s: %v", c.Test, err)
		}
		p.Alignment = c.Alignment
		return p
	}
	p := &workloads.Problem{Name: c.Test, Alignment: c.Alignment}
	for i, b := range c.Buffers {
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: int64(b[0]), First: b[1], Last: b[2]})
	}
	return p
}

// TestUpstreamGoldens reproduces the expected offsets and footprints of
// the upstream unit tests in testdata/upstream.
func TestUpstreamGoldens(t *testing.T) {
	// The files in this format; the TVM, ExecuTorch, MegEngine and MXNet
	// goldens beside them have tests of their own.
	var paths []string
	for _, f := range []string{"xla_heap_simulator", "tflite_arena_planner", "tflite_simple_memory_arena", "tflm_memory_planner", "ort_mem_pattern_planner"} {
		paths = append(paths, filepath.Join("testdata/upstream", f+".json"))
	}
	ctx := context.Background()
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var f upstreamFile
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if f.Upstream == "" || f.Revision == "" || len(f.Cases) == 0 {
			t.Fatalf("%s: want upstream, revision and cases", path)
		}
		for _, c := range f.Cases {
			t.Run(c.Test, func(t *testing.T) {
				p := c.problem(t)
				var plan *Plan
				if c.Strategy == "SimpleMemoryArena.Allocate" {
					offs, fp, err := tfliteArenaAllocate(ctx, p.Buffers, kernel.InOrder(len(p.Buffers)), c.Alignment)
					if err != nil {
						t.Fatal(err)
					}
					plan = &Plan{Offsets: offs, Footprint: fp}
				} else {
					s, err := Lookup(c.Strategy)
					if err != nil {
						t.Fatal(err)
					}
					if plan, err = s.Plan(ctx, p); err != nil {
						t.Fatal(err)
					}
				}
				if err := Validate(p, plan); err != nil {
					t.Fatalf("invalid plan: %v", err)
				}
				if c.Offsets != nil && !slices.Equal(plan.Offsets, c.Offsets) {
					t.Errorf("%s: offsets %v, want %v (%s)", c.Strategy, plan.Offsets, c.Offsets, f.Upstream)
				}
				for i, want := range c.OffsetsOf {
					if i < 0 || i >= len(plan.Offsets) || plan.Offsets[i] != want {
						t.Errorf("%s: buffer %d not at %d: offsets %v (%s)", c.Strategy, i, want, plan.Offsets, f.Upstream)
					}
				}
				if c.Footprint != nil && plan.Footprint != *c.Footprint {
					t.Errorf("%s: footprint %d, want %d (%s)", c.Strategy, plan.Footprint, *c.Footprint, f.Upstream)
				}
				if c.FootprintBelow > 0 && plan.Footprint >= c.FootprintBelow {
					t.Errorf("%s: footprint %d, want below %d (%s)", c.Strategy, plan.Footprint, c.FootprintBelow, f.Upstream)
				}
				if c.Offsets == nil && c.OffsetsOf == nil && c.Footprint == nil && c.FootprintBelow == 0 {
					t.Error("case checks nothing")
				}
			})
		}
	}
}

// TestTFLMGreedyTieOrder carries over the c case of tflite-micro's
// GreedyMemoryPlannerTest.TestReverseSortInPlace: ReverseSortInPlace is a
// stable descending sort. GreedyMemoryPlanner fills its array from the
// back, so buffers of equal size go later buffer first.
func TestTFLMGreedyTieOrder(t *testing.T) {
	var bufs []workloads.Buffer
	for i := range 100 {
		bufs = append(bufs, workloads.Buffer{ID: i, Size: int64(i%10 + 1), First: 0, Last: 0})
	}
	var want []int32
	for v := 10; v >= 1; v-- {
		for i := 99; i >= 0; i-- {
			if i%10+1 == v {
				want = append(want, int32(i))
			}
		}
	}
	if got := tflmGreedyOrder(bufs); !slices.Equal(got, want) {
		t.Errorf("tflmGreedyOrder = %v, want %v", got, want)
	}
}
