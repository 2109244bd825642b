package minimalloc

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"
)

// solverParams are upstream's SolverParams, less the timeout (see deadline).
type solverParams struct {
	CanonicalOnly        bool
	SectionInference     bool
	DynamicOrdering      bool
	CheckDominance       bool
	UnallocatedFloor     bool
	StaticPreordering    bool
	DynamicDecomposition bool
	MonotonicFloor       bool
	HatlessPruning       bool
	MinimizeCapacity     bool
	// Heuristics are the static preorders to try, each a string of the
	// letters of preorderLess; several take turns (roundRobin).
	Heuristics []string
}

// defaultParams are upstream's defaults.
func defaultParams() solverParams {
	return solverParams{
		CanonicalOnly: true, SectionInference: true, DynamicOrdering: true, CheckDominance: true,
		UnallocatedFloor: true, StaticPreordering: true, DynamicDecomposition: true,
		MonotonicFloor: true, HatlessPruning: true,
		Heuristics: []string{"WAT", "TAW", "TWA"},
	}
}

// status is the outcome of a search, as upstream's status codes.
type status int

const (
	stOK       status = iota
	stNotFound        // proved: no solution
	stAborted         // the node limit of a round-robin turn ran out
	stDeadline        // the timeout passed, or the context was cancelled
	stBound           // a bounded search met a check its bound cannot settle
)

// preorderData are a buffer's keys for the static preorder.
type preorderData struct {
	area, lower    int64
	overlaps       int64
	sections, size int64
	total          int64
	upper, width   int64
	idx            int
}

// preorderLess is upstream's PreorderingComparator: for each letter of h
// in turn, the first key that differs decides, larger first: A area, C
// sections spanned, L start, O overlaps, T the largest section total, U
// end, W lifespan width, Z size. The buffer index breaks ties, smaller
// first.
func preorderLess(h string, a, b *preorderData) bool { return preorderCmp(h, a, b, nil) < 0 }

