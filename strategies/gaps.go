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
//
// When a buffer conflicts with every placed one (dense inputs), gathering
// and sorting them all for each buffer would cost O(n^2 log n): a denseSet
// keeps their address ranges merged into components instead, in blocks
// that know their longest gap, and hands the rule only the blocks that
// may hold a gap as long as the buffer (compSet.gapSpans). That leaves
// the choice unchanged because every rule places a buffer of positive
// size only in a gap at least as long as the buffer: the empty gaps that
// merging touching ranges hides, and the short ones in skipped blocks,
// can take nothing. (Zero-size buffers never reach a rule: placeOneByOne
// puts them at 0.)

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

// chooser returns the offset of buffer i given the spans of the placed
// buffers beside it, sorted by offset.
type chooser func(i int32, live []offsetPlaced) int64

// placeOneByOne runs the loop those planners share. It places the buffers
// one at a time in the given order (indexes into bufs): a zero-size buffer
// goes to offset 0 and takes no space, as in every upstream; any other gets
// the offset choose returns, given the placed buffers that conflict with
// it in time sorted by offset (ties: placement order), or, when it
// conflicts with them all, spans that leave the same gaps as long as the
// buffer (a denseSet's), and then takes [offset, end(offset, size)). It
// checks the records first and ctx every ctxCheckEvery buffers. It gives
// up, returning nil offsets and the footprint so far, as soon as the
// footprint reaches limit: a caller keeping the smaller of two plans need
// not finish one that cannot win (math.MaxInt64: never).
func placeOneByOne(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose chooser, end func(off, size int64) int64) ([]int64, int64, error) {
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
	all := newDenseSet(len(bufs))
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
		sp := ix.span[id]
		if all.covers(sp[0], sp[1]) {
			live = all.set.gapSpans(live[:0], size)
		} else {
			live = ix.overlapping(live[:0], id)
			sortPlaced(live)
		}
		off := choose(i, live)
		e := end(off, size)
		ix.place(id, offsetPlaced{off, e, int32(k + 1)})
		all.place(sp[0], sp[1], offsetComp{off, e})
		offsets[i] = off
		if fp = max(fp, off+size); fp >= limit {
			return nil, fp, nil
		}
	}
	return offsets, fp, nil
}

// denseSet keeps the address ranges of every placed buffer for the
// buffers that conflict with them all: those whose span (in taskSpans
// numbers) no placed span ends before (minEnd) nor starts after
// (maxStart). Placed ranges wait in pending until such a buffer comes.
type denseSet struct {
	set              compSet
	pending          []offsetComp
	minEnd, maxStart int32
}

// newDenseSet returns an empty denseSet with room for n pending ranges.
func newDenseSet(n int) denseSet {
	return denseSet{pending: make([]offsetComp, 0, n), minEnd: math.MaxInt32, maxStart: -1}
}

// place records a buffer of span [a, b] placed at the closed range c.
func (d *denseSet) place(a, b int32, c offsetComp) {
	d.pending = append(d.pending, c)
	d.minEnd, d.maxStart = min(d.minEnd, b), max(d.maxStart, a)
}

// covers reports whether a buffer of span [a, b] conflicts with every
// placed one; d.set then holds their ranges.
func (d *denseSet) covers(a, b int32) bool {
	if d.minEnd < a || d.maxStart > b {
		return false
	}
	for _, c := range d.pending {
		d.set.add(c)
	}
	d.pending = d.pending[:0]
	return true
}

// compSet is a set of disjoint closed address ranges, sorted, kept in
// blocks of up to 2*compBlockSize, each with the longest gap inside it, so
// that a walk wanting only gaps of some least length skips whole blocks.
// Adding a range merges it with those it touches, as mergeComp does.
type compSet struct{ blocks []compBlock }

type compBlock struct {
	c      []offsetComp // never empty
	maxGap int64        // the longest c[j].lo - c[j-1].hi (0 for one range)
}

