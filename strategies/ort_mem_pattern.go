package strategies

import (
	"context"
	"math"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

func init() {
	Register(Info{
		Name: "ort-mem-pattern", Runtime: "onnxruntime", Kind: Offsets,
		Doc: "ONNX Runtime MemPatternPlanner: online best fit in trace order among the live blocks " +
			"and the free top of the buffer so far, else on top of the live blocks",
		Arena: "the pattern's peak: the highest offset plus size rounded up to the problem's alignment " +
			"(ONNX Runtime plans sizes its allocator has rounded)",
		New: Simple(func() Strategy { return ortMemPattern{} }),
	})
}

// ortMemPattern is ONNX Runtime's MemPatternPlanner
// (onnxruntime/core/framework/mem_pattern_planner.h), the planner behind
// its memory patterns (enable_mem_pattern): it records one run's
// allocations and frees and places each allocation online. The rules of
// its TraceAllocation(ml_value_idx, size) followed here are those of
// microsoft/onnxruntime commit 9b010963 (PR 5676), which added the
// program-counter variant and best_offset_found; earlier revisions lacked
// the top-gap rule.
//
// The rules, in our words:
//   - Allocations come in trace order (DESIGN §1: by first task, then
//     buffer ID, then problem order); a block is freed after its last task,
//     so at each allocation the live blocks are exactly the placed buffers
//     that overlap it in time.
//   - Zero-size buffers go to offset 0 and take no space.
//   - Walk the live blocks by offset, keeping the highest end so far; the
//     gap before each block starting at or above that end is a candidate if
//     it holds the buffer, and the one wasting least (gap minus size,
//     strictly less) wins, so ties go to the lowest.
//   - Then the space between the highest live end and the buffer size
//     reached so far (the high-water mark) is one more candidate, under the
//     same strictly-less rule.
//   - With no candidate the buffer goes at the highest live end, which may
//     lie below the high-water mark.
//   - Alignment: ONNX Runtime's planner sees sizes its allocator has already
//     rounded; membench rounds sizes up to the problem's alignment the same
//     way, so a block takes [offset, offset+size rounded up). The
//     pattern's size (MemoryPattern::peak_size, the buffer size reached)
//     counts the rounded sizes too: that is Plan.Arena where it differs
//     from max(offset+size).
//
// Memory spaces are ORT's memory locations (OrtMemoryInfo): its
// MemoryPatternGroup holds one MemoryPattern per location, each traced
// apart, so the registry's per-space planning (Info.Forms leaves out
// FormMemories) is ORT's rule, each space's pattern size its footprint.
//
// Not modelled: the program-counter variant used in training (blocks
// reused by time schedule).
type ortMemPattern struct{}

func (ortMemPattern) Name() string { return "ort-mem-pattern" }

func (ortMemPattern) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	bufs := p.Buffers
	align := max(p.Alignment, 1)
	offsets, fp, err := placeOneByOne(ctx, "ort-mem-pattern", bufs, ortMemPatternOrder(bufs), math.MaxInt64, ortMemPatternChoose(align),
		func(off, size int64) int64 { return off + AlignUp(size, align) })
	if err != nil {
		return nil, err
	}
	return setArena(&Plan{Offsets: offsets, Footprint: fp}, roundedArena(bufs, offsets, align)), nil
}

// ortMemPatternOrder is the trace order: by first task, then buffer ID,
// then problem order.
func ortMemPatternOrder(bufs []workloads.Buffer) []int32 {
	return kernel.StableOrder(len(bufs), func(i int32) int64 { return int64(bufs[i].First) }, func(i int32) int64 { return int64(bufs[i].ID) })
}

// ortMemPatternChoose is MemPatternPlanner's best fit with its high-water
// mark; each run needs a fresh one.
func ortMemPatternChoose(align int64) chooser {
	var highWater int64
	return func(size int64, live []kernel.Comp) int64 {
		size = AlignUp(size, align)
		off, length, found, top := kernel.BestFit(live, size, 1)
		if gap := highWater - top; gap >= size && (!found || gap < length) {
			off, found = top, true
		}
		if !found {
			off = top
		}
		highWater = max(highWater, off+size)
		return off
	}
}