// preorderCmp is preorderLess as a comparison (negative: a first).
// total, when not nil, fills in a buffer's T key (negative: not yet
// known) before the key is compared, so that a heuristic whose earlier
// keys seldom tie computes few of them.
func preorderCmp(h string, a, b *preorderData, total func(*preorderData)) int {
	if c := keysCmp(h, a, b, total); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// keysCmp is preorderCmp without the index: zero when every key of h
// ties.
func keysCmp(h string, a, b *preorderData, total func(*preorderData)) int {
	for i := 0; i < len(h); i++ {
		var x, y int64
		switch h[i] {
		case 'A':
			x, y = a.area, b.area
		case 'C':
			x, y = a.sections, b.sections
		case 'L':
			x, y = a.lower, b.lower
		case 'O':
			x, y = a.overlaps, b.overlaps
		case 'T':
			if total != nil {
				total(a)
				total(b)
			}
			x, y = a.total, b.total
		case 'U':
			x, y = a.upper, b.upper
		case 'W':
			x, y = a.width, b.width
		case 'Z':
			x, y = a.size, b.size
		default:
			continue
		}
		if x != y {
			return cmp.Compare(y, x)
		}
	}
	return 0
}

// offsetChange records a buffer's lowest offset before the search
// changed it, to undo the change.
type offsetChange struct {
	idx int
	min int64
}

// sectionRun records n consecutive sections from sec whose floor was v
// before the unallocated floor raised them.
type sectionRun struct {
	sec, n int32
	v      int64
}

// raiseChange records, on an implicit sweep, that buffer o's lowest
// offset was raised, and the entry of solver.tops that set it before
// (-1: none, it was its fixed offset or 0): half the size of an
// offsetChange, in a log of one entry per raise of a whole descent.
type raiseChange struct {
	o, setter int32
}

// undoLog is a stack kept in chunks, so that growing it never copies it
// (nor holds two copies at once).
type undoLog[T any] struct {
	chunks [][]T // all full but the last
	spare  []T   // a chunk let go by truncate, for the next push
}

// undoChunk is the length of an undoLog's chunks after the first.
const undoChunk = 1 << 16

func (l *undoLog[T]) push(v T) {
	if k := len(l.chunks) - 1; k >= 0 && len(l.chunks[k]) < undoChunk {
		l.chunks[k] = append(l.chunks[k], v)
		return
	}
	c := l.spare
	l.spare = nil
	if c == nil {
		c = make([]T, 0, undoChunk)
		if len(l.chunks) == 0 {
			c = make([]T, 0, 16)
		}
	}
	l.chunks = append(l.chunks, append(c, v))
}

// len returns the number of entries.
func (l *undoLog[T]) len() int {
	if len(l.chunks) == 0 {
		return 0
	}
	return (len(l.chunks)-1)*undoChunk + len(l.chunks[len(l.chunks)-1])
}

// last returns the last entry, nil for none.
func (l *undoLog[T]) last() *T {
	if len(l.chunks) == 0 {
		return nil
	}
	c := l.chunks[len(l.chunks)-1]
	if len(c) == 0 {
		return nil
	}
	return &c[len(c)-1]
}

// pop removes and returns the last entry.
func (l *undoLog[T]) pop() T {
	k := len(l.chunks) - 1
	c := l.chunks[k]
	v := c[len(c)-1]
	l.chunks[k] = c[:len(c)-1]
	if len(c) == 1 && k > 0 {
		l.spare = l.chunks[k][:0]
		l.chunks = l.chunks[:k]
	}
	return v
}

// floorRun records n consecutive sections whose floor was v before a
// placement raised them to the top of the buffer placed, to undo it.
type floorRun struct {
	n int32
	v int64
}

// run holds what the searches of one Solve share: the clock, the
// context and the counters.
type run struct {
	ctx        context.Context
	start      time.Time
	timeout    time.Duration // 0: none
	nodes      int64         // search nodes visited
	backtracks int64         // searches that found no solution
	cancelled  bool          // the context was found cancelled
}

// expired reports whether the search must stop: the timeout has passed
// or the context is done.
func (r *run) expired() bool {
	if r.cancelled {
		return true
	}
	if r.ctx.Err() != nil {
		r.cancelled = true
		return true
	}
	return r.timeout > 0 && time.Since(r.start) > r.timeout
}

// solver is upstream's SolverImpl: the search for offsets within one
// capacity.
type solver struct {
	params   *solverParams
	run      *run
	bufs     []buffer
	capacity int64
	sw       *sweepResult

	assign  []int64  // placed offsets, noOffset when unplaced
	sol     []int64  // the solution, partition by partition
	minOffs []int64  // lowest offset each unplaced buffer may take
	floor   []int64  // per section: lowest offset left for its buffers
	total   []int64  // per section: the bytes of its unplaced buffers
	totals  *maxTree // total, on an implicit sweep
	cuts    []int64  // per pair of adjacent sections: buffers spanning both
	cutTree *maxTree // on an implicit sweep: cuts, negated, kept here instead

	nodesLeft int64

	// tree orders the unplaced buffers of the partition being searched;
	// posOf is each buffer's position in the preorder of the last
	// partition whose tree was built with it (setLeaf checks it).
	tree    *orderTree
	treePre []int32 // the partition's buffers in preorder (tree nil: to build)
	// spareTree is a tree let go, whose memory the next may take.
	spareTree *orderTree
	// cands holds the candidates of the small partitions' levels, each
	// level's above its parent's; scanMax is the size from which a
	// partition has a tree (scanLimit, or a test's).
	cands   []candidate
	scanMax int
	posOf   []int32
	// key is, on an implicit sweep, each buffer's lowest offset, absent
	// once placed: what a visit of an overlap reads, in one place.
	key []int64
	// liveEnt and liveLo mark, on an implicit sweep, the places of the
	// unplaced buffers in the interval index's lists: by position in
	// nodeBufs and in byLo (loPos: each buffer's there).
	liveEnt, liveLo []uint64
	loPos           []int32
	keys            []preorderData // allKeys'
	preBuf          []preorderData // preorder's scratch
	permBuf         []int32
	partOf          []int32            // decompose's scratch
	ranks           map[string][]int32 // staticRank's, by heuristic
	// dirty marks the buffers whose leaves await an update (dirtyTree,
	// dirtyMins), listed in treeDirty and minsDirty.
	dirty                []uint8
	treeDirty, minsDirty []int32

	// Scratch: section marks for updateSectionData; the stacks of changes
	// to undo.
	mark     []int64
	stamp    int64
	touched  []int
	offStack []offsetChange
	// On an implicit sweep, raises replaces offStack: tops holds the top
	// of each buffer placed on the current branch, setter the entry of
	// tops that set each buffer's lowest offset (-1: none).
	raises undoLog[raiseChange]
	tops   []int64
	setter []int32
	// secStack records the sections whose floors the unallocated floor
	// raised, as runs of consecutive sections that had one floor before.
	secStack undoLog[sectionRun]
	runStack undoLog[floorRun]
	diff     []int32 // implicit sweep: marks of raised spans, by section
	diffAt   []int32 // implicit sweep: marks of spans raised to exactly the top placed

	// mins holds, on an implicit sweep with unallocated_floor, the lowest
	// minimum offset of the unplaced buffers each node of the interval
	// index lists: node v's are a tournament tree at mins[minsAt[v]:
	// minsAt[v+1]], leaves in the order of v's list.
	mins   []int64
	minsAt []int32

	// maxFloor is at least every section's floor; maxTotal at least
	// every section's total (quick is false where a window could make a
	// total grow): check passes at once when they fit.
	maxFloor, maxTotal int64
	quick              bool
	// plain: no buffer has an alignment above 1 or a fixed offset, so a
	// raise need not read the buffer.
	plain bool

	// bounded: the search keeps no section floors (nor the node
	// minimums, nor the per-section totals) and checks with ub, at least
	// every floor the search would have kept (the tops of the buffers
	// placed, the lowest offsets ever given), giving up (stBound) where
	// that bound does not pass every section at once.
	bounded bool
	ub      int64
	tu      tuning
}

func newSolver(params *solverParams, r *run, bufs []buffer, capacity int64, sw *sweepResult, tu tuning) *solver {
	return &solver{params: params, run: r, bufs: bufs, capacity: capacity, sw: sw, nodesLeft: math.MaxInt64, scanMax: tu.scanMax, tu: tu}
}

// solve is SolverImpl::Solve: one search over every partition in turn
// with a single heuristic and no node limit, or a round robin of them.
//
// On an implicit sweep it first searches bounded: the floors of the
// sections only ever serve check, and while the bound on them passes
// every section, check passes whatever they are, so the search is the
// same without them. A problem with room to spare (one long descent at a
// loose capacity) then never pays for them; where the bound fails, the
// search starts again keeping them, its counters back where they were.
func (s *solver) solve() ([]int64, int64, status) {
	if s.sw.ix == nil || s.tu.floors || s.bounded {
		return s.solveOnce()
	}
	nodes, backtracks := s.run.nodes, s.run.backtracks
	b := newSolver(s.params, s.run, s.bufs, s.capacity, s.sw, s.tu)
	b.bounded = true
	if offs, h, st := b.solveOnce(); st != stBound {
		return offs, h, st
	}
	s.run.nodes, s.run.backtracks = nodes, backtracks
	return s.solveOnce()
}

// solveOnce is solve in one mode, bounded or keeping the floors.
func (s *solver) solveOnce() ([]int64, int64, status) {
	n := len(s.bufs)
	if n == 0 {
		return []int64{}, 0, stOK
	}
	s.assign = make([]int64, n)
	s.sol = make([]int64, n)
	s.minOffs = make([]int64, n)
	s.posOf = make([]int32, n)
	if s.sw.ix != nil {
		s.setter = make([]int32, n)
		for i := range s.setter {
			s.setter[i] = -1
		}
	}
	s.dirty = make([]uint8, n)
	for i := range s.assign {
		s.assign[i], s.sol[i] = noOffset, noOffset
	}
	ns := s.sw.nsec
	s.floor = make([]int64, ns)
	s.total = make([]int64, ns)
	if s.sw.ix == nil {
		s.mark = make([]int64, ns)
	} else {
		s.diff = make([]int32, ns+1)
		s.diffAt = make([]int32, ns+1)
	}
	s.quick, s.plain = true, true
	for i := range s.bufs {
		for _, sp := range s.sw.data[i].spans {
			if sp.win.hi < sp.win.lo {
				s.quick = false
			}
			for k := sp.lo; k < sp.hi; k++ {
				s.total[k] += sp.win.hi - sp.win.lo
			}
		}
		if f := s.bufs[i].fixed; f != noOffset {
			s.minOffs[i] = f
			s.ub = max(s.ub, f)
		}
		s.plain = s.plain && s.bufs[i].fixed == noOffset && s.bufs[i].align == 1
	}
	if ix := s.sw.ix; ix != nil {
		s.key = slices.Clone(s.minOffs)
		s.liveEnt = make([]uint64, (len(ix.nodeBufs)+63)/64)
		s.liveLo = make([]uint64, (n+63)/64)
		s.loPos = make([]int32, n)
		for k, b := range ix.byLo {
			s.loPos[b] = int32(k)
		}
		for i := range n {
			s.setLive(i, true)
		}
	}
	s.cuts = s.sw.cuts()
	if s.sw.ix != nil {
		// A long lifetime's cuts change in O(log) steps, not one a section.
		neg := make([]int64, len(s.cuts))
		for k, c := range s.cuts {
			neg[k] = -c
		}
		s.cutTree = newMaxTree(neg)
	}
	if s.sw.ix != nil && s.params.UnallocatedFloor && !s.bounded {
		s.buildMins()
	}
	for _, t := range s.total {
		s.maxTotal = max(s.maxTotal, t)
	}
	if s.sw.ix != nil {
		s.totals = newMaxTree(s.total)
	}
	if len(s.params.Heuristics) > 1 {
		return s.roundRobin()
	}
	h := s.params.Heuristics[len(s.params.Heuristics)-1]
	for _, pt := range s.sw.parts {
		if st := s.subSolve(&pt, h); st != stOK {
			return nil, 0, st
		}
	}
	return s.sol, s.height(), stOK
}

// roundRobin tries the heuristics in turn, each on every partition with a
// node limit that starts at twice the number of buffers and doubles each
// round, until one finishes. A proof of infeasibility or a timeout ends
// it at once.
func (s *solver) roundRobin() ([]int64, int64, status) {
	limit := int64(len(s.bufs))
	for {
		limit *= 2
		st := stOK
		for _, h := range s.params.Heuristics {
			s.nodesLeft = limit
			st = stOK
			for _, pt := range s.sw.parts {
				st = s.subSolve(&pt, h)
				if st != stOK {
					if st == stAborted {
						break
					}
					return nil, 0, st
				}
			}
			if st == stOK {
				break
			}
		}
		if st == stOK {
			break
		}
	}
	return s.sol, s.height(), stOK
}

// subSolve orders the buffers of pt statically and searches it.
func (s *solver) subSolve(pt *partition, h string) status {
	s.preorder(pt, h)
	// Only the innermost partition's order tree is kept: the one around
	// this is let go, and built again from its preorder and the search's
	// state if its search reads it again (curTree).
	outer := s.treePre
	s.dropTree()
	s.treePre = pt.bufs
	st := s.search(pt, h, 0, 0)
	s.dropTree()
	s.treePre = outer
	return st
}

// preorder puts the buffers of pt in the static preorder of heuristic h
// (leaves them in pt's order without static_preordering). The order of
// pt.bufs matters to nothing else: with static_preordering the preorder
// is a total order, whatever order the buffers came in.
//
// The keys of h before its first T never change, so the buffers are
// first put in order of their rank by those keys (a partition that
// decompose cut from one in h's preorder already is: a check of the
// order, not a sort), and only each run of equal rank is then sorted by
// the rest of h and the index.
func (s *solver) preorder(pt *partition, h string) {
	if !s.params.StaticPreordering {
		return
	}
	rank, rest := s.staticRank(h)
	if rank != nil {
		byRank := func(x, y int32) int { return cmp.Compare(rank[x], rank[y]) }
		if !slices.IsSortedFunc(pt.bufs, byRank) {
			slices.SortFunc(pt.bufs, byRank)
		}
	}
	for lo := 0; lo < len(pt.bufs); {
		hi := len(pt.bufs)
		if rank != nil {
			hi = lo + 1
			for hi < len(pt.bufs) && rank[pt.bufs[hi]] == rank[pt.bufs[lo]] {
				hi++
			}
		}
		if hi-lo > 1 {
			s.sortRest(pt.bufs[lo:hi], rest)
		}
		lo = hi
	}
}

// sortRest sorts bufs by the keys rest (a heuristic's letters from its
// first T) and then by index.
func (s *solver) sortRest(bufs []int32, rest string) {
	pre := s.preBuf[:0]
	keys := s.allKeys()
	for _, i := range bufs {
		pre = append(pre, keys[i])
	}
	// T, the largest total of a buffer's sections, from the tree of
	// totals on an implicit sweep.
	total := func(d *preorderData) {
		if d.total >= 0 {
			return
		}
		var t int64
		for _, sp := range s.sw.data[d.idx].spans {
			if s.totals != nil {
				if sp.lo < sp.hi {
					t = max(t, s.totals.max(sp.lo, sp.hi))
				}
				continue
			}
			for k := sp.lo; k < sp.hi; k++ {
				t = max(t, s.total[k])
			}
		}
		d.total = t
	}
	s.preBuf = pre
	perm := s.permBuf[:0]
	for k := range pre {
		perm = append(perm, int32(k))
	}
	s.permBuf = perm
	slices.SortFunc(perm, func(x, y int32) int { return preorderCmp(rest, &pre[x], &pre[y], total) })
	for k, x := range perm {
		bufs[k] = int32(pre[x].idx)
	}
}

// allKeys returns every buffer's preorder keys, T not yet known,
// computed at the first call: each partition the search makes copies
// its buffers'.
func (s *solver) allKeys() []preorderData {
	if s.keys == nil {
		s.keys = make([]preorderData, len(s.bufs))
		for i := range s.keys {
			s.keys[i] = s.staticKeys(i)
		}
	}
	return s.keys
}

// staticKeys returns buffer i's preorder keys, T not yet known.
func (s *solver) staticKeys(i int) preorderData {
	b := &s.bufs[i]
	d := &s.sw.data[i]
	return preorderData{
		area:     b.size * (b.upper - b.lower),
		lower:    b.lower,
		overlaps: d.nOver,
		sections: int64(d.spans[len(d.spans)-1].hi - d.spans[0].lo),
		size:     b.size,
		total:    -1, // known when the sort asks
		upper:    b.upper,
		width:    b.upper - b.lower,
		idx:      i,
	}
}

// staticRank returns, for heuristic h, every buffer's rank by the keys
// of h before its first T (equal keys, equal rank), and the rest of h
// from that T; a nil rank when h starts with T.
func (s *solver) staticRank(h string) ([]int32, string) {
	t := strings.IndexByte(h, 'T')
	if t < 0 {
		t = len(h)
	}
	if t == 0 {
		return nil, h
	}
	if r, ok := s.ranks[h]; ok {
		return r, h[t:]
	}
	keys := s.allKeys()
	perm := make([]int32, len(s.bufs))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(x, y int32) int { return keysCmp(h[:t], &keys[x], &keys[y], nil) })
	rank := make([]int32, len(s.bufs))
	for k := 1; k < len(perm); k++ {
		rank[perm[k]] = rank[perm[k-1]]
		if keysCmp(h[:t], &keys[perm[k-1]], &keys[perm[k]], nil) != 0 {
			rank[perm[k]]++
		}
	}
	if s.ranks == nil {
		s.ranks = map[string][]int32{}
	}
	s.ranks[h] = rank
	return rank, h[t:]
}