// compBlockSize bounds the work of an add (a block's length) against that
// of a walk (the number of blocks).
const compBlockSize = 64

func (b *compBlock) setMaxGap() {
	b.maxGap = 0
	for j := 1; j < len(b.c); j++ {
		b.maxGap = max(b.maxGap, b.c[j].lo-b.c[j-1].hi)
	}
}

// add merges the closed range c into the set.
func (s *compSet) add(c offsetComp) {
	// The first block with a range ending at or after c.lo: c may touch
	// it, and touches nothing before it.
	bi, _ := slices.BinarySearchFunc(s.blocks, c.lo, func(b compBlock, lo int64) int {
		return cmp.Compare(b.c[len(b.c)-1].hi, lo)
	})
	if bi == len(s.blocks) {
		// Above every range: the usual case, as most buffers go on top.
		if bi == 0 || len(s.blocks[bi-1].c) >= 2*compBlockSize {
			s.blocks = append(s.blocks, compBlock{c: append(make([]offsetComp, 0, 2*compBlockSize), c)})
			return
		}
		b := &s.blocks[bi-1]
		b.maxGap = max(b.maxGap, c.lo-b.c[len(b.c)-1].hi)
		b.c = append(b.c, c)
		return
	}
	b := &s.blocks[bi]
	b.c = mergeComp(b.c, c)
	// Only the block's last range can reach the next blocks.
	for last := &b.c[len(b.c)-1]; bi+1 < len(s.blocks) && s.blocks[bi+1].c[0].lo <= last.hi; {
		next := &s.blocks[bi+1]
		j := 0
		for ; j < len(next.c) && next.c[j].lo <= last.hi; j++ {
			last.hi = max(last.hi, next.c[j].hi)
		}
		if j == len(next.c) {
			s.blocks = slices.Delete(s.blocks, bi+1, bi+2)
			b = &s.blocks[bi]
			last = &b.c[len(b.c)-1]
			continue
		}
		next.c = slices.Delete(next.c, 0, j)
		next.setMaxGap()
	}
	if len(b.c) > 2*compBlockSize {
		half := append(make([]offsetComp, 0, 2*compBlockSize), b.c[compBlockSize:]...)
		b.c = b.c[:compBlockSize]
		b.setMaxGap()
		nb := compBlock{c: half}
		nb.setMaxGap()
		s.blocks = slices.Insert(s.blocks, bi+1, nb)
		return
	}
	b.setMaxGap()
}

// gapSpans appends to spans, sorted by offset, spans that leave the same
// gaps at least min long as the set's ranges (min > 0), and the same top:
// the ranges of each block that may hold such a gap, and one span over
// each run of blocks that hold none (the gaps it hides are all shorter,
// and so is the one below it). Each span's seq is 0.
func (s *compSet) gapSpans(spans []offsetPlaced, min int64) []offsetPlaced {
	top := int64(0)
	skip := -1 // the first block of the run being skipped
	for b := range s.blocks {
		bl := &s.blocks[b]
		if max(bl.maxGap, bl.c[0].lo-top) < min {
			if skip < 0 {
				skip = b
			}
			top = bl.c[len(bl.c)-1].hi
			continue
		}
		if skip >= 0 {
			spans = append(spans, offsetPlaced{off: s.blocks[skip].c[0].lo, end: top})
			skip = -1
		}
		for _, c := range bl.c {
			spans = append(spans, offsetPlaced{off: c.lo, end: c.hi})
		}
		top = bl.c[len(bl.c)-1].hi
	}
	if skip >= 0 {
		spans = append(spans, offsetPlaced{off: s.blocks[skip].c[0].lo, end: top})
	}
	return spans
}

// appendTo appends the set's ranges to comps, in order.
func (s *compSet) appendTo(comps []offsetComp) []offsetComp {
	for _, b := range s.blocks {
		comps = append(comps, b.c...)
	}
	return comps
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
