package strategies

import (
	"context"
	"fmt"
	"math"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

func init() {
	Register(Info{
		Name: "tflite-arena", Runtime: "tflite", Kind: Offsets,
		Doc: "TFLite CPU interpreter ArenaPlanner: whole-run tensors first, then size desc, first use asc; " +
			"SimpleMemoryArena's smallest gap among time-overlapping tensors, else on top; 64-byte alignment",
		Params: []workloads.ParamDoc{{Name: "align", Default: "64",
			Doc: "tensor alignment in bytes (the interpreter's kDefaultTensorAlignment); combined with the problem's alignment by least common multiple"}},
		New: func(args *workloads.Args) (Strategy, error) {
			align := args.Int64("align", tfliteTensorAlignment)
			if align < 1 {
				return nil, workloads.Usagef("tflite-arena: align must be at least 1, got %d", align)
			}
			return tfliteArena{align}, nil
		},
	})
}

// tfliteTensorAlignment is the TFLite interpreter's default tensor
// alignment (kDefaultTensorAlignment).
const tfliteTensorAlignment = 64

// tfliteArena is the TensorFlow Lite CPU interpreter's planner:
// ArenaPlanner (tflite/arena_planner.cc) choosing the order and
// SimpleMemoryArena (tflite/simple_memory_arena.cc) placing each tensor,
// as in google-ai-edge/LiteRT at commit
// f67457790c9c2ab67347d6fe53270e8d3df20868 (where tensorflow/lite now
// lives; tensorflow/tensorflow's tensorflow/lite copy at
// 342e577aa4e9f73e657f3e9e407b2686d755233f has the same gap rule).
//
// The rules, in our words:
//   - Order (ArenaPlanner::CreateTensorAllocationVector): tensors alive for
//     the whole run come first, in problem order; membench reads "whole
//     run" as First at the problem's first task and Last at its last (TFLite:
//     allocated at node 0 and never deallocated). The rest go by size
//     descending, then first use ascending. TFLite leaves remaining ties to
//     std::sort; we break them by problem order, which is what std::sort
//     gives on TFLite's input order for small graphs.
//   - Zero-size tensors go to offset 0 and take no space.
//   - Placement (SimpleMemoryArena::Allocate): walk the placed tensors that
//     overlap in time, by offset (ties: placement order), keeping the
//     highest end so far (offset+size, not rounded). Before each one whose
//     offset is at or above that end, the tensor fits if the end rounded up
//     to the alignment plus its size reaches no further than that offset;
//     it is taken if the offset minus the rounded end is below the best
//     recorded fit, which is then set to the offset minus the unrounded end
//     (TFLite's own asymmetry, kept). With no fitting gap the tensor goes at
//     the highest end rounded up.
//   - Alignment: TFLite aligns every tensor to 64 bytes by default
//     (?align=); membench combines it with the problem's alignment by least
//     common multiple so both hold.
//   - Arena: the interpreter sizes its arena to the high-water mark,
//     max(offset+size) over the sizes as given: membench's footprint.
//
// The persistent arena (kTfLiteArenaRwPersistent: a model's variable
// tensors) is apart: the `.tflite` reader keeps those in
// Problem.Persistent, and this planner never sees them.
//
// Not modelled: in-place sharing of input buffers (actual_tensor_id_), and
// re-planning from a later node. TFLite plans one arena; a problem with
// several memory spaces is planned one space at a time by the registry.
type tfliteArena struct{ align int64 }

func (tfliteArena) Name() string { return "tflite-arena" }

func (s tfliteArena) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	return s.plan(ctx, p, tfliteArenaAllocate)
}

// tfliteAllocator places bufs in the given order with the given alignment
// (tfliteArenaAllocate; the tests pass the plain rule on other loops).
type tfliteAllocator func(ctx context.Context, bufs []workloads.Buffer, order []int32, align int64) ([]int64, int64, error)

// plan is Plan with the given allocator.
func (s tfliteArena) plan(ctx context.Context, p *workloads.Problem, allocate tfliteAllocator) (*Plan, error) {
	align, ok := lcm(s.align, max(p.Alignment, 1))
	if !ok {
		return nil, fmt.Errorf("tflite-arena: alignment %d and the problem's alignment %d have no common multiple below 2^62", s.align, p.Alignment)
	}
	offsets, fp, err := allocate(ctx, p.Buffers, tfliteArenaOrder(p.Buffers), align)
	if err != nil {
		return nil, err
	}
	return &Plan{Offsets: offsets, Footprint: fp}, nil
}

// tfliteArenaOrder is ArenaPlanner's allocation order.
func tfliteArenaOrder(bufs []workloads.Buffer) []int32 {
	if len(bufs) == 0 {
		return nil
	}
	first, last := bufs[0].First, bufs[0].Last
	for _, b := range bufs {
		first, last = min(first, b.First), max(last, b.Last)
	}
	// Whole-run tensors come first, in problem order: below every other
	// tensor's -size (sizes are not negative), with no first use.
	wholeRun := func(i int32) bool { return bufs[i].First == first && bufs[i].Last == last }
	size := func(i int32) int64 {
		if wholeRun(i) {
			return math.MinInt64
		}
		return -bufs[i].Size
	}
	firstUse := func(i int32) int64 {
		if wholeRun(i) {
			return 0
		}
		return int64(bufs[i].First)
	}
	return kernel.StableOrder(len(bufs), size, firstUse)
}

