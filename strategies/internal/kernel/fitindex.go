package kernel

import (
	"math"
	"math/bits"
	"slices"
)

// FitIndex answers first-fit queries as CompIndex.FirstFit does (the
// lowest aligned offset where a buffer fits among the placed buffers
// overlapping it in time), for callers that only ask first fits
// (search.Placer's decodes). It splits "overlaps [a, b]" the same way:
// lifetimes containing a (a stabbing query on a segment tree over the
// distinct first tasks) and lifetimes starting in (a, b] (a range of ids,
// through a compIDTree). Two things differ.
//
// The stabbing part: the tree is a perfect one, cut at the level whose
// nodes span fitBlockLeaves leaves (the blocks). Nodes below it keep
// their components merged, as CompIndex's do; nodes at or above it only
// log the ranges placed there, and each block keeps the merged ranges of
// every log on its path to the root, brought up to date when a buffer
// starting in the block asks (FitIndex.block). On idealloc's Y_1 a first
// task is covered by about 3,000 long lifetimes, whose ranges CompIndex
// keeps in a dozen long lists along the path, among which a first fit's
// walk goes back and forth; here they are mostly one list, and a place at
// a high node is an append rather than a merge into a long list.
//
// With coarse hints (a coarseTree), the buffers starting in blocks of
// that tree wholly inside a lifetime are not gathered by id: they are
// among the buffers live in those blocks, whose merged ranges the coarse
// tree keeps and the hint is computed from, so those ranges go into the
// walk as runs, and only the ids at both ends of the lifetime are
// gathered (fewer id-tree nodes to merge and walk).
//
// Where many buffers start at one first task (hotStarts), the index keeps
// the merged ranges of every placed buffer live there, and their first
// fits walk that one list instead of the stabbing path (FitIndex.stab).
//
// The answers are CompIndex's (TestFitIndexMatchesCompIndex).
type FitIndex struct {
	*TaskSpans
	leaves int32 // a power of two >= the number of first tasks
	nb     int32 // blocks: the nodes nb .. 2nb-1 span a block each
	// blockShift: first task a is in block a >> blockShift.
	blockShift uint8
	depth      int // the nodes on a block's path to the root, itself included
	// Node v's room is pool[node[v].ptr:node[v+1].ptr], as many entries
	// as buffers have v among their canonical nodes. A fine node
	// (2nb <= v < 2*leaves) keeps its components there, merged, in
	// pool[node[v].ptr:][:node[v].len]; a coarse one (1 <= v < 2nb) logs
	// the ranges placed there, in order.
	node []fitNode
	pool []Comp
	// blocks[k] holds the merged ranges of the logs on block k's path;
	// seen[k*depth+j] is how much of the log j levels above the block
	// is in them.
	blocks []fitBlock
	seen   []int32

	// hot lists, in order, the first tasks (numbers) where at least
	// hotStarts buffers start; hotSet[k] is the merged ranges of every
	// placed buffer live at hot[k] (FitIndex.stab).
	hot    []int32
	hotSet [][]Comp

	placed []Comp // placed[id]; Lo is -1 until id is placed
	all    denseSet
	byID   *compIDTree
	coarse *coarseTree

	scratch, merged []Comp
	fitRuns         [][]Comp
	walk            fitWalk
}

// fitNode is a node of FitIndex's tree: where its room starts in the
// pool and how much of it is used. Two words rather than segNode's three,
// as a first fit reads a node of each fine level on its path, most of
// them out of cache.
type fitNode struct{ ptr, len int32 }

// fitBlock is a block's merged ranges: set, and pend, the ranges logged
// since set was last rebuilt, kept apart (and merged among themselves)
// until they number 1/fitPendShare of set, as one merge rewrites set.
type fitBlock struct{ set, pend []Comp }

// fitBlockLeaves is the leaves a block spans (a power of two): smaller
// blocks take more merges a place (a long lifetime's range goes into
// every block under its coarse nodes), larger ones leave more ranges in
// the fine nodes' lists. On Y_1 (52,854 first tasks), one decode ran 568 M
// instructions with 1,024, 573 M with 2,048 and about 600 M with 512
// (cachegrind, fitPendShare 8).
const fitBlockLeaves = 1024

