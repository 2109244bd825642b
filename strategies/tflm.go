package strategies

import (
	"context"
	"math"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name: "tflm-greedy", Runtime: "tflm", Kind: Offsets,
		Doc: "TFLite Micro GreedyMemoryPlanner: size desc (ties: later buffer first), " +
			"first gap among simultaneously live buffers, else on top",
		New: Simple(func() Strategy { return tflmGreedy{} }),
	})
	Register(Info{
		Name: "tflm-linear", Runtime: "tflm", Kind: Offsets,
		Doc: "TFLite Micro LinearMemoryPlanner: every buffer after the previous one, in problem order (no reuse)",
		New: Simple(func() Strategy { return tflmLinear{} }),
	})
}

// tflmGreedy is TensorFlow Lite Micro's GreedyMemoryPlanner
// (tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc) as in
// tensorflow/tflite-micro at commit
// 90b983c2b3f1480642e040bbd2ddb37b998f3424.
//
// The rules, in our words:
//   - Order: size descending. TFLite Micro fills its sort array from the
//     back (the last buffer first) and bubble-sorts it stably, so equal
//     sizes keep that reversed order: the later buffer goes first.
//   - The first buffer goes to offset 0. Each next one walks the placed
//     buffers that overlap it in time, by offset (ties: placement order),
//     keeping the highest end so far; it goes into the first gap, from that
//     end up to the next buffer's offset, that holds it, else above them
//     all. First fit, not best fit.
//   - Zero-size buffers land at offset 0 (the first gap always holds them)
//     and take no space.
//   - Alignment: TFLite Micro's allocator rounds sizes up before planning;
//     membench does the same with the problem's alignment, so a placed
//     buffer takes [offset, offset+size rounded up).
//
// Not modelled: offline-planned buffers (fixed offsets from model
// metadata) and the scratch-buffer limit on the buffer count.
type tflmGreedy struct{}

func (tflmGreedy) Name() string { return "tflm-greedy" }

func (tflmGreedy) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	align := max(p.Alignment, 1)
	offsets, fp, err := placeOneByOne(ctx, "tflm-greedy", p.Buffers, tflmGreedyOrder(p.Buffers), math.MaxInt64,
		tflmGreedyChoose(align),
		func(off, size int64) int64 { return AlignUp(off+size, align) })
	if err != nil {
		return nil, err
	}
	return &Plan{Offsets: offsets, Footprint: fp}, nil
}

// tflmGreedyChoose is TFLM's first fit.
func tflmGreedyChoose(align int64) chooser {
	return func(size int64, live []offsetComp) int64 { return firstFit(live, size, align) }
}

// tflmGreedyOrder is GreedyMemoryPlanner's placement order: size
// descending, ties by problem order descending.
func tflmGreedyOrder(bufs []workloads.Buffer) []int32 {
	return stableOrder(len(bufs), func(i int32) int64 { return -bufs[i].Size }, func(i int32) int64 { return -int64(i) })
}

// tflmLinear is TensorFlow Lite Micro's LinearMemoryPlanner
// (tensorflow/lite/micro/memory_planner/linear_memory_planner.cc) at the
// same commit: a bump allocator that puts every buffer right after the
// previous one in problem order and never reuses memory. membench rounds
// each offset up to the problem's alignment.
type tflmLinear struct{}

func (tflmLinear) Name() string { return "tflm-linear" }

func (tflmLinear) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	if err := recordError("tflm-linear", p.Buffers); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	align := max(p.Alignment, 1)
	offsets := make([]int64, len(p.Buffers))
	var next int64
	for i, b := range p.Buffers {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		offsets[i] = AlignUp(next, align)
		next = offsets[i] + b.Size
	}
	return &Plan{Offsets: offsets, Footprint: next}, nil
}
