package strategies

import (
	"context"
	"math"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name: "xla-heap-spatial", Runtime: "xla", Kind: Offsets,
		Doc: "XLA GlobalDecreasingSizeBestFitHeap, spatial order: size desc, duration desc; " +
			"best-fit free chunk (ties: lowest offset); honours the problem's alignment",
		New: Simple(func() Strategy { return xlaHeap{"xla-heap-spatial", []bool{false}} }),
	})
	Register(Info{
		Name: "xla-heap-temporal", Runtime: "xla", Kind: Offsets,
		Doc: "XLA GlobalDecreasingSizeBestFitHeap, temporal order: duration desc, size desc; " +
			"best-fit free chunk (ties: lowest offset); honours the problem's alignment",
		New: Simple(func() Strategy { return xlaHeap{"xla-heap-temporal", []bool{true}} }),
	})
	Register(Info{
		Name: "xla-heap", Runtime: "xla", Kind: Offsets,
		Doc: "XLA ChooseBestHeapAlgorithm: xla-heap-spatial and xla-heap-temporal, keeps the smaller heap (ties: spatial)",
		New: Simple(func() Strategy { return xlaHeap{"xla-heap", []bool{false, true}} }),
	})
}

// xlaHeap is XLA's heap simulator, GlobalDecreasingSizeBestFitHeap and
// ChooseBestHeapAlgorithm, as in openxla/xla
// xla/service/heap_simulator/heap_simulator.cc at commit
// d492e8388d46b82c5bfe6d8c3187abbb86f369b2 (tests:
// heap_simulator_test.cc at c28c7a8d403e32502c3bb7bf4b0ed674d05cee06), and
// the spatial-then-temporal pair that xla/service/buffer_assignment.cc
// hands ChooseBestHeapAlgorithm.
//
// The rules, in our words:
//   - A buffer's interval is [First, Last], inclusive: XLA numbers alloc and
//     free events and two buffers conflict when their [start, end] meet,
//     which is DESIGN §1's rule.
//   - Zero-size buffers go to offset 0 and take no space.
//   - The others are placed one at a time in a fixed order. Spatial: size
//     descending, then duration (Last-First) descending, then buffer
//     (problem order) ascending. Temporal: duration descending, then size
//     descending, then buffer ascending. The keys are unique, so the sort is
//     total.
//   - Each buffer goes into the smallest free chunk among those left by the
//     placed buffers that conflict with it in time, where a placed buffer
//     takes [offset, offset+size rounded up to the alignment) and the chunk
//     above all of them counts as endless; a chunk qualifies when the buffer
//     fits at its start rounded up to the alignment, which is where the
//     buffer goes. Among equally small chunks the lowest offset wins.
//   - The heap size is the highest offset+size.
//   - xla-heap runs spatial, then temporal, and keeps the one with the
//     strictly smaller heap (ties: spatial), as ChooseBestHeapAlgorithm does.
//
// Not modelled: colocations (buffers XLA forces to share an offset),
// preferred offsets, sliced allocations, several memory spaces and the
// per-heap size limit of ConstrainedGlobalDecreasingSizeBestFitHeap (its
// default, no limit, is one heap). membench plans the single-arena case.
//
// It runs one GlobalDecreasingSizeBestFitHeap per entry of temporal and
// keeps the first smallest. A later run stops as soon as its heap reaches
// the best so far, since it can then no longer win (heaps only grow), and
// is skipped when the best so far equals LB_load, which no plan beats: the
// same choice, without running a losing run to its end.
type xlaHeap struct {
	name     string
	temporal []bool
}

func (s xlaHeap) Name() string { return s.name }

func (s xlaHeap) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	var best *Plan
	limit := int64(math.MaxInt64)
	for k, t := range s.temporal {
		offsets, fp, err := xlaHeapOffsets(ctx, s.name, p.Buffers, p.Alignment, t, limit)
		if err != nil {
			return nil, err
		}
		if fp < limit {
			best, limit = &Plan{Offsets: offsets, Footprint: fp}, fp
		}
		// No plan beats LB_load: a run that reaches it wins outright.
		if k+1 < len(s.temporal) && limit <= p.LoadBound() {
			break
		}
	}
	return best, nil
}

// xlaHeapOffsets is one GlobalDecreasingSizeBestFitHeap run, given up
// (nil offsets) once its heap reaches limit.
func xlaHeapOffsets(ctx context.Context, name string, bufs []workloads.Buffer, align int64, temporal bool, limit int64) ([]int64, int64, error) {
	align = max(align, 1)
	// XLA's keys: (-size, start-end, buffer) spatial, (start-end, -size,
	// buffer) temporal, ascending.
	keys := make([]orderKey, len(bufs))
	for i, b := range bufs {
		dur := int64(b.First) - int64(b.Last)
		keys[i] = orderKey{-b.Size, dur, 0, int32(i)}
		if temporal {
			keys[i] = orderKey{dur, -b.Size, 0, int32(i)}
		}
	}
	order := orderBy(keys)
	return placeOneByOne(ctx, name, bufs, order, limit, xlaHeapChoose(bufs, align),
		func(off, size int64) int64 { return AlignUp(off+size, align) })
}

// xlaHeapChoose is XLA's best fit: the smallest free chunk that holds the
// buffer (ties: the lowest), else the endless chunk above them all.
func xlaHeapChoose(bufs []workloads.Buffer, align int64) chooser {
	return func(i int32, live []offsetPlaced) int64 {
		off, _, found, top := bestFit(live, bufs[i].Size, align)
		if !found {
			// The endless chunk above every placed buffer starts at an
			// aligned end already.
			return top
		}
		return off
	}
}