// maxTree keeps the section totals of an implicit sweep, for the T
// keys of the preorders of the partitions the search makes as it goes:
// a segment tree whose node holds the largest value below it, its own
// additions included, so that adding to a range of sections (a
// placement, its undoing) and reading a range's largest take O(log)
// steps rather than one per section.
type maxTree struct {
	size    int
	mx, add []int64 // add: what was added to all of a node's leaves
}

// newMaxTree returns the tree of v.
func newMaxTree(v []int64) *maxTree {
	t := &maxTree{size: 1}
	for t.size < max(len(v), 1) {
		t.size *= 2
	}
	t.mx = make([]int64, 2*t.size)
	t.add = make([]int64, t.size)
	for x := range t.size {
		t.mx[t.size+x] = math.MinInt64 / 4 // no section
		if x < len(v) {
			t.mx[t.size+x] = v[x]
		}
	}
	for x := t.size - 1; x >= 1; x-- {
		t.mx[x] = max(t.mx[2*x], t.mx[2*x+1])
	}
	return t
}

// addRange adds d to the values of [l, r), l < r.
func (t *maxTree) addRange(l, r int, d int64) {
	coverNodes(t.size, l, r, func(v int) {
		t.mx[v] += d
		if v < t.size {
			t.add[v] += d
		}
	})
	t.fix(l + t.size)
	t.fix(r - 1 + t.size)
}