// fitPendShare: a block merges its pending ranges into its set once they
// number at least len(set)/fitPendShare. On Y_1, 2 ran 556 M
// instructions a decode, 4 560 M, 8 568 M and 32 922 M.
const fitPendShare = 2

// hotStarts is the fewest buffers starting at a first task for which
// FitIndex keeps the merged ranges of every buffer live there: each place
// live there costs one merge more, and each of those buffers' first fits
// walks one list where the stabbing path's block and fine nodes gave
// several that interleave. On idealloc's Y_1, 9,331 buffers start at the
// first task (the next most at one task: 2); their first fits took 44% of
// the walk's looks at a run and half its moves.
const hotStarts = 64

// NewFitIndex returns an empty index over the spans ts, gathering the
// buffers starting inside a lifetime by id ranges (compIDTree) where
// ts.GatherByIDPays, and giving coarse hints (CompIndex.CoarseHints)
// where hints is set.
func NewFitIndex(ts *TaskSpans, hints bool) *FitIndex {
	return newFitIndex(ts, hints, fitBlockLeaves, hotStarts)
}

// newFitIndex is NewFitIndex with blocks of block leaves (a power of two),
// keeping the merged ranges live at every first task where at least hot
// buffers start.
func newFitIndex(ts *TaskSpans, hints bool, block, hot int32) *FitIndex {
	d := ts.Tasks()
	leaves := int32(1)
	for leaves < d {
		leaves *= 2
	}
	nb := max(1, leaves/block)
	ix := &FitIndex{TaskSpans: ts, leaves: leaves, nb: nb, depth: bits.Len32(uint32(nb)),
		blockShift: uint8(bits.TrailingZeros32(uint32(leaves / nb)))}
	seg := make([]segNode, 2*leaves+1)
	ix.pool = make([]Comp, countCanonical(seg, ts.Span, leaves))
	ix.node = make([]fitNode, len(seg))
	for v, nd := range seg {
		ix.node[v].ptr = nd.ptr
	}
	ix.blocks = make([]fitBlock, nb)
	ix.seen = make([]int32, int(nb)*ix.depth)
	ix.placed = make([]Comp, len(ts.ID))
	for id := range ix.placed {
		ix.placed[id].Lo = -1
	}
	ix.all = newDenseSet(len(ts.ID))
	if hints {
		ix.coarse = newCoarseTree(d)
	}
	for a := range d {
		if ts.StartPtr[a+1]-ts.StartPtr[a] >= hot {
			ix.hot = append(ix.hot, a)
		}
	}
	ix.hotSet = make([][]Comp, len(ix.hot))
	if ts.GatherByIDPays() {
		ix.gatherByID()
	}
	return ix
}

// gatherByID makes ix gather the ids of its ranges through a compIDTree,
// which keeps no nodes wider than the widest range FirstFit asks.
func (ix *FitIndex) gatherByID() {
	ix.byID = newCompIDTree(int32(len(ix.ID)))
	var most int32
	for i := range ix.ID {
		t := ix.TaskOf(i, 0)
		lo, mlo, mhi, hi := ix.inside(&t)
		most = max(most, mlo-lo, hi-mhi)
	}
	ix.byID.keepSpans(most)
}

// inside returns the ids FirstFit gathers for t by id (those starting in
// t's span after its first task): lo..mlo-1 and mhi..hi-1.
func (ix *FitIndex) inside(t *Task) (lo, mlo, mhi, hi int32) {
	lo, hi = t.RLo, t.RHi
	mlo, mhi = hi, hi
	if ix.coarse != nil {
		if blo, bhi := ix.coarse.inside(t.A, t.B); blo <= bhi {
			mlo, mhi = ix.insideIDs(blo, bhi)
		}
	}
	return lo, mlo, mhi, hi
}

// insideIDs returns the ids of the buffers starting in the coarse tree's
// blocks blo..bhi: mlo..mhi-1.
func (ix *FitIndex) insideIDs(blo, bhi int32) (mlo, mhi int32) {
	return ix.StartPtr[blo<<ix.coarse.shift], ix.StartPtr[min((bhi+1)<<ix.coarse.shift, ix.Tasks())]
}

