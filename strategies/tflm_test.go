package strategies

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
)

// TestRuntimeArenas checks offsets, footprint and the runtime's own arena
// (Plan.Arena) against what the upstream code computes, derived by hand
// from TFLite Micro at 90b983c2 (micro_allocator.cc's CreatePlan rounds
// each size up to the alignment, then greedy_memory_planner.cc or
// linear_memory_planner.cc plans the rounded sizes and
// GetMaximumMemorySize is the arena), ONNX Runtime's MemPatternPlanner,
// ExecuTorch's greedy and naive and MegEngine's pushdown (m_peak_usage).
func TestRuntimeArenas(t *testing.T) {
	type buf struct {
		size        int64
		first, last int
	}
	// mixed: buffers 0 and 1 round to the same 32 bytes at alignment 16
	// though 0 is the larger as given.
	mixed := []buf{{30, 0, 1}, {20, 0, 1}, {10, 1, 2}, {40, 2, 3}}
	// tie64: 0 and 1 both round to 128 at alignment 64.
	tie64 := []buf{{100, 0, 0}, {70, 0, 1}, {60, 1, 1}}
	cases := []struct {
		name, strategy string
		bufs           []buf
		align          int64
		format         string
		offsets        []int64
		footprint      int64
		arena          int64 // 0: the runtime's arena is the footprint
	}{
		// Rounded 32, 32, 16, 48. TFLM fills its sort array from the back
		// (ids 3, 2, 1, 0) and bubble-sorts it stably by size descending:
		// 3 (48), 1 (32), 0 (32), 2 (16): the tie puts 1 before 0.
		// 3 -> 0. 1 (tasks 0-1) meets nothing placed -> 0. 0 meets 1 at
		// [0,32): no gap below it -> 32. 2 (tasks 1-2) meets 3 [0,48),
		// 1 [0,32), 0 [32,64): the highest end is 64 -> 64.
		// Arena: max(32+32, 0+32, 64+16, 0+48) = 80; footprint
		// max(32+30, 0+20, 64+10, 0+40) = 74. (By sizes as given the
		// order would be 3, 0, 1, 2 and the offsets [0 32 64 0].)
		{"greedy-16", "tflm-greedy", mixed, 16, "", []int64{32, 0, 64, 0}, 74, 80},
		// Rounded 128, 128, 64: order 1 (the later of the tie), 0, 2.
		// 1 -> 0. 0 (task 0) meets 1 [0,128) -> 128. 2 (task 1) meets 1
		// only -> 128. Arena max(256, 128, 192) = 256; footprint
		// max(228, 70, 188) = 228. (By sizes as given: 0 -> 0, 1 -> 128,
		// 2 fits below 1 at 0: footprint 198.)
		{"greedy-64", "tflm-greedy", tie64, 64, "", []int64{128, 0, 128}, 228, 256},
		// A .tflite with no alignment set plans at TFLite Micro's 16
		// bytes: the greedy-16 plan.
		{"greedy-tflite-default", "tflm-greedy", mixed, 0, workloads.FormatTFLiteModel, []int64{32, 0, 64, 0}, 74, 80},
		// --align 1 on a .tflite: sizes as given, order 3, 0, 1, 2:
		// 3 -> 0, 0 -> 0, 1 above 0 -> 30, 2 above 3 (40), 0 (30) and 1
		// (50) -> 50. The arena is the footprint, 60.
		{"greedy-tflite-align-1", "tflm-greedy", mixed, 1, workloads.FormatTFLiteModel, []int64{0, 30, 50, 0}, 60, 0},
		// Linear: offsets are the sums of the rounded sizes before,
		// 0, 32, 64, 80; the arena their total, 128; footprint 80+40.
		{"linear-16", "tflm-linear", mixed, 16, "", []int64{0, 32, 64, 80}, 120, 128},
		// Rounded 128, 128, 64: 0, 128, 256; arena 320, footprint 316.
		{"linear-64", "tflm-linear", tie64, 64, "", []int64{0, 128, 256}, 316, 320},
		// ONNX Runtime, trace order 0, 1, 2, 3 on rounded sizes 32, 32,
		// 16, 48: 0 -> 0; 1 -> 32 (0 live); 2 (tasks 1-2) with 0 and 1
		// live -> 64, peak 80; 3 (tasks 2-3) with 2 live [64,80): the gap
		// [0,64) holds 48 -> 0. Peak 80, footprint 74.
		{"ort-16", "ort-mem-pattern", mixed, 16, "", []int64{0, 32, 64, 0}, 74, 80},
		// ExecuTorch naive at its 16 bytes: 0, 32, 64, 80; total 128.
		{"executorch-naive", "executorch-naive", mixed, 0, "", []int64{0, 32, 64, 80}, 120, 128},
		// ExecuTorch greedy at 16: keys 32, 32, 16, 48 largest first,
		// ties in reverse input order: 3, 1, 0, 2. 3 opens object A (48);
		// 1 (tasks 0-1) shares A with 3 at 0; 0 meets 1 in A, whose end
		// 32 leaves no 32 bytes below 48: object B (32); 2 meets all
		// three and fits above none: object C (16). A, B, C at 0, 48, 80:
		// total 96, footprint max(48+30, 20, 80+10, 40) = 90.
		{"executorch-greedy", "executorch-greedy", mixed, 0, "", []int64{48, 0, 80, 0}, 90, 96},
		// MegEngine pushdown, intervals [0,2) and [1,3): 1 lies above 0,
		// at 10 rounded up to 16; the total is the highest end rounded
		// up, 48, where the footprint is 36.
		{"megengine-16", "megengine-pushdown", []buf{{10, 0, 1}, {20, 1, 2}}, 16, "", []int64{0, 16}, 36, 48},
		// TFLite's arena is its high-water mark over sizes as given: no
		// separate arena.
		{"tflite-arena", "tflite-arena", tie64, 64, "", nil, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &workloads.Problem{Name: c.name, Alignment: c.align, Format: c.format}
			for i, b := range c.bufs {
				p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: b.size, First: b.first, Last: b.last})
			}
			s, err := Lookup(c.strategy)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := s.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(p, plan); err != nil {
				t.Fatal(err)
			}
			if c.offsets != nil && (!slices.Equal(plan.Offsets, c.offsets) || plan.Footprint != c.footprint) {
				t.Errorf("offsets %v footprint %d, want %v %d", plan.Offsets, plan.Footprint, c.offsets, c.footprint)
			}
			if plan.Arena != c.arena {
				t.Errorf("arena %d, want %d", plan.Arena, c.arena)
			}
		})
	}
}

// TestTFLMLinearBufferLimit: LinearMemoryPlanner holds kMaxBufferCount
// (1,024) buffers and refuses the next.
func TestTFLMLinearBufferLimit(t *testing.T) {
	s, err := Lookup("tflm-linear")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1024, 1025} {
		p := &workloads.Problem{Name: fmt.Sprint(n)}
		for i := range n {
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: 1, First: i, Last: i})
		}
		plan, err := s.Plan(context.Background(), p)
		switch {
		case n == 1024 && (err != nil || plan.Footprint != 1024):
			t.Errorf("1024 buffers: %v", err)
		case n == 1025 && (!errors.Is(err, ErrTooManyBuffers) || !strings.Contains(err.Error(),
			"tflm-linear: 1025 buffers: too many buffers (TFLite Micro's LinearMemoryPlanner holds at most 1024)")):
			t.Errorf("1025 buffers: got %v, want the buffer limit", err)
		}
	}
}