// tfliteArenaAllocate calls SimpleMemoryArena::Allocate for the buffers in
// the given order with the given alignment. Above alignment 1 it runs the
// rule on coarse ends (tfliteCoarseEnd, tfliteArenaChooseCoarse), which
// take the same offsets with far fewer spans to walk, wherever no offset
// can come near 2^62 (so that no arithmetic overflows); else the rule as
// written (tfliteArenaAllocateOn).
func tfliteArenaAllocate(ctx context.Context, bufs []workloads.Buffer, order []int32, align int64) ([]int64, int64, error) {
	if align >= 2 && tfliteArenaBounded(bufs, align) {
		return placeOneByOneOn(ctx, "tflite-arena", bufs, order, math.MaxInt64, tfliteArenaChooseCoarse(align),
			tfliteCoarseEnd(align), loopOptions{byID: true, slack: 1})
	}
	return tfliteArenaAllocateOn(ctx, placeOneByOneByID, bufs, order, align)
}

// tfliteArenaBounded reports whether the sizes of bufs plus align each sum
// to below 2^62: no offset or end can then reach it, as each buffer goes
// at most align-1 above the ends of those placed before it.
func tfliteArenaBounded(bufs []workloads.Buffer, align int64) bool {
	const limit = 1 << 62
	var total int64
	for _, b := range bufs {
		if b.Size < 0 || b.Size >= limit-align-total {
			return false
		}
		total += b.Size + align
	}
	return true
}

// tfliteArenaAllocateOn is the rule as written (tfliteArenaChoose over the
// unaligned ends) on the given loop.
func tfliteArenaAllocateOn(ctx context.Context, place placer, bufs []workloads.Buffer, order []int32, align int64) ([]int64, int64, error) {
	return place(ctx, "tflite-arena", bufs, order, math.MaxInt64, tfliteArenaChoose(align),
		func(off, size int64) int64 { return off + size })
}

// tfliteArenaChoose is SimpleMemoryArena::Allocate's choice among the gaps.
// It is not kernel.BestFit, on purpose: TFLite takes a gap when its room
// after aligning its start (end-a) is below the best gap's whole length
// (end-start), mixing the two measures; BestFit compares whole lengths.
func tfliteArenaChoose(align int64) chooser { return tfliteArenaPick(align, false) }

// tfliteArenaPick is tfliteArenaChoose over the ends as written, or over
// coarse ends (tfliteArenaChooseCoarse).
func tfliteArenaPick(align int64, coarse bool) chooser {
	return func(size int64, live []kernel.Comp) int64 {
		best, bestFit := int64(-1), int64(math.MaxInt64)
		w := kernel.NewGapWalk(live)
		for {
			start, end, ok := w.Next()
			if !ok {
				break
			}
			// a is the gap's aligned start, and TFLite's fit measure is
			// end-a plus how far the gap's true start lies below a.
			var a, below int64
			if coarse {
				// start is a coarse end (a or a+1), or 0 below every span.
				a = start - start%align
				if start > 0 && start == a {
					below = 1 // below a by less than align: the same order
				}
			} else {
				if end-start < size {
					continue // holds nothing, aligned or not
				}
				a = AlignUp(start, align)
				below = a - start
			}
			if end-a >= size && end-a < bestFit {
				best, bestFit = a, end-a+below
			}
		}
		if best >= 0 {
			return best
		}
		if coarse {
			return w.Top - w.Top%align
		}
		return AlignUp(w.Top, align)
	}
}

// The coarse ends. Every offset tflite-arena gives is a multiple of the
// alignment A (an aligned gap start or the aligned top), and so is every
// gap's end (a placed offset). What the rule needs of a gap start x (the
// highest end below the gap) is its aligned value a = AlignUp(x) and
// whether x lies below a: a gap ending at a takes nothing, and TFLite's
// best fit, end-x, is end-a if x = a, else end-a plus less than A, which
// against the next gap's end-a (a multiple of A) compares as end-a+1. So
// for A >= 2 the loop may record each end x as tfliteCoarseEnd: a, or a+1
// when x = a. Ends then keep their order where it matters (a+1 above a
// for the same a, either below any larger a), a placed buffer whose offset
// is at most a merges into the same component, as the gaps between them
// take nothing, and the components left are far fewer: on idealloc's Y_1
// at A = 64, 313 spans a buffer on average against 1,974 over the
// unaligned ends. A gap that takes a buffer may look one byte shorter
// than its room (when x = a), hence the loop's slack of 1 (TFLite's rule
// leaves no such gap among buffers all live with the next one, the only
// case where the loop filters gaps by length, but it need not rely on
// that).

// tfliteCoarseEnd returns the coarse end of a buffer of the given size at
// off (a multiple of align >= 2).
func tfliteCoarseEnd(align int64) func(off, size int64) int64 {
	return func(off, size int64) int64 {
		x := off + size
		if x%align == 0 {
			return x + 1
		}
		return AlignUp(x, align)
	}
}

// tfliteArenaChooseCoarse is tfliteArenaChoose over coarse ends: the same
// gaps in the same order, each with its aligned start a, its end and
// TFLite's fit measure, so the same choice.
func tfliteArenaChooseCoarse(align int64) chooser { return tfliteArenaPick(align, true) }

// lcm returns the least common multiple of two positive numbers; ok is
// false when it is 2^62 or more.
func lcm(a, b int64) (int64, bool) {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	q := a / x
	if q >= (1<<62)/b {
		return 0, false
	}
	return q * b, true
}
