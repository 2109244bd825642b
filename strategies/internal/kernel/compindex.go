package kernel

import (
	"cmp"
	"math"
	"slices"
)

// Comp is a connected component of placed tensors' closed address
// ranges [offset, aligned end]: ranges that touch belong to one.
type Comp struct{ Lo, Hi int64 }

// CompIndex finds, for a buffer, the components of the placed
// buffers whose lifetimes overlap its own. "Overlaps [f, l]" splits into
// two disjoint parts: lifetimes containing f (a stabbing query on a
// segment tree over the distinct first tasks, whose nodes keep the
// components of the buffers whose spans they canonically cover) and
// lifetimes starting in (f, l] (a range of ids, taken one by one).
type CompIndex struct {
	*TaskSpans
	leaves int32
	// Node v's components are pool[node[v].ptr:][:node[v].len], sorted;
	// its room, up to node[v+1].ptr, is the number of buffers it may
	// hold, which bounds them (node[2D] is a sentinel).
	node []segNode
	pool []Comp
	// placed[id] is where buffer id was placed; lo is -1 until it is.
	placed []Comp

	// all is the components of every placed buffer: when each of them
	// overlaps a buffer (dense inputs), they are its overlapping ones.
	all denseSet
	// byID, when set (offset-greedy-by-size, xla-heap), gives the second part as
	// merged components of id ranges instead of buffer by buffer.
	byID *compIDTree
	// coarse, when set (CoarseHints), gives FirstFit where to start.
	coarse *coarseTree

	runs    []int32 // scratch: run boundaries in the gathered components
	scratch []Comp
	fitRuns [][]Comp // FirstFit's scratch
	next    []int64
	gaps    []Comp // appendUnionRuns' scratch: the gap spans of all
}

// NewCompIndex returns an empty index over the spans ts.
func NewCompIndex(ts *TaskSpans) *CompIndex {
	d := ts.Tasks()
	ix := &CompIndex{TaskSpans: ts, leaves: d, node: make([]segNode, 2*d+1),
		placed: make([]Comp, len(ts.ID)), all: newDenseSet(len(ts.ID))}
	for id := range ix.placed {
		ix.placed[id].Lo = -1
	}
	total := countCanonical(ix.node, ts.Span, d)
	ix.pool = make([]Comp, total)
	// Parents come before children: up[1] is 0.
	for v := int32(2); v < 2*d; v++ {
		if p := v >> 1; ix.node[p+1].ptr > ix.node[p].ptr {
			ix.node[v].up = p
		} else {
			ix.node[v].up = ix.node[p].up
		}
	}
	return ix
}

// countCanonical sets node[v].ptr to the start of room for as many
// entries as spans have v among their canonical nodes (node[v].len 0) and
// returns the room in all.
func countCanonical(node []segNode, spans [][2]int32, d int32) int32 {
	for _, sp := range spans {
		for l, r := sp[0]+d, sp[1]+d+1; l < r; l, r = l>>1, r>>1 {
			if l&1 == 1 {
				node[l].len++
				l++
			}
			if r&1 == 1 {
				r--
				node[r].len++
			}
		}
	}
	var total int32
	for v := range node {
		node[v].ptr = total
		total += node[v].len
		node[v].len = 0
	}
	return total
}

// add merges c into node v's components.
func (ix *CompIndex) add(v int32, c Comp) {
	nd := &ix.node[v]
	// The capacity is the node's room, so this never reallocates.
	nd.len = int32(len(MergeComp(ix.pool[nd.ptr:nd.ptr+nd.len:ix.node[v+1].ptr], c)))
}

// MergeComp merges the closed range c into the sorted, disjoint
// components l, in place where l's capacity allows.
func MergeComp(l []Comp, c Comp) []Comp {
	l, _ = mergeComp(l, c)
	return l
}

