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
// in time. A buffer of positive size can only take a gap of positive
// length, and those are the gaps between the connected components of the
// placed buffers' closed address ranges [offset, end]; so they get the
// components from offset-greedy-by-size's offsetCompIndex
// (offset_greedy_by_size.go), sorted by start, and look for a gap here.
// The planners differ only in what a span's end is (aligned or not) and in
// which gap they choose, so the walk lives here once and the choice stays
// in each planner's file, with firstFit and bestFit for the two common
// rules.
//
// When a buffer conflicts with every placed one (dense inputs), walking
// all their components for each buffer would cost O(n^2): a denseSet keeps
// them in blocks that know their longest gap instead, and hands the rule
// only the blocks that may hold a gap as long as the buffer
// (compSet.gapSpans). That leaves the choice unchanged because every rule
// places a buffer of positive size only in a gap at least as long as the
// buffer: the empty gaps that merging touching ranges hides, and the short
// ones in skipped blocks, can take nothing. (Zero-size buffers never reach
// a rule: placeOneByOne puts them at 0.)

// gapWalk walks the free gaps left by spans sorted by offset, from
// address 0 upwards.
//
// A gap runs from the highest end seen so far (top) to the offset of the
// next span that starts at or above it; spans starting below top overlap
// what came before and open no gap. Gaps may be empty (a span starting
// exactly at top). After the last gap, top is the highest end over all
// spans (0 for none): where a buffer goes that no gap takes.
type gapWalk struct {
	spans []offsetComp
	i     int
	top   int64
}

// newGapWalk starts a walk over spans, which must be sorted by offset.
func newGapWalk(spans []offsetComp) gapWalk { return gapWalk{spans: spans} }

// next returns the next gap [start, end); ok is false when there is none
// left, and w.top is then final.
func (w *gapWalk) next() (start, end int64, ok bool) {
	for w.i < len(w.spans) {
		s := w.spans[w.i]
		w.i++
		start = w.top
		w.top = max(w.top, s.hi)
		if s.lo >= start {
			return start, s.lo, true
		}
	}
	return 0, 0, false
}

// firstFit returns where a buffer of the given size goes under a
// first-fit rule: the aligned start of the lowest gap that holds it once
// its start is aligned up, else the aligned top of all spans.
func firstFit(spans []offsetComp, size, align int64) int64 {
	w := newGapWalk(spans)
	for {
		start, end, ok := w.next()
		if !ok {
			return AlignUp(w.top, align)
		}
		// The gap's whole length first: aligning costs a division.
		if end-start >= size {
			if a := AlignUp(start, align); end-a >= size {
				return a
			}
		}
	}
}

// bestFit looks for the smallest gap (by its whole length end-start) that
// holds a buffer of the given size once the gap's start is aligned up;
// among equally long gaps the lowest wins. It returns that aligned start
// and the gap's length, or found == false when no gap holds the buffer;
// top is the highest end of all spans either way.
func bestFit(spans []offsetComp, size, align int64) (off, length int64, found bool, top int64) {
	length = math.MaxInt64
	w := newGapWalk(spans)
	for {
		start, end, ok := w.next()
		if !ok {
			return off, length, found, w.top
		}
		if l := end - start; l >= size && l < length {
			if a := AlignUp(start, align); end-a >= size {
				off, length, found = a, l, true
			}
		}
	}
}

// chooser returns the offset of a buffer of the given size (positive)
// given the spans of the placed buffers beside it, sorted by offset.
type chooser func(size int64, live []offsetComp) int64