// EmptyCopy returns an empty index over the same spans, with the same
// layout and options, sharing nothing that Place changes.
func (ix *FitIndex) EmptyCopy() *FitIndex {
	c := *ix
	c.node = append([]fitNode(nil), ix.node...)
	c.pool = make([]Comp, len(ix.pool))
	c.blocks = make([]fitBlock, len(ix.blocks))
	c.seen = make([]int32, len(ix.seen))
	c.hotSet = make([][]Comp, len(ix.hot))
	c.placed = make([]Comp, len(ix.placed))
	c.all = newDenseSet(len(ix.placed))
	if ix.byID != nil {
		c.byID = newCompIDTree(int32(len(ix.placed)))
		c.byID.top = ix.byID.top
	}
	if ix.coarse != nil {
		c.coarse = ix.coarse.emptyCopy()
	}
	c.scratch, c.merged, c.fitRuns, c.walk = nil, nil, nil, fitWalk{}
	c.Reset()
	return &c
}

// Reset empties ix for a new round of Place calls, keeping its storage.
func (ix *FitIndex) Reset() {
	for v := range ix.node {
		ix.node[v].len = 0
	}
	for k := range ix.blocks {
		b := &ix.blocks[k]
		b.set, b.pend = b.set[:0], b.pend[:0]
	}
	clear(ix.seen)
	for k := range ix.hotSet {
		ix.hotSet[k] = ix.hotSet[k][:0]
	}
	resetPlaced(ix.placed, &ix.all, ix.byID, ix.coarse)
}

// Place records buffer t, placed at c.
func (ix *FitIndex) Place(t *Task, c Comp) {
	notePlaced(ix.placed, &ix.all, ix.byID, ix.coarse, t, c)
	if h := ix.hot; len(h) > 0 && h[0] <= t.B && t.A <= h[len(h)-1] {
		k, _ := slices.BinarySearch(h, t.A)
		for ; k < len(ix.hot) && ix.hot[k] <= t.B; k++ {
			ix.hotSet[k] = MergeComp(ix.hotSet[k], c)
		}
	}
	fine := 2 * ix.nb
	for l, r := t.A+ix.leaves, t.B+ix.leaves+1; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			ix.add(l, fine, c)
			l++
		}
		if r&1 == 1 {
			r--
			ix.add(r, fine, c)
		}
	}
}

// add merges c into fine node v, or logs it at coarse node v.
func (ix *FitIndex) add(v, fine int32, c Comp) {
	nd := &ix.node[v]
	if v < fine {
		ix.pool[nd.ptr+nd.len] = c
		nd.len++
		return
	}
	// The capacity is the node's room, so this never reallocates.
	nd.len = int32(len(MergeComp(ix.pool[nd.ptr:nd.ptr+nd.len:ix.node[v+1].ptr], c)))
}

// block brings block k's ranges up to date with the logs on its path and
// returns it.
func (ix *FitIndex) block(k int32) *fitBlock {
	b := &ix.blocks[k]
	seen := ix.seen[int(k)*ix.depth:][:ix.depth]
	for j, u := 0, ix.nb+k; u >= 1; j, u = j+1, u>>1 {
		nd := ix.node[u]
		if seen[j] == nd.len {
			continue // mostly: nothing new
		}
		for _, c := range ix.pool[nd.ptr+seen[j] : nd.ptr+nd.len] {
			b.pend = MergeComp(b.pend, c)
		}
		seen[j] = nd.len
	}
	if len(b.pend) > 0 && len(b.pend)*fitPendShare >= len(b.set) {
		merged := mergeRanges(ix.merged[:0], b.set, b.pend)
		ix.merged, b.set, b.pend = b.set[:0], merged, b.pend[:0]
	}
	return b
}