// mergeComp is MergeComp, also reporting whether l covered c already
// (and is unchanged).
func mergeComp(l []Comp, c Comp) ([]Comp, bool) {
	// Most ranges go above the last component or touch it alone (on a
	// decode of idealloc's Y_1, 58% of the merges into the index's nodes):
	// those need no binary search, whose reads of a long list miss the
	// cache.
	n := len(l)
	if n == 0 || l[n-1].Hi < c.Lo {
		return append(l, c), false
	}
	if last := &l[n-1]; last.Lo <= c.Hi && (n == 1 || l[n-2].Hi < c.Lo) {
		if last.Lo <= c.Lo && c.Hi <= last.Hi {
			return l, true
		}
		last.Lo, last.Hi = min(last.Lo, c.Lo), max(last.Hi, c.Hi)
		return l, false
	}
	// The first component ending at or after c.Lo: not after the last.
	i, j := 0, n-1
	for i < j {
		h := int(uint(i+j) >> 1)
		if l[h].Hi < c.Lo {
			i = h + 1
		} else {
			j = h
		}
	}
	if l[i].Lo <= c.Lo && c.Hi <= l[i].Hi {
		return l, true
	}
	j = i
	for ; j < len(l) && l[j].Lo <= c.Hi; j++ {
		c.Lo, c.Hi = min(c.Lo, l[j].Lo), max(c.Hi, l[j].Hi)
	}
	if j == i+1 {
		l[i] = c
		return l, false
	}
	return slices.Replace(l, i, j, c), false
}

// Task is a tensor as CompIndex sees it: its size, id and span
// [a, b], and the ids RLo..RHi-1 of the buffers starting in (a, b].
type Task struct {
	Size     int64
	ID, A, B int32
	RLo, RHi int32
}

// GatherByID makes the index gather the buffers starting inside a
// lifetime as merged components of id ranges (compIDTree) instead of one
// by one; it must be called before any Place.
func (ix *CompIndex) GatherByID() { ix.byID = newCompIDTree(int32(len(ix.ID))) }

// CoarseHints makes FirstFit start each walk from a lower bound on its
// answer (coarseTree) instead of 0, which saves a walk up through the
// placed ranges when lifetimes are long and placements dense, for about
// twice as many merges per Place as the blocks its buffer lives in; the
// answers are the same. It must be called before any Place.
func (ix *CompIndex) CoarseHints() { ix.coarse = newCoarseTree(ix.leaves) }

// CoversAll reports whether a buffer of span [a, b] overlaps every placed
// buffer in time; AllGapSpans may then stand for Overlapping.
func (ix *CompIndex) CoversAll(a, b int32) bool { return ix.all.covers(a, b) }

// AllGapSpans appends to spans, sorted by offset, spans that leave the
// same gaps at least min long (min > 0) as every placed buffer, and the
// same top (compSet.gapSpans). Only after CoversAll.
func (ix *CompIndex) AllGapSpans(spans []Comp, min int64) []Comp {
	return ix.all.set.gapSpans(spans, min)
}

// Place records buffer t, placed at c.
func (ix *CompIndex) Place(t *Task, c Comp) {
	notePlaced(ix.placed, &ix.all, ix.byID, ix.coarse, t, c)
	for l, r := t.A+ix.leaves, t.B+ix.leaves+1; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			ix.add(l, c)
			l++
		}
		if r&1 == 1 {
			r--
			ix.add(r, c)
		}
	}
}

// Overlapping returns the components of the placed buffers whose
// lifetimes overlap buffer id's, sorted by start (components of different
// nodes may overlap each other), in comps' storage.
func (ix *CompIndex) Overlapping(comps []Comp, t *Task) []Comp {
	a := t.A
	if ix.all.covers(t.A, t.B) {
		return ix.all.set.appendTo(comps)
	}
	runs := ix.runs[:0]
	for v := a + ix.leaves; v >= 1; {
		nd := ix.node[v]
		if nd.len > 0 {
			runs = append(runs, int32(len(comps)))
			comps = append(comps, ix.pool[nd.ptr:nd.ptr+nd.len]...)
		}
		v = nd.up
	}
	start := len(comps)
	if lo, hi := t.RLo, t.RHi; lo < hi {
		if ix.byID != nil {
			comps, runs, start = ix.byID.gather(comps, runs, ix.placed, lo, hi)
		} else {
			comps = appendPlaced(comps, ix.placed[lo:hi])
		}
	}
	return ix.mergeGathered(comps, runs, start)
}