// fix recomputes the ancestors of node v.
func (t *maxTree) fix(v int) {
	for v /= 2; v >= 1; v /= 2 {
		t.mx[v] = max(t.mx[2*v], t.mx[2*v+1]) + t.add[v]
	}
}

// eachAtLeast calls f, in order, for each k in [l, r) whose value is at
// least m, descending only into nodes whose largest value is.
func (t *maxTree) eachAtLeast(l, r int, m int64, f func(k int)) {
	t.find(1, 0, t.size, l, r, m, f)
}

// find is eachAtLeast within node v, which spans [nl, nr), m less the
// additions of v's ancestors.
func (t *maxTree) find(v, nl, nr, l, r int, m int64, f func(k int)) {
	if nr <= l || r <= nl || t.mx[v] < m {
		return
	}
	if v >= t.size {
		f(nl)
		return
	}
	mid := (nl + nr) / 2
	t.find(2*v, nl, mid, l, r, m-t.add[v], f)
	t.find(2*v+1, mid, nr, l, r, m-t.add[v], f)
}

// max returns the largest value of [l, r), l < r: from the root down to
// the node where [l, r) splits, then down each side, a loop rather than
// a recursion (the T keys of a preorder read one a buffer).
func (t *maxTree) max(l, r int) int64 {
	v, nl, nr := 1, 0, t.size
	var acc int64 // the additions of v's ancestors
	for v < t.size && !(l <= nl && nr <= r) {
		m := (nl + nr) / 2
		if l < m && m < r {
			break
		}
		acc += t.add[v]
		if r <= m {
			v, nr = 2*v, m
		} else {
			v, nl = 2*v+1, m
		}
	}
	if l <= nl && nr <= r {
		return t.mx[v] + acc
	}
	acc += t.add[v]
	m := (nl + nr) / 2
	return max(t.edge(2*v, nl, m, l, r, acc), t.edge(2*v+1, m, nr, l, r, acc))
}

// edge returns the largest value of [l, r) below node u, which spans
// [ul, ur), holds one end of [l, r) and lies inside it on the other
// side; a is the additions of u's ancestors. At each level one child is
// inside [l, r) or outside it and the other holds the end.
func (t *maxTree) edge(u, ul, ur, l, r int, a int64) int64 {
	res := int64(math.MinInt64 / 4)
	for !(l <= ul && ur <= r) {
		a += t.add[u]
		um := (ul + ur) / 2
		switch {
		case l <= ul && um < r: // the left child inside
			res = max(res, t.mx[2*u]+a)
			u, ul = 2*u+1, um
		case ur <= r && l < um: // the right child inside
			res = max(res, t.mx[2*u+1]+a)
			u, ur = 2*u, um
		case l >= um: // the left child outside
			u, ul = 2*u+1, um
		default: // the right child outside
			u, ur = 2*u, um
		}
	}
	return max(res, t.mx[u]+a)
}

// updateMinOffsets raises the lowest offset of every unplaced buffer that
// overlaps buffer i, just placed, to i's offset plus i's effective size
// below it, rounded up to its alignment. It pushes the changes on
// s.offStack and reports whether
// i has any unplaced overlap at all (hatless: none), whether a fixed
// buffer was pushed above its offset, and, with unallocated_floor, marks
// the sections of the raised buffers (s.touched, in no particular order:
// updateSectionData treats each section apart).
func (s *solver) updateMinOffsets(i int) (hatless, fixedFail bool) {
	if s.sw.ix != nil {
		return s.updateMinOffsetsImplicit(i)
	}
	hatless = true
	off := s.assign[i]
	if s.params.UnallocatedFloor {
		s.stamp++
		s.touched = s.touched[:0]
	}
	for _, ov := range s.sw.data[i].overlaps {
		o := ov.idx
		if s.assign[o] != noOffset {
			continue
		}
		hatless = false
		// raise, by hand: this loop is the search's hottest on small problems
		h := off + ov.eff
		if s.minOffs[o] >= h {
			continue
		}
		s.offStack = append(s.offStack, offsetChange{o, s.minOffs[o]})
		s.minOffs[o] = h
		ob := &s.bufs[o]
		if d := alignGap(s.minOffs[o], ob.align); d > 0 {
			s.minOffs[o] += ob.align - d
		}
		if ob.fixed != noOffset && s.minOffs[o] > ob.fixed {
			fixedFail = true
		}
		s.changed(o)
		if !s.params.UnallocatedFloor {
			continue
		}
		for _, sp := range s.sw.data[o].spans {
			for k := sp.lo; k < sp.hi; k++ {
				if s.mark[k] != s.stamp {
					s.mark[k] = s.stamp
					s.touched = append(s.touched, k)
				}
			}
		}
	}
	return hatless, fixedFail
}

// alignGap is off % align, without a division where align is 1 (a
// division on every raise and every undo of one is a good part of a
// long descent's time).
func alignGap(off, align int64) int64 {
	if align == 1 {
		return 0
	}
	return off % align
}

// raise lifts the lowest offset of unplaced buffer o, below h (the last
// of s.tops), to h rounded up to o's alignment, recording the change on
// s.raises, and sets *fixedFail when o's fixed offset is now too low.
func (s *solver) raise(o int, h int64, fixedFail *bool) {
	s.raises.push(raiseChange{int32(o), s.setter[o]})
	s.setter[o] = int32(len(s.tops) - 1)
	if !s.plain {
		ob := &s.bufs[o]
		if d := alignGap(h, ob.align); d > 0 {
			h += ob.align - d
		}
		if ob.fixed != noOffset && h > ob.fixed {
			*fixedFail = true
		}
	}
	s.ub = max(s.ub, h)
	s.setMin(o, h)
}

// setMin sets the lowest offset of unplaced buffer o, on an implicit
// sweep, to m.
func (s *solver) setMin(o int, m int64) {
	s.minOffs[o], s.key[o] = m, m
	s.markDirty(o)
}