// mergeRanges appends to out the union of x, merged ranges (sorted,
// disjoint and not touching, as MergeComp leaves them), and y, ranges
// sorted by start: ranges that overlap or touch are joined as MergeComp
// joins them, and the first joins out's last range if it touches it. The
// joined range is kept apart from out until the next starts past it, and
// once y is spent the rest of x is copied whole: on a decode of
// idealloc's Y_1 this merge (the id tree's syncs, the blocks' rebuilds)
// read about 1.4 million ranges, at about twice the instructions a range
// of the former loop (mergeRangesOld in the tests).
func mergeRanges(out, x, y []Comp) []Comp {
	if len(x)+len(y) == 0 {
		return out
	}
	out = slices.Grow(out, len(x)+len(y))
	var cur Comp
	if n := len(out); n > 0 {
		cur, out = out[n-1], out[:n-1]
	} else if len(y) == 0 || len(x) > 0 && x[0].Lo <= y[0].Lo {
		cur, x = x[0], x[1:]
	} else {
		cur, y = y[0], y[1:]
	}
	i, j := 0, 0
	for j < len(y) {
		var c Comp
		if i < len(x) && x[i].Lo <= y[j].Lo {
			c = x[i]
			i++
		} else {
			c = y[j]
			j++
		}
		if c.Lo <= cur.Hi {
			cur.Hi = max(cur.Hi, c.Hi)
		} else {
			out = append(out, cur)
			cur = c
		}
	}
	// The rest of x: the first may join cur, and none joins another.
	for ; i < len(x) && x[i].Lo <= cur.Hi; i++ {
		cur.Hi = max(cur.Hi, x[i].Hi)
	}
	out = append(out, cur)
	return append(out, x[i:]...)
}

// FirstFit returns where a buffer of span t goes under the first-fit
// rule among the placed buffers overlapping it in time: what
// CompIndex.FirstFit returns given the same placements.
func (ix *FitIndex) FirstFit(t *Task, size, align int64) int64 {
	if size <= 0 {
		return 0 // the first gap, [0, ...), holds it
	}
	if ix.all.covers(t.A, t.B) {
		ix.scratch = ix.all.set.gapSpans(ix.scratch[:0], size)
		return FirstFit(ix.scratch, size, align)
	}
	runs := ix.fitRuns[:0]
	small := ix.scratch[:0]
	// The buffers starting in (a, b] are ids lo..hi-1; those starting in
	// blocks of the coarse tree wholly inside the span, ids mlo..mhi-1,
	// are among the buffers live in those blocks, whose merged ranges the
	// coarse tree keeps: those go instead, as runs, and give the walk its
	// start (coarseTree.hint).
	var from int64
	keep := 0 // the runs walked for the hint
	lo, hi := t.RLo, t.RHi
	mlo, mhi := hi, hi
	if ix.coarse != nil {
		if blo, bhi := ix.coarse.inside(t.A, t.B); blo <= bhi {
			runs = ix.coarse.appendRuns(runs, blo, bhi)
			from = ix.walk.firstFit(runs, 0, size, align, 0)
			keep = len(runs)
			mlo, mhi = ix.insideIDs(blo, bhi)
		}
	}
	// The walk scans the runs in order for one that blocks: the id tree's
	// first, then the stabbing path's (on Y_1, 360 M instructions a
	// decode; 364 M the other way round).
	if lo < mlo {
		runs, small = ix.gatherIDs(runs, small, lo, mlo, from)
	}
	if mhi < hi {
		runs, small = ix.gatherIDs(runs, small, mhi, hi, from)
	}
	runs, small = ix.stab(runs, small, t.A, from)
	runs = appendSmall(runs, small)
	ix.scratch, ix.fitRuns = small, runs
	return ix.walk.firstFit(runs, from, size, align, keep)
}

// stab appends the ranges of the placed buffers live at first task a
// (those ending after from where they go to small): the merged list of a
// hot task, else the block's lists (first: on Y_1 they block the walk
// most often) and the fine nodes on a's path.
func (ix *FitIndex) stab(runs [][]Comp, small []Comp, a int32, from int64) ([][]Comp, []Comp) {
	if h := ix.hot; len(h) > 0 && h[0] <= a && a <= h[len(h)-1] {
		if k, ok := slices.BinarySearch(h, a); ok {
			return appendRun(runs, small, ix.hotSet[k], from)
		}
	}
	b := ix.block(a >> ix.blockShift)
	runs, small = appendRun(runs, small, b.set, from)
	runs, small = appendRun(runs, small, b.pend, from)
	v := a + ix.leaves
	node, pool := ix.node, ix.pool
	for fine := 2 * ix.nb; v >= fine; v >>= 1 {
		if nd := node[v]; nd.len > 0 {
			runs, small = appendRun(runs, small, pool[nd.ptr:nd.ptr+nd.len], from)
		}
	}
	return runs, small
}