// mergeGathered merges what Overlapping gathered: the sorted runs of
// comps that start at runs, and the loose ranges from start on (none if
// start is len(comps)), sorted first as one more run.
func (ix *CompIndex) mergeGathered(comps []Comp, runs []int32, start int) []Comp {
	if start < len(comps) {
		runs = append(runs, int32(start))
		if len(comps) > 24 { // else one insertion sort in mergeRuns does all
			SortComps(comps[start:])
		}
	}
	ix.runs = runs
	return ix.mergeRuns(comps)
}

// OverlappingWithin is Overlapping less the components that end by lo
// or start at or above hi: those of the placed buffers overlapping
// buffer t in time that meet the open range (lo, hi), sorted by start,
// in comps' storage. A caller that wants only those (the hill climb's
// windows below a buffer's last place) so skips the copy, sort and merge
// of the others: its sorted runs are cut to the range by binary search
// and the loose ranges filtered before they are sorted.
func (ix *CompIndex) OverlappingWithin(comps []Comp, t *Task, lo, hi int64) []Comp {
	if ix.all.covers(t.A, t.B) {
		for _, b := range ix.all.set.blocks {
			if b.c[len(b.c)-1].Hi > lo && b.c[0].Lo < hi {
				comps = append(comps, within(b.c, lo, hi)...)
			}
		}
		return comps
	}
	runs := ix.runs[:0]
	for v := t.A + ix.leaves; v >= 1; {
		nd := ix.node[v]
		if nd.len > 0 {
			if c := within(ix.pool[nd.ptr:nd.ptr+nd.len], lo, hi); len(c) > 0 {
				runs = append(runs, int32(len(comps)))
				comps = append(comps, c...)
			}
		}
		v = nd.up
	}
	start := len(comps)
	if rlo, rhi := t.RLo, t.RHi; rlo < rhi {
		if ix.byID != nil {
			t := ix.byID
			var loose []Comp
			t.nodes, loose = t.gatherRuns(t.nodes[:0], t.cut[:0], ix.placed, rlo, rhi, 0, lo)
			t.cut = loose
			for _, r := range t.nodes {
				if c := within(r, lo, hi); len(c) > 0 {
					runs = append(runs, int32(len(comps)))
					comps = append(comps, c...)
				}
			}
			start = len(comps)
			comps = appendStartingBelow(comps, loose, hi)
		} else {
			for _, c := range ix.placed[rlo:rhi] {
				if c.Lo >= 0 && c.Hi > lo && c.Lo < hi {
					comps = append(comps, c)
				}
			}
		}
	}
	return ix.mergeGathered(comps, runs, start)
}

// within returns the ranges of run (sorted and disjoint) that end after
// lo and start below hi.
func within(run []Comp, lo, hi int64) []Comp {
	run = run[endAfter(run, lo):]
	i, j := 0, len(run)
	for i < j {
		h := int(uint(i+j) >> 1)
		if run[h].Lo < hi {
			i = h + 1
		} else {
			j = h
		}
	}
	return run[:i]
}

// appendStartingBelow appends the ranges of cs that start below hi.
func appendStartingBelow(comps, cs []Comp, hi int64) []Comp {
	for _, c := range cs {
		if c.Lo < hi {
			comps = append(comps, c)
		}
	}
	return comps
}

// SortComps sorts components by start: a quicksort specialised to them,
// as the generic sort's comparison calls dominate at these lengths.
func SortComps(c []Comp) {
	for len(c) > 24 {
		// Median of three as the pivot; then partition around it.
		m := len(c) / 2
		if c[m].Lo < c[0].Lo {
			c[0], c[m] = c[m], c[0]
		}
		if c[len(c)-1].Lo < c[0].Lo {
			c[0], c[len(c)-1] = c[len(c)-1], c[0]
		}
		if c[len(c)-1].Lo < c[m].Lo {
			c[m], c[len(c)-1] = c[len(c)-1], c[m]
		}
		pivot := c[m].Lo
		i, j := 0, len(c)-1
		for i <= j {
			for c[i].Lo < pivot {
				i++
			}
			for c[j].Lo > pivot {
				j--
			}
			if i <= j {
				c[i], c[j] = c[j], c[i]
				i++
				j--
			}
		}
		// Recurse into the smaller part, loop on the larger.
		if j+1 < len(c)-i {
			SortComps(c[:j+1])
			c = c[i:]
		} else {
			SortComps(c[i:])
			c = c[:j+1]
		}
	}
	for i := 1; i < len(c); i++ {
		x := c[i]
		j := i
		for ; j > 0 && x.Lo < c[j-1].Lo; j-- {
			c[j] = c[j-1]
		}
		c[j] = x
	}
}