// updateMinOffsetsImplicit is updateMinOffsets on an implicit sweep: i's
// overlaps are the buffers whose span holds i's first section and those
// whose span starts inside i's, each i's size above it. Every raised
// span meets i's, so their union is the run from the lowest start to i's
// start, the sections of i some raised span holds, and the run from i's
// end to the highest end.
//
// Of those sections it lists in s.touched only the ones whose floor may
// still rise. A section that a buffer raised to exactly h, the top of i,
// spans keeps its floor if that floor is at least h, as the floors of
// i's own sections will be (updateSectionData sets them to h): the
// buffer's offset, h, is at or below it.
func (s *solver) updateMinOffsetsImplicit(i int) (hatless, fixedFail bool) {
	hatless = true
	ix := s.sw.ix
	off := s.assign[i]
	h := off + s.bufs[i].size
	s.tops = append(s.tops, h)
	floor := s.params.UnallocatedFloor && !s.bounded
	ilo, ihi := ix.lo[i], ix.hi[i]
	rlo, rhi := ilo, ihi
	visit := func(o int32) {
		k := s.key[o]
		if k == absent {
			return // placed
		}
		hatless = false
		if k >= h { // key is the lowest offset of an unplaced buffer
			return
		}
		s.raise(int(o), h, &fixedFail)
		if !floor {
			return
		}
		lo, hi := ix.lo[o], ix.hi[o]
		rlo, rhi = min(rlo, lo), max(rhi, hi)
		s.diff[lo]++
		s.diff[hi]--
		if s.minOffs[o] == h {
			s.diffAt[lo]++
			s.diffAt[hi]--
		}
	}
	// Half the buffers listed are placed, on average, over a descent:
	// the live marks skip them 64 at a time.
	scan := func(live []uint64, list []int32, lo, hi int) {
		for w := lo >> 6; w<<6 < hi; w++ {
			word := live[w]
			if w<<6 < lo {
				word &= ^uint64(0) << (lo & 63)
			}
			if (w+1)<<6 > hi {
				word &= ^uint64(0) >> (64 - hi&63)
			}
			for ; word != 0; word &= word - 1 {
				visit(list[w<<6+bits.TrailingZeros64(word)])
			}
		}
	}
	for v := int(ilo) + ix.size; v >= 1; v /= 2 {
		scan(s.liveEnt, ix.nodeBufs, int(ix.nodeAt[v]), int(ix.nodeAt[v+1]))
	}
	byLo := func(t int32) int {
		k, _ := slices.BinarySearchFunc(ix.byLo, t, func(b, t int32) int { return cmp.Compare(ix.lo[b], t) })
		return k
	}
	scan(s.liveLo, ix.byLo, byLo(ilo+1), byLo(ihi))
	if !floor {
		return hatless, fixedFail
	}
	s.touched = s.touched[:0]
	var c, at int32
	for k := rlo; k < rhi; k++ {
		c += s.diff[k]
		at += s.diffAt[k]
		s.diff[k], s.diffAt[k] = 0, 0
		if c == 0 {
			continue
		}
		f := h // i's sections
		if k < ilo || k >= ihi {
			f = s.floor[k]
		}
		if at == 0 || f < h {
			s.touched = append(s.touched, int(k))
		}
	}
	s.diff[rhi], s.diffAt[rhi] = 0, 0
	return hatless, fixedFail
}

// updateSectionData raises the floor of each section buffer i spans to
// the top of its window there and takes its bytes off the section's
// total, pushing the old floors on s.runStack; then raises the floor of
// each marked section to the lowest offset any of its unplaced buffers
// may take, pushing the changes on s.secStack.
func (s *solver) updateSectionData(i int) {
	if s.bounded {
		s.addTotals(i, -1)
		return
	}
	off := s.assign[i]
	runTop, secTop := s.runStack.len(), s.secStack.len()
	for _, sp := range s.sw.data[i].spans {
		h := off + sp.win.hi
		if sp.lo < sp.hi {
			s.maxFloor = max(s.maxFloor, h)
		}
		for k := sp.lo; k < sp.hi; k++ {
			if t := s.runStack.last(); s.runStack.len() > runTop && t.v == s.floor[k] {
				t.n++
			} else {
				s.runStack.push(floorRun{1, s.floor[k]})
			}
			s.floor[k] = h
			s.total[k] -= sp.win.hi - sp.win.lo
		}
	}
	s.addTotals(i, -1)
	if !s.params.UnallocatedFloor {
		return
	}
	if s.mins != nil && len(s.touched) > 0 {
		s.flushMins()
	}
	for _, k := range s.touched {
		// The floor rises only when every unplaced buffer's minimum offset
		// is above it, so the first at or below it settles the question.
		var lo int64
		if s.sw.ix != nil {
			lo = s.sectionMin(k)
		} else {
			lo = math.MaxInt64
			for _, o := range s.sw.secBufs[s.sw.secStart[k]:s.sw.secStart[k+1]] {
				if s.assign[o] == noOffset {
					lo = min(lo, s.minOffs[o])
					if lo <= s.floor[k] {
						break
					}
				}
			}
		}
		if lo != math.MaxInt64 && s.floor[k] < lo {
			if r := s.secStack.last(); s.secStack.len() > secTop && r.v == s.floor[k] && int(r.sec+r.n) == k {
				r.n++
			} else {
				s.secStack.push(sectionRun{int32(k), 1, s.floor[k]})
			}
			s.floor[k] = lo
			s.maxFloor = max(s.maxFloor, lo)
		}
	}
}

// setLive marks buffer i's places in the interval index's lists live
// (unplaced) or not.
func (s *solver) setLive(i int, live bool) {
	ix := s.sw.ix
	set := func(w []uint64, p int32) {
		if live {
			w[p>>6] |= 1 << (p & 63)
		} else {
			w[p>>6] &^= 1 << (p & 63)
		}
	}
	for e := ix.entAt[i]; e < ix.entAt[i+1]; e++ {
		set(s.liveEnt, ix.entPos[e])
	}
	set(s.liveLo, s.loPos[i])
}

// addTotals adds sign times buffer i's bytes to the tree of totals (none
// on a stored sweep): -1 as it is placed, 1 as that is undone.
func (s *solver) addTotals(i int, sign int64) {
	if s.totals != nil {
		s.addTotalsTree(i, sign)
	}
}

// addTotalsTree is addTotals where there is a tree.
func (s *solver) addTotalsTree(i int, sign int64) {
	for _, sp := range s.sw.data[i].spans {
		if sp.lo < sp.hi {
			s.totals.addRange(sp.lo, sp.hi, sign*(sp.win.hi-sp.win.lo))
		}
	}
}

// sectionMin returns, on an implicit sweep, the lowest minimum offset of
// section k's unplaced buffers (MaxInt64 for none): the least of the
// node minimums on the path from k's leaf of the interval index to its
// root.
func (s *solver) sectionMin(k int) int64 {
	lo := int64(math.MaxInt64)
	for v := k + s.sw.ix.size; v >= 1; v /= 2 {
		if a := s.minsAt[v]; a < s.minsAt[v+1] {
			lo = min(lo, s.mins[a+1])
		}
	}
	return lo
}

// restoreSectionData undoes updateSectionData for buffer i, popping the
// changes above secTop and runTop.
func (s *solver) restoreSectionData(secTop, runTop, i int) {
	s.addTotals(i, 1)
	if s.bounded {
		return
	}
	for s.secStack.len() > secTop {
		r := s.secStack.pop()
		for k := r.sec; k < r.sec+r.n; k++ {
			s.floor[k] = r.v
		}
	}
	spans := s.sw.data[i].spans
	for x := len(spans) - 1; x >= 0; x-- {
		sp := spans[x]
		for k := sp.hi - 1; k >= sp.lo; k-- {
			t := s.runStack.last()
			s.floor[k] = t.v
			if t.n--; t.n == 0 {
				s.runStack.pop()
			}
			s.total[k] += sp.win.hi - sp.win.lo
		}
	}
	if s.runStack.len() != runTop {
		panic("minimalloc: floor runs out of step")
	}
}