// appendRun appends c, a node's merged ranges, to runs if it has more
// than smallRun of them, else those ending after from to small.
func appendRun(runs [][]Comp, small, c []Comp, from int64) ([][]Comp, []Comp) {
	if len(c) > smallRun {
		return append(runs, c), small
	}
	return runs, appendEndingAfter(small, c, from)
}

// gatherIDs appends the placed ranges of ids lo..hi-1 (lo < hi) that end
// after from: the id tree's nodes inside as runs, the rest to small.
func (ix *FitIndex) gatherIDs(runs [][]Comp, small []Comp, lo, hi int32, from int64) ([][]Comp, []Comp) {
	if ix.byID != nil {
		return ix.byID.gatherRuns(runs, small, ix.placed, lo, hi, syncShare, from)
	}
	return runs, appendEndingAfter(small, ix.placed[lo:hi], from)
}

// start sets the cursors of runs for a walk from from (those of the
// first keep as they are) and returns them, with next's sentinel.
func (w *fitWalk) start(runs [][]Comp, from int64, keep int) (next []int64, pos []int) {
	n := len(runs)
	if cap(w.next) <= n {
		w.next = append(make([]int64, 0, 2*n+2), w.next[:keep]...)
		w.pos = append(make([]int, 0, 2*n+2), w.pos[:keep]...)
	}
	// next[n] is a sentinel below any end: the scan for a blocking run
	// needs no bound check.
	next, pos = w.next[:n+1], w.pos[:n]
	next[n] = math.MinInt64
	for r := keep; r < n; r++ {
		run := runs[r]
		i, x := 0, int64(math.MaxInt64)
		if from > 0 {
			i = endAfter(run, from)
		}
		if i < len(run) {
			x = run[i].Lo
		}
		next[r], pos[r] = x, i
	}
	return next, pos
}

// fitWalk is lazyFirstFit for FitIndex, which has no windows: the same
// walk over the same runs, with the same answer, each run's cursor and
// the start of its range kept in lists beside the runs rather than the
// run resliced. Storing a resliced run back into the list wrote its
// three words, pointer included (with the write barrier's check), every
// time a run was looked at: on Y_1 about three million times a decode.
// And it looks for a run that blocks by scanning those starts from the
// first, a tight loop over one list, where lazyFirstFit went round the
// runs from the last it looked at until a whole round passed.
type fitWalk struct {
	next []int64 // the start of run r's range at its cursor (MaxInt64: none left)
	pos  []int   // run r's cursor: the index of its first range not yet passed
}

// firstFit returns lazyFirstFit(runs, _, from, size, align, nil, 0)
// without changing runs. The first keep runs are those of w's last walk,
// which ended at from: their cursors are where it left them, which is
// where a search for from would put them (each range before a cursor
// ends by from, and the one at it starts at from+size or above, size >
// 0). On Y_1 the
// coarse tree's runs, walked for the hint, are the longest a first fit
// walks, and searching them again missed the cache.
func (w *fitWalk) firstFit(runs [][]Comp, from, size, align int64, keep int) int64 {
	n := len(runs)
	next, pos := w.start(runs, from, keep)
	// As long as runs: no bounds checks.
	next, pos, runs = next[:n+1], pos[:n], runs[:n]
	y, end := from, from+size
	for {
		// The first run whose range at the cursor starts below end: it
		// blocks y unless it ends by y, and then the cursor passes it
		// (mostly one range: it gallops only past two). None: y is free.
		r := 0
		for next[r] >= end {
			r++
		}
		if r >= n {
			return y
		}
		run, i := runs[r], pos[r]
		for {
			if h := run[i].Hi; h > y {
				y = AlignUp(h, align)
				end = y + size
				i++
			} else if i++; i < len(run) && run[i].Hi <= y {
				i = endAfterFrom(run, i+1, y)
			}
			if i == len(run) || run[i].Lo >= end {
				break
			}
		}
		pos[r] = i
		next[r] = math.MaxInt64
		if i < len(run) {
			next[r] = run[i].Lo
		}
	}
}
