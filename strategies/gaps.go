package strategies

import (
	"context"
	"math"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// The loop the one-buffer-at-a-time offset planners share (xla-heap-*,
// tflite-arena, tflm-greedy, ort-mem-pattern). Each of them places a
// buffer among the already placed buffers that conflict with it in time.
// A buffer of positive size can only take a gap of positive length, and
// those are the gaps between the connected components of the placed
// buffers' closed address ranges [offset, end]; so they get the
// components from kernel.CompIndex, sorted by start, and walk the gaps
// with kernel.GapWalk. The planners differ only in what a span's end is
// (aligned or not) and in which gap they choose, so the loop lives here
// once and the choice stays in each planner's file, with kernel.FirstFit
// and kernel.BestFit for the two common rules.
//
// When a buffer conflicts with every placed one (dense inputs), the
// index hands the rule only the spans around gaps at least as long as
// the buffer (kernel.CompIndex.AllGapSpans). That leaves the choice
// unchanged because every rule places a buffer of positive size only in a
// gap at least as long as the buffer: the empty gaps that merging touching
// ranges hides, and the short ones skipped, can take nothing. (Zero-size
// buffers never reach a rule: placeOneByOne puts them at 0.)

// chooser returns the offset of a buffer of the given size (positive)
// given the spans of the placed buffers beside it, sorted by offset.
type chooser func(size int64, live []kernel.Comp) int64

// placeOneByOne runs the loop those planners share. It places the buffers
// one at a time in the given order (indexes into bufs): a zero-size buffer
// goes to offset 0 and takes no space, as in every upstream; any other gets
// the offset choose returns, given spans that leave the same gaps of
// positive length as the placed buffers that conflict with it in time
// (oneByOne), and then takes [offset, end(offset, size)). It checks the
// records first and ctx every kernel.CtxCheckEvery buffers. It gives up,
// returning nil offsets and the footprint so far, as soon as the footprint
// reaches limit: a caller keeping the smaller of two plans need not finish
// one that cannot win (math.MaxInt64: never, even for a footprint of
// math.MaxInt64).
func placeOneByOne(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose chooser, end func(off, size int64) int64) ([]int64, int64, error) {
	return placeOneByOneOn(ctx, name, bufs, order, limit, choose, end, loopOptions{})
}

// placer is placeOneByOne's signature: tflm-greedy takes the loop as an
// argument, and tflite-arena's rule as written runs on one
// (tfliteArenaAllocateOn), so that their tests can run them on
// placeOneByOne too (the loop they used before) and compare.
type placer func(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose chooser, end func(off, size int64) int64) ([]int64, int64, error)

// placeOneByOneByID is placeOneByOne with an index that gathers the placed
// buffers starting inside a lifetime as merged components of id ranges
// (kernel.CompIndex.GatherByID) instead of one by one and sorted: the same
// gaps of positive length, so the same offsets, but where lifetimes are
// long that part of a lifetime holds thousands of buffers, and sorting
// them for every buffer made the loop quadratic (idealloc's Y_1, 62,185
// buffers). tflite-arena and tflm-greedy use it. Where lifetimes hold few
// starts (random DAGs) gathering by id ranges costs more than it saves, so
// it is switched on only where kernel.TaskSpans.GatherByIDPays says so, as
// for xla-heap.
func placeOneByOneByID(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose chooser, end func(off, size int64) int64) ([]int64, int64, error) {
	return placeOneByOneOn(ctx, name, bufs, order, limit, choose, end, loopOptions{byID: true})
}

// loopOptions are how placeOneByOneOn runs beside the rule.
type loopOptions struct {
	// byID makes the index gather by id ranges (placeOneByOneByID) where
	// that pays; always, for tests, also where it does not.
	byID, always bool
	// slack is how much shorter than the buffer the rule's spans may make
	// a gap that takes it (tflite-arena's coarse ends): the dense path
	// then keeps the gaps at least size-slack long, and at least 1.
	slack int64
}

// placeOneByOneOn is placeOneByOne run with the given options.
func placeOneByOneOn(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose chooser, end func(off, size int64) int64, opt loopOptions) ([]int64, int64, error) {
	if err := kernel.RecordError(name, bufs); err != nil {
		return nil, 0, err
	}
	if len(bufs) == 0 {
		return []int64{}, 0, nil
	}
	// The order's sort and the index each take milliseconds at 10^5
	// buffers: check between them.
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	spans := kernel.NewTaskSpans(bufs, false)
	ix := kernel.NewCompIndex(spans)
	if opt.byID && (opt.always || spans.GatherByIDPays()) {
		ix.GatherByID()
	}
	r := newOneByOne(ix, bufs, order, choose, end)
	r.slack = opt.slack
	done, err := r.run(ctx, limit)
	if err != nil || !done {
		return nil, r.fp, err
	}
	return r.offsets, r.fp, nil
}

// oneByOne is one run of placeOneByOne's loop, which can stop once its
// footprint reaches a limit and go on later under another.
//
// Its index (kernel.CompIndex, shared with offset-greedy-by-size) gives the
// connected components of the placed buffers' closed address ranges
// [offset, end] among those that conflict with a buffer in time: they
// leave the same gaps of positive length as the buffers one by one, and
// only those can take a buffer of positive size. When the buffer conflicts
// with every placed one (dense inputs), the index's denseSet gives only
// the spans around gaps at least as long as the buffer.
type oneByOne struct {
	ix *kernel.CompIndex
	// What the loop needs of each buffer of positive size, gathered in
	// its order (the loads are independent there, and the loop then reads
	// in sequence), and the buffer's index.
	tasks []kernel.Task
	which []int32
	// at[k] is where tasks[k] went; offsets, by buffer, once all are.
	at      []int64
	offsets []int64
	live    []kernel.Comp
	next    int   // tasks[next] is the next buffer to place
	fp      int64 // the footprint so far
	choose  chooser
	end     func(off, size int64) int64
	slack   int64 // loopOptions.slack
}

// newOneByOne starts a run over bufs in the given order on ix, which must
// be empty and over bufs' spans.
func newOneByOne(ix *kernel.CompIndex, bufs []workloads.Buffer, order []int32, choose chooser, end func(off, size int64) int64) *oneByOne {
	r := &oneByOne{ix: ix, tasks: make([]kernel.Task, 0, len(order)), which: make([]int32, 0, len(order)),
		choose: choose, end: end}
	for _, i := range order {
		if size := bufs[i].Size; size > 0 {
			id := ix.ID[i]
			sp := ix.Span[id]
			r.tasks = append(r.tasks, kernel.Task{Size: size, ID: id, A: sp[0], B: sp[1], RLo: ix.StartPtr[sp[0]+1], RHi: ix.StartPtr[sp[1]+1]})
			r.which = append(r.which, i)
		}
	}
	r.at = make([]int64, len(r.tasks))
	r.offsets = make([]int64, len(bufs))
	return r
}

// run places the buffers left, in order, until all are placed (true) or
// the footprint reaches limit (false; the buffer that reached it is
// placed). A limit of math.MaxInt64 is never reached, so that a buffer of
// that size still gets its offset.
func (r *oneByOne) run(ctx context.Context, limit int64) (bool, error) {
	ix := r.ix
	never := limit == math.MaxInt64
	for ; r.next < len(r.tasks); r.next++ {
		if !never && r.fp >= limit {
			return false, nil
		}
		if r.next%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		t := &r.tasks[r.next]
		if ix.CoversAll(t.A, t.B) {
			r.live = ix.AllGapSpans(r.live[:0], max(1, t.Size-r.slack))
		} else {
			r.live = ix.Overlapping(r.live[:0], t)
		}
		off := r.choose(t.Size, r.live)
		ix.Place(t, kernel.Comp{Lo: off, Hi: r.end(off, t.Size)})
		r.at[r.next] = off
		r.fp = max(r.fp, off+t.Size)
	}
	if !never && r.fp >= limit {
		return false, nil
	}
	// Scattered once all are placed: the loop then writes in sequence.
	for k, i := range r.which {
		r.offsets[i] = r.at[k]
	}
	return true, nil
}
