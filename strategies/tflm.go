package strategies

import (
	"context"
	"fmt"
	"math"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

func init() {
	const arena = "GetMaximumMemorySize: the highest offset plus size rounded up to the alignment, " +
		"as TFLite Micro rounds every size before planning"
	Register(Info{
		Name: "tflm-greedy", Runtime: "tflm", Kind: Offsets,
		Doc: "TFLite Micro GreedyMemoryPlanner: fixed (offline-planned) offsets kept and placed first, then " +
			"rounded size desc (ties: later buffer first), first gap among simultaneously live buffers, else on top; " +
			"a .tflite aligns to 16 bytes unless --align says",
		Arena: arena,
		Forms: workloads.FormFixed,
		New:   Simple(func() Strategy { return tflmGreedy{} }),
	})
	Register(Info{
		Name: "tflm-linear", Runtime: "tflm", Kind: Offsets,
		Doc: fmt.Sprintf("TFLite Micro LinearMemoryPlanner: every buffer after the previous one, in problem order "+
			"(no reuse); at most %d buffers; a .tflite aligns to 16 bytes unless --align says", tflmLinearMaxBuffers),
		Arena: arena,
		New:   Simple(func() Strategy { return tflmLinear{} }),
	})
}

// tflmAlignment is TFLite Micro's MicroArenaBufferAlignment()
// (tensorflow/lite/micro/micro_arena_constants.h).
const tflmAlignment = 16

// tflmLinearMaxBuffers is LinearMemoryPlanner::kMaxBufferCount.
const tflmLinearMaxBuffers = 1024

// The TFLite Micro planners follow tensorflow/tflite-micro at commit
// 90b983c2b3f1480642e040bbd2ddb37b998f3424:
// tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc and
// linear_memory_planner.cc, fed by micro_allocator.cc (CreatePlan) and
// micro_allocation_info.cc.
//
// What the allocator hands the planners, in our words:
//   - Every size is rounded up to the alignment before the planner sees it
//     (CreatePlan: AlignSizeUp(bytes, MicroArenaBufferAlignment())), so
//     the planners compare, place and count rounded sizes. The alignment
//     is the problem's where it sets one (--align, a workload file's
//     alignment), else TFLite Micro's own 16 bytes for a `.tflite` model,
//     else 1.
//   - The arena TFLite Micro asks for is the planner's
//     GetMaximumMemorySize over those rounded sizes (Plan.Arena where it
//     differs from max(offset+size) over the sizes as given).
//   - Variable tensors (is_variable) and zero-size tensors are not planned
//     (needs_allocating is false for them): variables go to the persistent
//     area, which the `.tflite` reader keeps in Problem.Persistent; a
//     zero-size buffer here lands at offset 0 and takes no space.
//
//   - Offline-planned buffers (the OfflineMemoryAllocation metadata of a
//     `.tflite`, read by workloads.ReadTFLiteModel into Problem.Fixed, or
//     any problem's fixed offsets) reach the planner through its AddBuffer
//     with an offline offset: the greedy planner keeps them (tflmGreedy);
//     the linear planner has no such AddBuffer, the default one fails, and
//     so TFLite Micro's CreatePlan fails: tflm-linear does not declare
//     FormFixed and the registry refuses such a problem.
//
// Not modelled: subgraphs of control-flow operators, scratch buffers, and
// the scratch-buffer limit on the greedy planner's buffer count (it
// depends on the arena the user gives).

// tflmAlign returns the alignment a TFLite Micro planner rounds sizes to
// for p.
func tflmAlign(p *workloads.Problem) int64 {
	switch {
	case p.Alignment > 0:
		return p.Alignment
	case p.Format == workloads.FormatTFLiteModel:
		return tflmAlignment
	}
	return 1
}

// tflmRounded returns the sizes of bufs rounded up to align, as TFLite
// Micro's allocator hands them to its planner.
func tflmRounded(name string, bufs []workloads.Buffer, align int64) ([]workloads.Buffer, error) {
	if err := kernel.RecordError(name, bufs); err != nil {
		return nil, err
	}
	out := make([]workloads.Buffer, len(bufs))
	for i, b := range bufs {
		if b.Size > math.MaxInt64-(align-1) {
			return nil, fmt.Errorf("%s: buffer %d (id %d): size %d rounded up to %d overflows 2^63", name, i, b.ID, b.Size, align)
		}
		b.Size = AlignUp(b.Size, align)
		out[i] = b
	}
	return out, nil
}

// tflmGreedy is TensorFlow Lite Micro's GreedyMemoryPlanner.
//
// The rules, in our words, over the rounded sizes:
//   - Order: size descending. TFLite Micro fills its sort array from the
//     back (the last buffer first) and bubble-sorts it stably, so equal
//     rounded sizes keep that reversed order: the later buffer goes first,
//     even where its size as given is the smaller.
//   - The first buffer goes to offset 0. Each next one walks the placed
//     buffers that overlap it in time, by offset (ties: placement order),
//     keeping the highest end so far; it goes into the first gap, from that
//     end up to the next buffer's offset, that holds it, else above them
//     all. First fit, not best fit.
//   - The arena is the highest offset plus rounded size.
//   - Fixed offsets (CalculateOffsetsIfNeeded with offline offsets): the
//     offline-planned buffers come first, in problem order and unsorted,
//     each at its own offset as given (no alignment, no check against the
//     others); the online buffers follow in the order above and take the
//     first fit among every placed buffer live with them, offline ones
//     included, with no alignment of their own either (their rounded sizes
//     keep them aligned only where the offline offsets are). The arena
//     counts the offline buffers' offsets plus rounded sizes too.
type tflmGreedy struct{}

func (tflmGreedy) Name() string { return "tflm-greedy" }

func (g tflmGreedy) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	return g.plan(ctx, p, placeOneByOneByID)
}