// restoreMinOffsets undoes updateMinOffsets, popping the changes above
// top.
func (s *solver) restoreMinOffsets(top int) {
	if s.sw.ix != nil {
		// A raised buffer's offset was its setter's top rounded up to its
		// alignment, or its fixed offset or 0.
		for s.raises.len() > top {
			c := s.raises.pop()
			o := int(c.o)
			s.setter[o] = c.setter
			var m int64 // plain: no fixed offset
			switch {
			case c.setter < 0 && !s.plain:
				m = max(s.bufs[o].fixed, 0)
			case c.setter >= 0:
				m = s.tops[c.setter]
				if !s.plain {
					if d := alignGap(m, s.bufs[o].align); d > 0 {
						m += s.bufs[o].align - d
					}
				}
			}
			s.setMin(o, m)
		}
		s.tops = s.tops[:len(s.tops)-1]
		return
	}
	for c := len(s.offStack) - 1; c >= top; c-- {
		s.minOffs[s.offStack[c].idx] = s.offStack[c].min
		s.changed(s.offStack[c].idx)
	}
	s.offStack = s.offStack[:top]
}

// check is the inference test after placing a buffer at off: in every
// section of pt, the floor (at least off, with monotonic_floor) plus the
// bytes still to place there (with section_inference) must fit the
// capacity.
func (s *solver) check(pt *partition, off int64) bool {
	if s.quick {
		f := s.maxFloor
		if s.params.MonotonicFloor {
			f = max(off, f)
		}
		if s.params.SectionInference {
			f += s.maxTotal
		}
		if f <= s.capacity {
			return true // every section passes
		}
	}
	for k := pt.lo; k < pt.hi; k++ {
		f := s.floor[k]
		if s.params.MonotonicFloor {
			f = max(off, f)
		}
		if s.params.SectionInference {
			f += s.total[k]
		}
		if s.capacity < f {
			return false
		}
	}
	return true
}

// checkBound is check's quick test with ub for the largest floor: true
// when it passes every section, as check would then.
func (s *solver) checkBound(off int64) bool {
	f := s.ub
	if s.params.MonotonicFloor {
		f = max(off, f)
	}
	if s.params.SectionInference {
		f += s.maxTotal
	}
	return f <= s.capacity
}

// candidate is a buffer a small partition's search level may place: its
// lowest offset and its position in the preorder.
type candidate struct {
	off int64
	p   int32
}

// scanLimit is the number of buffers below which a partition's levels
// list their order afresh rather than keep a tree.
const scanLimit = 1024

// orderTree keeps the unplaced buffers of one partition in upstream's
// dynamic order, lowest offset first and then earlier in the preorder,
// without listing them at every level: a tournament tree over preorder
// positions holds at each node its leaves' lowest offset and lowest
// offset plus size. A placement or a change of a lowest offset updates
// one path, stopping where a node does not change; upstream's order at a
// level is read from the tree as the successors of the level's first
// key, the tree being back in the level's state whenever the level reads
// it again.
//
// The nodes hold no position: a left subtree's positions all come before
// its sibling's, so the least key of a node is its least offset at the
// leftmost leaf that holds it (leftmost), which the few nodes succ
// returns find by one descent. So a node is 16 bytes (four to a cache
// line) and an update compares nothing but the two minimums.
type orderTree struct {
	pre  []int32    // buffers by preorder position
	size int        // leaves: a power of two at least len(pre)
	n    []treeNode // the nodes, root at 1, leaves from size
}

// treeNode is a node of an orderTree.
type treeNode struct {
	off int64 // lowest offset of a present leaf (absent: none)
	top int64 // lowest offset plus size of a present leaf
}

// absent is the key of a tree node with no unplaced buffer.
const absent = math.MaxInt64

// newOrderTree builds the tree of the buffers pre from the search's
// state.
func (s *solver) newOrderTree(pre []int32) *orderTree {
	t := &orderTree{pre: pre, size: 1}
	for t.size < len(pre) {
		t.size *= 2
	}
	if sp := s.spareTree; sp != nil && cap(sp.n) >= 2*t.size {
		t.n = sp.n[:2*t.size]
	} else {
		t.n = make([]treeNode, 2*t.size)
	}
	s.spareTree = nil
	for v := t.size; v < 2*t.size; v++ {
		t.n[v] = treeNode{off: absent, top: absent}
	}
	for k, i := range pre {
		v := t.size + k
		s.posOf[i] = int32(k)
		if s.assign[i] == noOffset {
			t.n[v].off, t.n[v].top = s.minOffs[i], s.minOffs[i]+s.bufs[i].size
		}
	}
	for v := t.size - 1; v >= 1; v-- {
		t.pull(v)
	}
	return t
}

// pull recomputes node v from its children and reports whether it
// changed.
func (t *orderTree) pull(v int) bool {
	// Two minimums, no branch on which child holds them: that is a coin
	// toss the branch predictor loses (Y_1: 283 million pulls).
	c := t.n[2*v : 2*v+2 : 2*v+2]
	off, top, p := min(c[0].off, c[1].off), min(c[0].top, c[1].top), &t.n[v]
	if p.off == off && p.top == top {
		return false
	}
	p.off, p.top = off, top
	return true
}

// succ returns the least key (offset, position) at or after (a, b) in
// the tree, offset absent for none.
func (t *orderTree) succ(a int64, b int32) (int64, int32) {
	o, v := t.succIn(1, 0, a, b)
	if o == absent {
		return absent, 0
	}
	return o, t.leftmost(v)
}

// succIn returns the least offset of the keys at or after (a, b) in the
// subtree of node v, whose first leaf is at position nl, and the node
// whose leftmost leaf holds the least key; offset absent for none. It
// descends only into nodes whose least key may lie before (a, b): the
// ancestors of the buffers the canonical rule has left behind, and those
// of position b.
func (t *orderTree) succIn(v, nl int, a int64, b int32) (int64, int) {
	if o := t.n[v].off; o > a || o == a && nl >= int(b) {
		return o, v
	}
	if v >= t.size {
		return absent, 0
	}
	w := t.size >> (bits.Len(uint(v)) - 1) // leaves below v
	lo, lv := t.succIn(2*v, nl, a, b)
	ro, rv := t.succIn(2*v+1, nl+w/2, a, b)
	if ro < lo { // on a tie the left one's position comes first
		return ro, rv
	}
	return lo, lv
}

// leftmost returns the position of the leftmost leaf below node v that
// holds v's offset.
func (t *orderTree) leftmost(v int) int32 {
	for v < t.size {
		v *= 2
		if t.n[v].off != t.n[v/2].off {
			v++
		}
	}
	return int32(v - t.size)
}

