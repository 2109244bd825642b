package strategies

import (
	"cmp"
	"context"
	"math"
	"slices"

	"membench/workloads"
)

// The gap finder the one-buffer-at-a-time offset planners share
// (xla-heap-*, tflite-arena, tflm-greedy, ort-mem-pattern). Each of them
// places a buffer among the already placed buffers that conflict with it
// in time; it gets those from an offsetTimeIndex (offset_greedy_by_size.go)
// as offsetPlaced spans, sorts them with sortPlaced (by offset, then
// placement order), and looks for a gap here. The planners differ only in
// what a span's end is (aligned or not) and in which gap they choose, so
// the walk lives here once and the choice stays in each planner's file,
// with firstFit and bestFit for the two common rules.

// gapWalk walks the free gaps left by spans sorted by offset (sortPlaced
// order), from address 0 upwards.
//
// A gap runs from the highest end seen so far (top) to the offset of the
// next span that starts at or above it; spans starting below top overlap
// what came before and open no gap. Gaps may be empty (a span starting
// exactly at top). After the last gap, top is the highest end over all
// spans (0 for none): where a buffer goes that no gap takes.
type gapWalk struct {
	spans []offsetPlaced
	i     int
	top   int64
}

// newGapWalk starts a walk over spans, which must be sorted by offset.
func newGapWalk(spans []offsetPlaced) gapWalk { return gapWalk{spans: spans} }

// next returns the next gap [start, end); ok is false when there is none
// left, and w.top is then final.
func (w *gapWalk) next() (start, end int64, ok bool) {
	for w.i < len(w.spans) {
		s := w.spans[w.i]
		w.i++
		start = w.top
		w.top = max(w.top, s.end)
		if s.off >= start {
			return start, s.off, true
		}
	}
	return 0, 0, false
}

// firstFit returns where a buffer of the given size goes under a
// first-fit rule: the aligned start of the lowest gap that holds it once
// its start is aligned up, else the aligned top of all spans.
func firstFit(spans []offsetPlaced, size, align int64) int64 {
	w := newGapWalk(spans)
	for {
		start, end, ok := w.next()
		if !ok {
			return AlignUp(w.top, align)
		}
		if a := AlignUp(start, align); end-a >= size {
			return a
		}
	}
}

// bestFit looks for the smallest gap (by its whole length end-start) that
// holds a buffer of the given size once the gap's start is aligned up;
// among equally long gaps the lowest wins. It returns that aligned start
// and the gap's length, or found == false when no gap holds the buffer;
// top is the highest end of all spans either way.
func bestFit(spans []offsetPlaced, size, align int64) (off, length int64, found bool, top int64) {
	length = math.MaxInt64
	w := newGapWalk(spans)
	for {
		start, end, ok := w.next()
		if !ok {
			return off, length, found, w.top
		}
		if a := AlignUp(start, align); end-a >= size && end-start < length {
			off, length, found = a, end-start, true
		}
	}
}

// placeOneByOne runs the loop those planners share. It places the buffers
// one at a time in the given order (indexes into bufs): a zero-size buffer
// goes to offset 0 and takes no space, as in every upstream; any other gets
// the offset choose returns, given the placed buffers that conflict with it
// in time sorted by offset (ties: placement order), and then takes
// [offset, end(offset, size)). It checks the records first and ctx every
// ctxCheckEvery buffers. It gives up, returning nil offsets and the
// footprint so far, as soon as the footprint reaches limit: a caller
// keeping the smaller of two plans need not finish one that cannot win
// (math.MaxInt64: never).
func placeOneByOne(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose func(i int32, live []offsetPlaced) int64, end func(off, size int64) int64) ([]int64, int64, error) {
	if err := recordError(name, bufs); err != nil {
		return nil, 0, err
	}
	offsets := make([]int64, len(bufs))
	if len(bufs) == 0 {
		return offsets, 0, nil
	}
	// The order's sort and the index each take tens of milliseconds at
	// 10^5 buffers: check between them.
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	ix := newOffsetTimeIndex(newTaskSpans(bufs, false))
	var live []offsetPlaced
	var fp int64
	for k, i := range order {
		if k%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		size := bufs[i].Size
		if size == 0 {
			continue
		}
		id := ix.id[i]
		live = ix.overlapping(live[:0], id)
		sortPlaced(live)
		off := choose(i, live)
		ix.place(id, offsetPlaced{off, end(off, size), int32(k + 1)})
		offsets[i] = off
		if fp = max(fp, off+size); fp >= limit {
			return nil, fp, nil
		}
	}
	return offsets, fp, nil
}

// inOrder returns 0..n-1: problem order.
func inOrder(n int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	return order
}

// orderKey is a buffer's place in a planner's order: ascending by a, then
// b, then c, then idx (its index in the problem).
type orderKey struct {
	a, b, c int64
	idx     int32
}

// orderBy sorts the keys and returns the indexes in that order. Sorting
// the keys themselves, not indexes into the buffers, keeps the sort
// sequential in memory.
func orderBy(keys []orderKey) []int32 {
	// Not cmp.Or: it would compare every field every time.
	slices.SortFunc(keys, func(x, y orderKey) int {
		switch {
		case x.a != y.a:
			return cmp.Compare(x.a, y.a)
		case x.b != y.b:
			return cmp.Compare(x.b, y.b)
		case x.c != y.c:
			return cmp.Compare(x.c, y.c)
		}
		return cmp.Compare(x.idx, y.idx)
	})
	order := make([]int32, len(keys))
	for k, key := range keys {
		order[k] = key.idx
	}
	return order
}