// placeOneByOne runs the loop those planners share. It places the buffers
// one at a time in the given order (indexes into bufs): a zero-size buffer
// goes to offset 0 and takes no space, as in every upstream; any other gets
// the offset choose returns, given spans that leave the same gaps of
// positive length as the placed buffers that conflict with it in time
// (oneByOne), and then takes [offset, end(offset, size)). It checks the
// records first and ctx every ctxCheckEvery buffers. It gives up,
// returning nil offsets and the footprint so far, as soon as the footprint
// reaches limit: a caller keeping the smaller of two plans need not finish
// one that cannot win (math.MaxInt64: never, even for a footprint of
// math.MaxInt64).
func placeOneByOne(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose chooser, end func(off, size int64) int64) ([]int64, int64, error) {
	if err := recordError(name, bufs); err != nil {
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
	r := newOneByOne(newOffsetCompIndex(newTaskSpans(bufs, false)), bufs, order, choose, end)
	done, err := r.run(ctx, limit)
	if err != nil || !done {
		return nil, r.fp, err
	}
	return r.offsets, r.fp, nil
}

// oneByOne is one run of placeOneByOne's loop, which can stop once its
// footprint reaches a limit and go on later under another.
//
// Its index (offsetCompIndex, shared with offset-greedy-by-size) gives the
// connected components of the placed buffers' closed address ranges
// [offset, end] among those that conflict with a buffer in time: they
// leave the same gaps of positive length as the buffers one by one, and
// only those can take a buffer of positive size. When the buffer conflicts
// with every placed one (dense inputs), the index's denseSet gives only
// the spans around gaps at least as long as the buffer.
type oneByOne struct {
	ix *offsetCompIndex
	// What the loop needs of each buffer of positive size, gathered in
	// its order (the loads are independent there, and the loop then reads
	// in sequence), and the buffer's index.
	tasks []offsetTask
	which []int32
	// at[k] is where tasks[k] went; offsets, by buffer, once all are.
	at      []int64
	offsets []int64
	live    []offsetComp
	next    int   // tasks[next] is the next buffer to place
	fp      int64 // the footprint so far
	choose  chooser
	end     func(off, size int64) int64
}

// newOneByOne starts a run over bufs in the given order on ix, which must
// be empty and over bufs' spans.
func newOneByOne(ix *offsetCompIndex, bufs []workloads.Buffer, order []int32, choose chooser, end func(off, size int64) int64) *oneByOne {
	r := &oneByOne{ix: ix, tasks: make([]offsetTask, 0, len(order)), which: make([]int32, 0, len(order)),
		choose: choose, end: end}
	for _, i := range order {
		if size := bufs[i].Size; size > 0 {
			id := ix.id[i]
			sp := ix.span[id]
			r.tasks = append(r.tasks, offsetTask{size, id, sp[0], sp[1], ix.startPtr[sp[0]+1], ix.startPtr[sp[1]+1]})
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
		if r.next%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		t := &r.tasks[r.next]
		if ix.all.covers(t.a, t.b) {
			r.live = ix.all.set.gapSpans(r.live[:0], t.size)
		} else {
			r.live = ix.overlapping(r.live[:0], t)
		}
		off := r.choose(t.size, r.live)
		ix.place(t, offsetComp{off, r.end(off, t.size)})
		r.at[r.next] = off
		r.fp = max(r.fp, off+t.size)
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

// emptyCopy returns an empty index over the same spans, with the same
// layout.
func (ix *offsetCompIndex) emptyCopy() *offsetCompIndex {
	c := &offsetCompIndex{taskSpans: ix.taskSpans, leaves: ix.leaves, node: slices.Clone(ix.node),
		pool: make([]offsetComp, len(ix.pool)), placed: make([]offsetComp, len(ix.placed)), all: newDenseSet(len(ix.placed))}
	for v := range c.node {
		c.node[v].len = 0
	}
	for id := range c.placed {
		c.placed[id].lo = -1
	}
	return c
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
// and so is the one below it).
func (s *compSet) gapSpans(spans []offsetComp, min int64) []offsetComp {
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
			spans = append(spans, offsetComp{s.blocks[skip].c[0].lo, top})
			skip = -1
		}
		spans = append(spans, bl.c...)
		top = bl.c[len(bl.c)-1].hi
	}
	if skip >= 0 {
		spans = append(spans, offsetComp{s.blocks[skip].c[0].lo, top})
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

// stableOrder returns 0..n-1 sorted by keys[0], then keys[1], and so on,
// then by index: one stable radix sort per key, the least significant
// (last) first.
func stableOrder(n int, keys ...func(i int32) int64) []int32 {
	order := inOrder(n)
	k := make([]keyed, n)
	buf := make([]keyed, n)
	for j := len(keys) - 1; j >= 0; j-- {
		key := keys[j]
		for x, i := range order {
			k[x] = keyed{key(i), i}
		}
		sorted := radixSort(k, buf)
		for x, s := range sorted {
			order[x] = s.i
		}
	}
	return order
}