// changed brings the structures that mirror the search's state up to
// date after buffer i was placed, unplaced or had its minimum offset
// changed: key at once, the order tree and the node minimums.
//
// The update waits until a structure is read (flushTree, flushMins):
// the changes undone after a search that succeeded are never read.
func (s *solver) changed(i int) {
	// Inlined where it is called: a stored sweep's small partitions have
	// none of these structures, and a call a raise is 4% of A–K's
	// instructions. The node minimums exist only beside key (an implicit
	// sweep).
	if s.key != nil || s.tree != nil {
		s.mirror(i)
	}
}

// mirror is changed where some structure mirrors the state.
func (s *solver) mirror(i int) {
	if s.key != nil {
		s.key[i] = absent
		if s.assign[i] == noOffset {
			s.key[i] = s.minOffs[i]
		}
	}
	s.markDirty(i)
}

// markDirty marks buffer i's leaves in the order tree and the node
// minimums, where there are such, to update.
func (s *solver) markDirty(i int) {
	if s.tree != nil && s.dirty[i]&dirtyTree == 0 {
		s.dirty[i] |= dirtyTree
		s.treeDirty = append(s.treeDirty, int32(i))
	}
	if s.mins != nil && s.dirty[i]&dirtyMins == 0 {
		s.dirty[i] |= dirtyMins
		s.minsDirty = append(s.minsDirty, int32(i))
	}
}

// Bits of solver.dirty: the buffer's leaf in the order tree, or in the
// node minimums, awaits an update.
const (
	dirtyTree = 1 << iota
	dirtyMins
)

// flushTree brings the order tree up to date; with drop, it forgets the
// changes instead (the tree is being discarded).
func (s *solver) flushTree(drop bool) {
	for _, i := range s.treeDirty {
		s.dirty[i] &^= dirtyTree
		if !drop {
			s.setLeaf(int(i))
		}
	}
	s.treeDirty = s.treeDirty[:0]
}

// dropTree lets the order tree go, keeping its memory for the next.
func (s *solver) dropTree() {
	s.flushTree(true)
	if s.tree != nil && (s.spareTree == nil || cap(s.tree.n) > cap(s.spareTree.n)) {
		s.spareTree = s.tree
	}
	s.tree = nil
}

// curTree returns the current partition's order tree, up to date, built
// from the search's state if it was let go.
func (s *solver) curTree() *orderTree {
	if s.tree == nil {
		s.tree = s.newOrderTree(s.treePre)
	} else {
		s.flushTree(false)
	}
	return s.tree
}

// flushMins brings the node minimums up to date.
func (s *solver) flushMins() {
	for _, i := range s.minsDirty {
		s.dirty[i] &^= dirtyMins
		s.setMins(int(i))
	}
	s.minsDirty = s.minsDirty[:0]
}

// buildMins builds s.mins from the search's state, all unplaced.
func (s *solver) buildMins() {
	ix := s.sw.ix
	s.minsAt = make([]int32, len(ix.nodeAt))
	for v := range len(ix.nodeAt) - 1 {
		p := int32(1)
		for p < ix.nodeAt[v+1]-ix.nodeAt[v] {
			p *= 2
		}
		if ix.nodeAt[v+1] == ix.nodeAt[v] {
			p = 0
		}
		s.minsAt[v+1] = s.minsAt[v] + 2*p
	}
	s.mins = make([]int64, s.minsAt[len(s.minsAt)-1])
	for v := range len(ix.nodeAt) - 1 {
		t := s.mins[s.minsAt[v]:s.minsAt[v+1]]
		p := len(t) / 2
		for x := range t {
			t[x] = absent
		}
		for k, b := range ix.nodeBufs[ix.nodeAt[v]:ix.nodeAt[v+1]] {
			t[p+k] = s.minOffs[b]
		}
		for x := p - 1; x >= 1; x-- {
			t[x] = min(t[2*x], t[2*x+1])
		}
	}
}

// setMins refreshes buffer i's leaf in the tournament of every node that
// lists it, and the paths above.
func (s *solver) setMins(i int) {
	ix := s.sw.ix
	val := int64(absent)
	if s.assign[i] == noOffset {
		val = s.minOffs[i]
	}
	for e := ix.entAt[i]; e < ix.entAt[i+1]; e++ {
		v := ix.entNode[e]
		t := s.mins[s.minsAt[v]:s.minsAt[v+1]]
		x := len(t)/2 + int(ix.entPos[e]-ix.nodeAt[v])
		if t[x] == val {
			continue
		}
		t[x] = val
		for x > 1 {
			x /= 2
			m := min(t[2*x], t[2*x+1])
			if t[x] == m {
				break
			}
			t[x] = m
		}
	}
}

// setLeaf refreshes buffer i's leaf in the current partition's tree from
// the search's state (placed: absent) and the path above it. A buffer
// outside the partition is left alone: its own partition's tree is back
// in step by the time that partition reads it again.
func (s *solver) setLeaf(i int) {
	t := s.tree
	k := s.posOf[i]
	if t == nil || int(k) >= len(t.pre) || int(t.pre[k]) != i {
		return
	}
	v := t.size + int(k)
	if s.assign[i] != noOffset {
		t.n[v].off, t.n[v].top = absent, absent
	} else {
		t.n[v].off, t.n[v].top = s.minOffs[i], s.minOffs[i]+s.bufs[i].size
	}
	for v /= 2; v >= 1 && t.pull(v); v /= 2 {
	}
}