// plan is Plan on the given loop.
func (tflmGreedy) plan(ctx context.Context, p *workloads.Problem, place placer) (*Plan, error) {
	align := tflmAlign(p)
	rounded, err := tflmRounded("tflm-greedy", p.Buffers, align)
	if err != nil {
		return nil, err
	}
	if p.Fixed != nil {
		return tflmGreedyFixed(ctx, place, p, rounded)
	}
	offsets, arena, err := place(ctx, "tflm-greedy", rounded, tflmGreedyOrder(rounded), math.MaxInt64,
		tflmGreedyChoose(align),
		func(off, size int64) int64 { return AlignUp(off+size, align) })
	if err != nil {
		return nil, err
	}
	return setArena(&Plan{Offsets: offsets, Footprint: Footprint(p.Buffers, offsets)}, arena), nil
}

// tflmGreedyFixed plans p, some of whose buffers have fixed offsets, over
// the rounded sizes: the fixed buffers first, in problem order, each at its
// offset; then the others in tflmGreedyOrder, first fit without alignment.
func tflmGreedyFixed(ctx context.Context, place placer, p *workloads.Problem, rounded []workloads.Buffer) (*Plan, error) {
	var order []int32
	var at []int64 // the fixed offsets of the positive sizes, in order
	for i := range rounded {
		if off, ok := p.FixedOf(i); ok {
			order = append(order, int32(i))
			if rounded[i].Size > 0 {
				at = append(at, off)
			}
		}
	}
	for _, i := range tflmGreedyOrder(rounded) {
		if _, ok := p.FixedOf(int(i)); !ok {
			order = append(order, i)
		}
	}
	// The loop asks for the positive sizes' offsets in order, so the fixed
	// ones are asked for first.
	choose := func(size int64, live []kernel.Comp) int64 {
		if len(at) > 0 {
			off := at[0]
			at = at[1:]
			return off
		}
		return kernel.FirstFit(live, size, 1)
	}
	offsets, arena, err := place(ctx, "tflm-greedy", rounded, order, math.MaxInt64, choose,
		func(off, size int64) int64 { return off + size })
	if err != nil {
		return nil, err
	}
	for i := range offsets {
		if off, ok := p.FixedOf(i); ok {
			offsets[i] = off // a zero size too, which the loop puts at 0
		}
	}
	return setArena(&Plan{Offsets: offsets, Footprint: Footprint(p.Buffers, offsets)}, arena), nil
}

// tflmGreedyChoose is TFLM's first fit.
func tflmGreedyChoose(align int64) chooser {
	return func(size int64, live []kernel.Comp) int64 { return kernel.FirstFit(live, size, align) }
}

// tflmGreedyOrder is GreedyMemoryPlanner's placement order over the sizes
// of bufs (rounded by the caller): size descending, ties by problem order
// descending.
func tflmGreedyOrder(bufs []workloads.Buffer) []int32 {
	return kernel.StableOrder(len(bufs), func(i int32) int64 { return -bufs[i].Size }, func(i int32) int64 { return -int64(i) })
}

// tflmLinear is TensorFlow Lite Micro's LinearMemoryPlanner: a bump
// allocator that puts every buffer right after the previous one in
// problem order and never reuses memory, so each offset is the sum of the
// rounded sizes before it and the arena the sum of them all. Like TFLite
// Micro it refuses more than kMaxBufferCount (1,024) buffers.
type tflmLinear struct{}

func (tflmLinear) Name() string { return "tflm-linear" }

func (tflmLinear) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	if n := len(p.Buffers); n > tflmLinearMaxBuffers {
		return nil, fmt.Errorf("tflm-linear: %d buffers: %w (TFLite Micro's LinearMemoryPlanner holds at most %d)", n, ErrTooManyBuffers, tflmLinearMaxBuffers)
	}
	align := tflmAlign(p)
	rounded, err := tflmRounded("tflm-linear", p.Buffers, align)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	offsets := make([]int64, len(rounded))
	var next int64
	for i, b := range rounded {
		if i%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		offsets[i] = next
		if next += b.Size; next < 0 {
			return nil, fmt.Errorf("tflm-linear: the arena overflows 2^63 bytes at buffer %d", i)
		}
	}
	return setArena(&Plan{Offsets: offsets, Footprint: Footprint(p.Buffers, offsets)}, next), nil
}