// mergeRuns merges the sorted runs of comps that start at ix.runs, pair
// by pair, and returns comps or the scratch buffer holding the result.
// Up to 24 components, one insertion sort does it, runs sorted or not.
func (ix *CompIndex) mergeRuns(comps []Comp) []Comp {
	runs := ix.runs
	if len(comps) <= 24 { // the range's run is not sorted yet
		SortComps(comps)
		return comps
	}
	if len(runs) <= 1 {
		return comps
	}
	src := comps
	dst := slices.Grow(ix.scratch[:0], len(comps))[:len(comps)]
	for len(runs) > 1 {
		next := runs[:0]
		for r := 0; r < len(runs); r += 2 {
			lo := int(runs[r])
			if r+1 == len(runs) {
				copy(dst[lo:], src[lo:])
				next = append(next, runs[r])
				break
			}
			mid := int(runs[r+1])
			hi := len(src)
			if r+2 < len(runs) {
				hi = int(runs[r+2])
			}
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if src[j].Lo < src[i].Lo {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
			next = append(next, runs[r])
		}
		runs = next
		src, dst = dst, src
	}
	if &src[0] != &comps[0] {
		ix.scratch = comps[:0]
	} else {
		ix.scratch = dst[:0]
	}
	return src
}

// EmptyCopy returns an empty index over the same spans, with the same
// layout, gathering by id and giving coarse hints if ix does.
func (ix *CompIndex) EmptyCopy() *CompIndex {
	c := &CompIndex{TaskSpans: ix.TaskSpans, leaves: ix.leaves, node: slices.Clone(ix.node),
		pool: make([]Comp, len(ix.pool)), placed: make([]Comp, len(ix.placed)), all: newDenseSet(len(ix.placed))}
	for v := range c.node {
		c.node[v].len = 0
	}
	for id := range c.placed {
		c.placed[id].Lo = -1
	}
	if ix.byID != nil {
		c.GatherByID()
	}
	if ix.coarse != nil {
		c.CoarseHints()
	}
	return c
}

// Reset empties ix for a new round of Place calls, keeping its storage
// (and whether it gathers by id and gives coarse hints): what EmptyCopy
// gives without the allocation, for callers that plan many times over
// the same spans.
func (ix *CompIndex) Reset() {
	for v := range ix.node {
		ix.node[v].len = 0
	}
	resetPlaced(ix.placed, &ix.all, ix.byID, ix.coarse)
}

// notePlaced records buffer t, placed at c, in what an index keeps
// besides its nodes (resetPlaced).
func notePlaced(placed []Comp, all *denseSet, byID *compIDTree, coarse *coarseTree, t *Task, c Comp) {
	placed[t.ID] = c
	all.place(t.A, t.B, c)
	if byID != nil {
		byID.place(t.ID, c)
	}
	if coarse != nil {
		coarse.place(t.A, t.B, c)
	}
}

// resetPlaced empties what an index keeps besides its nodes: the placed
// ranges, the all-overlapping set, and the id and coarse trees where
// there are any.
func resetPlaced(placed []Comp, all *denseSet, byID *compIDTree, coarse *coarseTree) {
	for id := range placed {
		placed[id] = Comp{Lo: -1}
	}
	all.reset()
	if coarse != nil {
		coarse.reset()
	}
	if byID != nil {
		byID.reset()
	}
}

// denseSet keeps the address ranges of every placed buffer for the
// buffers that conflict with them all: those whose span (in TaskSpans
// numbers) no placed span ends before (minEnd) nor starts after
// (maxStart). Placed ranges wait in pending until such a buffer comes.
type denseSet struct {
	set              compSet
	pending          []Comp
	minEnd, maxStart int32
}

// newDenseSet returns an empty denseSet with room for n pending ranges.
func newDenseSet(n int) denseSet {
	return denseSet{pending: make([]Comp, 0, n), minEnd: math.MaxInt32, maxStart: -1}
}

// reset empties d, keeping its storage.
func (d *denseSet) reset() {
	d.set.blocks = d.set.blocks[:0]
	d.pending = d.pending[:0]
	d.minEnd, d.maxStart = math.MaxInt32, -1
}

// place records a buffer of span [a, b] placed at the closed range c.
func (d *denseSet) place(a, b int32, c Comp) {
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
// Adding a range merges it with those it touches, as MergeComp does.
type compSet struct{ blocks []compBlock }

type compBlock struct {
	c      []Comp // never empty
	maxGap int64  // the longest c[j].Lo - c[j-1].Hi (0 for one range)
}

// compBlockSize bounds the work of an add (a block's length) against that
// of a walk (the number of blocks).
const compBlockSize = 64

func (b *compBlock) setMaxGap() {
	b.maxGap = 0
	for j := 1; j < len(b.c); j++ {
		b.maxGap = max(b.maxGap, b.c[j].Lo-b.c[j-1].Hi)
	}
}

// add merges the closed range c into the set.
func (s *compSet) add(c Comp) {
	// The first block with a range ending at or after c.Lo: c may touch
	// it, and touches nothing before it.
	bi, _ := slices.BinarySearchFunc(s.blocks, c.Lo, func(b compBlock, lo int64) int {
		return cmp.Compare(b.c[len(b.c)-1].Hi, lo)
	})
	if bi == len(s.blocks) {
		// Above every range: the usual case, as most buffers go on top.
		if bi == 0 || len(s.blocks[bi-1].c) >= 2*compBlockSize {
			s.blocks = append(s.blocks, compBlock{c: append(make([]Comp, 0, 2*compBlockSize), c)})
			return
		}
		b := &s.blocks[bi-1]
		b.maxGap = max(b.maxGap, c.Lo-b.c[len(b.c)-1].Hi)
		b.c = append(b.c, c)
		return
	}
	b := &s.blocks[bi]
	b.c = MergeComp(b.c, c)
	// Only the block's last range can reach the next blocks.
	for last := &b.c[len(b.c)-1]; bi+1 < len(s.blocks) && s.blocks[bi+1].c[0].Lo <= last.Hi; {
		next := &s.blocks[bi+1]
		j := 0
		for ; j < len(next.c) && next.c[j].Lo <= last.Hi; j++ {
			last.Hi = max(last.Hi, next.c[j].Hi)
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
		half := append(make([]Comp, 0, 2*compBlockSize), b.c[compBlockSize:]...)
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
func (s *compSet) gapSpans(spans []Comp, min int64) []Comp {
	top := int64(0)
	skip := -1 // the first block of the run being skipped
	for b := range s.blocks {
		bl := &s.blocks[b]
		if max(bl.maxGap, bl.c[0].Lo-top) < min {
			if skip < 0 {
				skip = b
			}
			top = bl.c[len(bl.c)-1].Hi
			continue
		}
		if skip >= 0 {
			spans = append(spans, Comp{s.blocks[skip].c[0].Lo, top})
			skip = -1
		}
		spans = append(spans, bl.c...)
		top = bl.c[len(bl.c)-1].Hi
	}
	if skip >= 0 {
		spans = append(spans, Comp{s.blocks[skip].c[0].Lo, top})
	}
	return spans
}

// appendTo appends the set's ranges to comps, in order.
func (s *compSet) appendTo(comps []Comp) []Comp {
	for _, b := range s.blocks {
		comps = append(comps, b.c...)
	}
	return comps
}

// TaskOf returns buffer index i of size size as CompIndex sees it.
func (ts *TaskSpans) TaskOf(i int, size int64) Task {
	id := ts.ID[i]
	sp := ts.Span[id]
	return Task{Size: size, ID: id, A: sp[0], B: sp[1], RLo: ts.StartPtr[sp[0]+1], RHi: ts.StartPtr[sp[1]+1]}
}