// search is upstream's SearchSolutions: a depth-first search that places
// one buffer per level at its lowest offset, trying the unplaced buffers
// of pt in the dynamic order (by preorder alone without
// dynamic_ordering). (minOffset, minPre) is the key of the buffer the
// level above placed, the start of the canonical order here.
func (s *solver) search(pt *partition, h string, minOffset int64, minPre int) status {
	if s.nodesLeft <= 0 {
		return stAborted
	}
	s.nodesLeft--
	s.run.nodes++
	if s.run.expired() {
		return stDeadline
	}
	// A small partition's order is listed afresh at every level, as
	// upstream does (cheaper there than the tree's updates); a large
	// one's is read from its tree.
	pre := s.treePre
	small := len(pre) < s.scanMax
	var t *orderTree
	var minHeight int64
	base := len(s.cands)
	var cands []candidate
	if small {
		minHeight = math.MaxInt64
		for _, i := range pre {
			if s.assign[i] == noOffset {
				minHeight = min(minHeight, s.minOffs[i]+s.bufs[i].size)
			}
		}
		if minHeight == math.MaxInt64 {
			for _, i := range pt.bufs {
				s.sol[i] = s.assign[i]
			}
			return stOK
		}
		for k, i := range pre {
			if s.assign[i] != noOffset {
				continue
			}
			off := s.minOffs[i]
			if s.params.DynamicOrdering && (s.params.CanonicalOnly && (off < minOffset || off == minOffset && k < minPre) ||
				s.params.CheckDominance && off >= minHeight) {
				continue // skipped below too: not worth sorting
			}
			s.cands = append(s.cands, candidate{off, int32(k)})
		}
		cands = s.cands[base:]
		if s.params.DynamicOrdering {
			slices.SortFunc(cands, func(x, y candidate) int {
				if x.off != y.off {
					return cmp.Compare(x.off, y.off)
				}
				return cmp.Compare(x.p, y.p)
			})
		}
	} else {
		t = s.curTree()
		if t.n[1].off == absent {
			for _, i := range pt.bufs {
				s.sol[i] = s.assign[i]
			}
			return stOK
		}
		minHeight = t.n[1].top
	}
	// The candidates in upstream's order: with dynamic_ordering the
	// successors of the canonical start (the buffers before it are the
	// ones the canonical rule skips; at or above minHeight the dominance
	// rule skips all the rest); without it every position in turn.
	a, b := int64(math.MinInt64), int32(0)
	if s.params.CanonicalOnly {
		a, b = minOffset, int32(minPre)
	}
levels:
	for x, next := 0, int32(0); ; {
		var off int64
		var p int32
		switch {
		case small:
			if x == len(cands) {
				break levels
			}
			off, p = cands[x].off, cands[x].p
			x++
			if s.params.CanonicalOnly && (off < minOffset || off == minOffset && int(p) < minPre) {
				continue
			}
			if s.params.CheckDominance && off >= minHeight {
				continue
			}
		case s.params.DynamicOrdering:
			t = s.curTree()
			off, p = t.succ(a, b)
			if off == absent || s.params.CheckDominance && off >= minHeight {
				break levels
			}
			a, b = off, p+1
		default:
			for int(next) < len(pre) && s.assign[pre[next]] != noOffset {
				next++
			}
			if int(next) == len(pre) {
				break levels
			}
			p = next
			next++
			off = s.minOffs[pre[p]]
			if s.params.CanonicalOnly && (off < minOffset || off == minOffset && int(p) < minPre) {
				continue
			}
			if s.params.CheckDominance && off >= minHeight {
				continue
			}
		}
		i := int(pre[p])
		if f := s.bufs[i].fixed; f != noOffset && off > f {
			continue
		}
		s.assign[i] = off
		s.changed(i)
		if s.key != nil {
			s.setLive(i, false)
		}
		offTop, secTop, runTop, maxFloor, ub := len(s.offStack)+s.raises.len(), s.secStack.len(), s.runStack.len(), s.maxFloor, s.ub
		s.ub = max(s.ub, off+s.bufs[i].size)
		hatless, fixedFail := s.updateMinOffsets(i)
		s.updateSectionData(i)
		st := stNotFound
		pass := !fixedFail
		switch {
		case pass && s.bounded && !s.checkBound(off):
			st, pass = stBound, false
		case pass && !s.bounded:
			pass = s.check(pt, off)
		}
		if pass {
			if s.params.DynamicDecomposition {
				st = s.decompose(pt, h, off, int(p), i)
			} else {
				st = s.search(pt, h, off, int(p))
			}
		}
		s.restoreSectionData(secTop, runTop, i)
		s.restoreMinOffsets(offTop) // none when hatless
		s.assign[i] = noOffset
		s.changed(i)
		if s.key != nil {
			s.setLive(i, true)
		}
		s.maxFloor, s.ub = maxFloor, ub
		if st != stNotFound {
			s.cands = s.cands[:base]
			return st
		}
		if hatless && s.params.HatlessPruning {
			break
		}
	}
	s.cands = s.cands[:base]
	s.run.backtracks++
	return stNotFound
}

// decompose is upstream's DynamicallyDecompose: placing buffer i ends the
// cuts it held; where a cut inside pt drops to zero, the unplaced buffers
// on each side are solved apart, each part a new search.
func (s *solver) decompose(pt *partition, h string, minOffset int64, minPre int, i int) status {
	s.sol[i] = s.assign[i]
	cutpoints := []int{pt.lo}
	spans := s.sw.data[i].spans
	lo, hi := spans[0].lo, spans[len(spans)-1].hi
	switch {
	case s.cutTree != nil && lo+1 < hi:
		s.cutTree.addRange(lo, hi-1, 1)
		s.cutTree.eachAtLeast(lo, hi-1, 0, func(k int) { cutpoints = append(cutpoints, k+1) })
	case s.cutTree == nil:
		for k := lo; k+1 < hi; k++ {
			s.cuts[k]--
			if s.cuts[k] == 0 {
				cutpoints = append(cutpoints, k+1)
			}
		}
	}
	st := stOK
	if len(cutpoints) == 1 {
		st = s.search(pt, h, minOffset, minPre)
	} else {
		cutpoints = append(cutpoints, pt.hi)
		// Each part holds the unplaced buffers of pt whose lifetime meets
		// its sections, in pt's order: one pass over pt, each buffer
		// going to the parts it meets (one, unless it crosses a cut).
		// The parts stay alive while the search below runs, as deep as
		// the descent: they share one array, counted first, not grown.
		// An unplaced buffer lies in one part: no cut at zero crosses its
		// lifetime, which counts in every cut it spans.
		at := make([]int, len(cutpoints)+1)
		partOf := slices.Grow(s.partOf[:0], len(pt.bufs))
		ix := s.sw.ix
		for _, o := range pt.bufs {
			if s.assign[o] != noOffset {
				partOf = append(partOf, -1)
				continue
			}
			var olo int
			if ix != nil {
				olo = int(ix.lo[o])
			} else {
				olo = s.sw.data[o].spans[0].lo
			}
			c, _ := slices.BinarySearch(cutpoints[1:], olo+1) // the first part that ends after olo
			partOf = append(partOf, int32(c+1))
			at[c+2]++
		}
		s.partOf = partOf
		for c := 1; c < len(at); c++ {
			at[c] += at[c-1]
		}
		all := make([]int32, at[len(at)-1])
		parts := make([][]int32, len(cutpoints))
		for c := range parts {
			parts[c] = all[at[c]:at[c]:at[c+1]]
		}
		for k, c := range partOf {
			if c >= 0 {
				parts[c] = append(parts[c], pt.bufs[k])
			}
		}
		for c := 1; c < len(cutpoints); c++ {
			if len(parts[c]) == 0 {
				continue
			}
			sub := partition{bufs: parts[c], lo: cutpoints[c-1], hi: cutpoints[c]}
			if st = s.subSolve(&sub, h); st != stOK {
				break
			}
		}
	}
	switch {
	case s.cutTree != nil && lo+1 < hi:
		s.cutTree.addRange(lo, hi-1, -1)
	case s.cutTree == nil:
		for k := lo; k+1 < hi; k++ {
			s.cuts[k]++
		}
	}
	return st
}

// height is the solution's top: max(offset + size).
func (s *solver) height() int64 {
	var h int64
	for i, b := range s.bufs {
		h = max(h, b.size+s.sol[i])
	}
	return h
}
