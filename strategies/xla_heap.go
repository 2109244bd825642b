package strategies

import (
	"context"
	"math"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

func init() {
	Register(Info{
		Name: "xla-heap-spatial", Runtime: "xla", Kind: Offsets,
		Doc: "XLA GlobalDecreasingSizeBestFitHeap, spatial order: size desc, duration (in heap calls) desc; " +
			"best-fit free chunk (ties: lowest offset); honours the problem's alignment",
		New: Simple(func() Strategy { return xlaHeap{"xla-heap-spatial", []bool{false}} }),
	})
	Register(Info{
		Name: "xla-heap-temporal", Runtime: "xla", Kind: Offsets,
		Doc: "XLA GlobalDecreasingSizeBestFitHeap, temporal order: duration (in heap calls) desc, size desc; " +
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
// ChooseBestHeapAlgorithm, as xla/service/buffer_assignment.cc drives it:
// openxla/xla at commit 0e06ac8223feb02e71adc5643a8d2d79b72673af, files
// xla/service/buffer_assignment.cc (AssignBuffersWithSequentialOrdering)
// and xla/service/heap_simulator/heap_simulator.cc (RunComputation, the
// heap, ChooseBestHeapAlgorithm); the expected values of
// heap_simulator_test.cc at c28c7a8d403e32502c3bb7bf4b0ed674d05cee06 are
// in testdata/upstream.
//
// The rules, in our words:
//   - The caller: with the default options (no custom order, no page size,
//     no packing search, the DEFAULT algorithm, no per-heap size limit) the
//     buffer assigner hands HeapSimulator a ChooseBestHeapAlgorithm over
//     two heaps, spatial then temporal, with the buffers' alignment. The
//     simulator walks the schedule: it sorts the values by (first task,
//     last task, buffer); at each task it calls Alloc for the values
//     defined there, then Free for the values whose last use it is, each
//     group in that order. The buffer is the HloValue id: problem order.
//     The alignment is the backend's for the buffers' colour (set by each
//     compiler, not by the heap); here it is the problem's.
//   - The heap numbers those calls: an Alloc or Free of a sized buffer
//     takes the next tick, and a buffer's [start, end] are its two ticks
//     (xlaHeapTicks). Two buffers conflict when their tick intervals
//     meet, which is DESIGN §1's rule on tasks ([First, Last] inclusive).
//     But "duration", end - start, counts calls, not tasks: a buffer
//     freed at a busy task lives longer than one freed at a quiet one.
//   - Zero-size buffers get offset 0 and no tick, and take no space.
//   - The others are placed one at a time in a fixed order. Spatial: size
//     descending, then duration descending, then buffer ascending.
//     Temporal: duration descending, then size descending, then buffer
//     ascending. The keys are unique, so the sort is total.
//   - Each buffer goes into the smallest free chunk among those left by the
//     placed buffers that conflict with it in time, where a placed buffer
//     takes [offset, offset+size rounded up to the alignment) and the chunk
//     above all of them counts as endless; a chunk qualifies when the buffer
//     fits at its start rounded up to the alignment, which is where the
//     buffer goes. Among equally small chunks the lowest offset wins.
//   - The heap size, which the assigner makes the size of the temp
//     allocation (the arena as XLA reports it), is the highest
//     offset+size: the plan's footprint.
//   - xla-heap runs spatial, then temporal, and keeps the one with the
//     strictly smaller heap (ties: spatial), as ChooseBestHeapAlgorithm does.
//   - Memory spaces are XLA's colours: AssignBuffersWithSequentialOrdering
//     splits the buffers by colour (SplitBuffersByColor) and runs one
//     HeapSimulator, with a fresh ChooseBestHeapAlgorithm, per colour over
//     that colour's buffers only, each its own allocation whose size is
//     that heap's. So each space is planned apart, its ticks counting its
//     own calls, and xla-heap picks spatial or temporal per space: the
//     registry's per-space planning (Info.Forms leaves out FormMemories)
//     is that rule. A space's capacity is no input to the heap (XLA has no
//     size limit per colour here): the heap is what it is, and a plan over
//     a capacity fails validation.
//
// Not modelled: colocations (buffers XLA forces to share an offset, and
// the simulator's sharing of an operand's buffer with its user, which
// needs the HLO op), preferred offsets, sliced allocations, the per-colour
// alignment (color_alignment_; here every space takes the problem's
// alignment, and per-buffer alignments are refused), and the per-heap
// size limit of ConstrainedGlobalDecreasingSizeBestFitHeap (its default,
// no limit, is one heap). Gaps and fixed offsets have no XLA counterpart
// and are refused.
//
// xla-heap makes that choice without running a losing run to its end,
// as heaps only grow: the spatial run goes until its heap passes LB_load;
// if it never does, it reached LB_load, which no plan beats, and wins.
// Else the temporal run goes in full, and then the rest of the spatial
// run, which gives up as soon as its heap passes the temporal one (often
// soon: the largest buffers come first). Both runs share the spans and
// the index's layout.
//
// The index (kernel.CompIndex) gathers the placed buffers that start
// inside a buffer's lifetime by id ranges (GatherByID), kept merged, where
// lifetimes hold many starts (kernel.TaskSpans.GatherByIDPays): gathered
// one by one and sorted, as the other one-by-one planners do, they took
// most of a spatial run there (idealloc's Y_1: three quarters of its time
// in sorting them). The components, so the gaps of positive length and
// the choices, are the same either way.
type xlaHeap struct {
	name string
	// The order of each run (true: temporal): one run, or two of which
	// the first wins ties.
	temporal []bool
}

func (s xlaHeap) Name() string { return s.name }

func (s xlaHeap) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	return s.run(ctx, p, gatherAuto)
}

// gathering is how the index gathers the placed buffers starting inside a
// lifetime: by id ranges, one by one, or by id where that pays
// (kernel.TaskSpans.GatherByIDPays). The gaps, so the plans, are the same
// either way; the tests force each way to compare them.
type gathering int8

const (
	gatherAuto gathering = iota
	gatherOneByOne
	gatherByID
)

// run is Plan, gathering as g says.
func (s xlaHeap) run(ctx context.Context, p *workloads.Problem, g gathering) (*Plan, error) {
	bufs := p.Buffers
	if err := kernel.RecordError(s.name, bufs); err != nil {
		return nil, err
	}
	if len(bufs) == 0 {
		return &Plan{Offsets: []int64{}}, nil
	}
	align := max(p.Alignment, 1)
	spans := kernel.NewTaskSpans(bufs, false)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ix := kernel.NewCompIndex(spans)
	if g == gatherByID || g == gatherAuto && spans.GatherByIDPays() {
		ix.GatherByID()
	}
	choose := xlaHeapChoose(align)
	end := func(off, size int64) int64 { return AlignUp(off+size, align) }
	ticks := xlaHeapTicks(bufs)
	first := newOneByOne(ix, bufs, xlaHeapOrderTicks(bufs, ticks, s.temporal[0]), choose, end)
	if len(s.temporal) == 1 {
		if _, err := first.run(ctx, math.MaxInt64); err != nil {
			return nil, err
		}
		return &Plan{Offsets: first.offsets, Footprint: first.fp}, nil
	}
	// The first run wins if its heap is no larger than the second's. It
	// goes until its heap passes LB_load: if it never does, it reached
	// LB_load, which no plan beats.
	done, err := first.run(ctx, above(workloads.LoadBound(bufs)))
	if err != nil {
		return nil, err
	}
	if done {
		return &Plan{Offsets: first.offsets, Footprint: first.fp}, nil
	}
	// Else the second run, in full, and the rest of the first, which gives
	// up once its heap passes the second's.
	second := newOneByOne(ix.EmptyCopy(), bufs, xlaHeapOrderTicks(bufs, ticks, s.temporal[1]), choose, end)
	if _, err := second.run(ctx, math.MaxInt64); err != nil {
		return nil, err
	}
	if done, err = first.run(ctx, above(second.fp)); err != nil {
		return nil, err
	}
	if done {
		return &Plan{Offsets: first.offsets, Footprint: first.fp}, nil
	}
	return &Plan{Offsets: second.offsets, Footprint: second.fp}, nil
}

// above returns the limit under which a run gives up once its footprint
// passes x.
func above(x int64) int64 {
	if x == math.MaxInt64 {
		return x
	}
	return x + 1
}

// xlaHeapOrder is GlobalDecreasingSizeBestFitHeap's order: XLA's keys
// (-size, start-end, buffer) spatial, (start-end, -size, buffer) temporal,
// ascending, where start and end are the heap's call ticks
// (xlaHeapTicks), not tasks. Stable radix sorts, the least significant
// key first, give it without comparisons.
func xlaHeapOrder(bufs []workloads.Buffer, temporal bool) []int32 {
	return xlaHeapOrderTicks(bufs, xlaHeapTicks(bufs), temporal)
}

// xlaHeapOrderTicks is xlaHeapOrder with the ticks already numbered.
func xlaHeapOrderTicks(bufs []workloads.Buffer, ticks [][2]int64, temporal bool) []int32 {
	size := func(i int32) int64 { return -bufs[i].Size }
	dur := func(i int32) int64 { return ticks[i][0] - ticks[i][1] }
	if temporal {
		return kernel.StableOrder(len(bufs), dur, size)
	}
	return kernel.StableOrder(len(bufs), size, dur)
}

// xlaHeapTicks numbers each buffer's Alloc and Free call as
// HeapSimulator::RunComputation makes them: the values sorted by (first,
// last, buffer); at each task, first an Alloc for every value defined
// there, then a Free for every value whose last use it is, each group in
// that sorted order; the heap counts one tick per call, except for
// zero-size buffers, which it places at 0 without a tick (they get
// [0, 0]). ticks[i] is buffer i's [alloc tick, free tick].
func xlaHeapTicks(bufs []workloads.Buffer) [][2]int64 {
	ticks := make([][2]int64, len(bufs))
	// Events 2k and 2k+1 are the Alloc and the Free of the k-th buffer
	// with a size.
	var ev []int32
	for i, b := range bufs {
		if b.Size != 0 {
			ev = append(ev, int32(i))
		}
	}
	m := 2 * len(ev)
	buf := func(e int32) workloads.Buffer { return bufs[ev[e/2]] }
	// Sort keys, most significant first: the task of the call; Allocs
	// before Frees; then the sorted value order, (first, last, buffer),
	// of which an Alloc's task is its first and a Free's its last, so the
	// other one decides; the buffer is the stable sort's initial order
	// (events by buffer).
	task := func(e int32) int64 {
		if e%2 == 0 {
			return int64(buf(e).First)
		}
		return int64(buf(e).Last)
	}
	other := func(e int32) int64 {
		if e%2 == 0 {
			return int64(buf(e).Last)
		}
		return int64(buf(e).First)
	}
	kind := func(e int32) int64 { return int64(e % 2) }
	for tick, e := range kernel.StableOrder(m, task, kind, other) {
		ticks[ev[e/2]][e%2] = int64(tick)
	}
	return ticks
}

// xlaHeapChoose is XLA's best fit: the smallest free chunk that holds the
// buffer (ties: the lowest), else the endless chunk above them all.
func xlaHeapChoose(align int64) chooser {
	// The endless chunk above every placed buffer starts at an aligned
	// end already: BestGap's top.
	return func(size int64, live []kernel.Comp) int64 { return kernel.BestGap(live, size, align) }
}
