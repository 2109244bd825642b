// Code in this file is strategies/minimalloc's solver.go and sweep.go as
// of commit 42c7a46 (before the Y_1 work of 087d26b..4780852), every
// package-level name suffixed 42 (window, gap and buffer are today's,
// unchanged since), made mechanically with go/types: the reference of
// BenchmarkChallenging42's same-process A/B and of TestDifferential42.
// Nothing outside the tests reaches it.

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
type solverParams42 struct {
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
func defaultParams42() solverParams42 {
	return solverParams42{
		CanonicalOnly: true, SectionInference: true, DynamicOrdering: true, CheckDominance: true,
		UnallocatedFloor: true, StaticPreordering: true, DynamicDecomposition: true,
		MonotonicFloor: true, HatlessPruning: true,
		Heuristics: []string{"WAT", "TAW", "TWA"},
	}
}

// status is the outcome of a search, as upstream's status codes.
type status42 int

const (
	stOK42       status42 = iota
	stNotFound42          // proved: no solution
	stAborted42           // the node limit of a round-robin turn ran out
	stDeadline42          // the timeout passed, or the context was cancelled
)

// preorderData are a buffer's keys for the static preorder.
type preorderData42 struct {
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
func preorderLess42(h string, a, b *preorderData42) bool { return preorderCmp42(h, a, b, nil) < 0 }

// preorderCmp is preorderLess as a comparison (negative: a first).
// total, when not nil, fills in a buffer's T key (negative: not yet
// known) before the key is compared, so that a heuristic whose earlier
// keys seldom tie computes few of them.
func preorderCmp42(h string, a, b *preorderData42, total func(*preorderData42)) int {
	if c := keysCmp42(h, a, b, total); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// keysCmp is preorderCmp without the index: zero when every key of h
// ties.
func keysCmp42(h string, a, b *preorderData42, total func(*preorderData42)) int {
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
type offsetChange42 struct {
	idx int
	min int64
}

// sectionRun records n consecutive sections from sec whose floor was v
// before the unallocated floor raised them.
type sectionRun42 struct {
	sec, n int32
	v      int64
}

// raiseChange records, on an implicit sweep, that buffer o's lowest
// offset was raised, and the entry of solver.tops that set it before
// (-1: none, it was its fixed offset or 0): half the size of an
// offsetChange, in a log of one entry per raise of a whole descent.
type raiseChange42 struct {
	o, setter int32
}

// undoLog is a stack kept in chunks, so that growing it never copies it
// (nor holds two copies at once).
type undoLog42[T any] struct {
	chunks [][]T // all full but the last
	spare  []T   // a chunk let go by truncate, for the next push
}

// undoChunk is the length of an undoLog's chunks after the first.
const undoChunk42 = 1 << 16

func (l *undoLog42[T]) push(v T) {
	if k := len(l.chunks) - 1; k >= 0 && len(l.chunks[k]) < undoChunk42 {
		l.chunks[k] = append(l.chunks[k], v)
		return
	}
	c := l.spare
	l.spare = nil
	if c == nil {
		c = make([]T, 0, undoChunk42)
		if len(l.chunks) == 0 {
			c = make([]T, 0, 16)
		}
	}
	l.chunks = append(l.chunks, append(c, v))
}

// len returns the number of entries.
func (l *undoLog42[T]) len() int {
	if len(l.chunks) == 0 {
		return 0
	}
	return (len(l.chunks)-1)*undoChunk42 + len(l.chunks[len(l.chunks)-1])
}

// last returns the last entry, nil for none.
func (l *undoLog42[T]) last() *T {
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
func (l *undoLog42[T]) pop() T {
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
type floorRun42 struct {
	n int32
	v int64
}

// run holds what the searches of one Solve share: the clock, the
// context and the counters.
type run42 struct {
	ctx        context.Context
	start      time.Time
	timeout    time.Duration // 0: none
	nodes      int64         // search nodes visited
	backtracks int64         // searches that found no solution
	cancelled  bool          // the context was found cancelled
}

// expired reports whether the search must stop: the timeout has passed
// or the context is done.
func (r *run42) expired() bool {
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
type solver42 struct {
	params   *solverParams42
	run      *run42
	bufs     []buffer
	capacity int64
	sw       *sweepResult42

	assign  []int64 // placed offsets, noOffset when unplaced
	sol     []int64 // the solution, partition by partition
	minOffs []int64 // lowest offset each unplaced buffer may take
	floor   []int64 // per section: lowest offset left for its buffers
	total   []int64 // per section: the bytes of its unplaced buffers
	cuts    []int64 // per pair of adjacent sections: buffers spanning both

	nodesLeft int64

	// tree orders the unplaced buffers of the partition being searched;
	// posOf is each buffer's position in its partition's preorder.
	tree    *orderTree42
	treePre []int32 // the partition's buffers in preorder (tree nil: to build)
	// spareTree is a tree let go, whose memory the next may take.
	spareTree *orderTree42
	// cands holds the candidates of the small partitions' levels, each
	// level's above its parent's; scanMax is the size from which a
	// partition has a tree (scanLimit, or a test's).
	cands   []candidate42
	scanMax int
	posOf   []int32
	preBuf  []preorderData42 // preorder's scratch
	permBuf []int32
	ranks   map[string][]int32 // staticRank's, by heuristic
	rm      rangeMax42         // subSolve's, kept for its memory
	// dirty marks the buffers whose leaves await an update (dirtyTree,
	// dirtyMins), listed in treeDirty and minsDirty.
	dirty                []uint8
	treeDirty, minsDirty []int32

	// Scratch: section marks for updateSectionData; the stacks of changes
	// to undo.
	mark     []int64
	stamp    int64
	touched  []int
	offStack []offsetChange42
	// On an implicit sweep, raises replaces offStack: tops holds the top
	// of each buffer placed on the current branch, setter the entry of
	// tops that set each buffer's lowest offset (-1: none).
	raises undoLog42[raiseChange42]
	tops   []int64
	setter []int32
	// secStack records the sections whose floors the unallocated floor
	// raised, as runs of consecutive sections that had one floor before.
	secStack undoLog42[sectionRun42]
	runStack undoLog42[floorRun42]
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
}

func newSolver42(params *solverParams42, r *run42, bufs []buffer, capacity int64, sw *sweepResult42, scanMax int) *solver42 {
	return &solver42{params: params, run: r, bufs: bufs, capacity: capacity, sw: sw, nodesLeft: math.MaxInt64, scanMax: scanMax}
}

// solve is SolverImpl::Solve: one search over every partition in turn
// with a single heuristic and no node limit, or a round robin of them.
func (s *solver42) solve() ([]int64, int64, status42) {
	n := len(s.bufs)
	if n == 0 {
		return []int64{}, 0, stOK42
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
		s.assign[i], s.sol[i] = noOffset42, noOffset42
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
	s.quick = true
	for i := range s.bufs {
		for _, sp := range s.sw.data[i].spans {
			if sp.win.hi < sp.win.lo {
				s.quick = false
			}
			for k := sp.lo; k < sp.hi; k++ {
				s.total[k] += sp.win.hi - sp.win.lo
			}
		}
		if f := s.bufs[i].fixed; f != noOffset42 {
			s.minOffs[i] = f
		}
	}
	s.cuts = s.sw.cuts()
	if s.sw.ix != nil && s.params.UnallocatedFloor {
		s.buildMins()
	}
	for _, t := range s.total {
		s.maxTotal = max(s.maxTotal, t)
	}
	if len(s.params.Heuristics) > 1 {
		return s.roundRobin()
	}
	h := s.params.Heuristics[len(s.params.Heuristics)-1]
	for _, pt := range s.sw.parts {
		if st := s.subSolve(&pt, h); st != stOK42 {
			return nil, 0, st
		}
	}
	return s.sol, s.height(), stOK42
}

// roundRobin tries the heuristics in turn, each on every partition with a
// node limit that starts at twice the number of buffers and doubles each
// round, until one finishes. A proof of infeasibility or a timeout ends
// it at once.
func (s *solver42) roundRobin() ([]int64, int64, status42) {
	limit := int64(len(s.bufs))
	for {
		limit *= 2
		st := stOK42
		for _, h := range s.params.Heuristics {
			s.nodesLeft = limit
			st = stOK42
			for _, pt := range s.sw.parts {
				st = s.subSolve(&pt, h)
				if st != stOK42 {
					if st == stAborted42 {
						break
					}
					return nil, 0, st
				}
			}
			if st == stOK42 {
				break
			}
		}
		if st == stOK42 {
			break
		}
	}
	return s.sol, s.height(), stOK42
}

// subSolve orders the buffers of pt statically and searches it.
func (s *solver42) subSolve(pt *partition42, h string) status42 {
	idx := s.preorder(pt, h)
	oldPos := make([]int32, len(idx))
	for k, i := range idx {
		oldPos[k] = s.posOf[i]
		s.posOf[i] = int32(k)
	}

	outer := s.treePre
	s.dropTree()
	s.treePre = idx
	st := s.search(pt, h, 0, 0)
	s.dropTree()
	s.treePre = outer
	for k, i := range idx {
		s.posOf[i] = oldPos[k]
	}
	return st
}

// preorder returns the buffers of pt in the static preorder of
// heuristic h (in pt's order without static_preordering).
func (s *solver42) preorder(pt *partition42, h string) []int32 {
	pre := s.preBuf[:0]
	for _, i := range pt.bufs {
		pre = append(pre, s.staticKeys(i))
	}

	built := false
	total := func(d *preorderData42) {
		if d.total >= 0 {
			return
		}
		if !built && s.sw.ix != nil && len(pt.bufs) > 64 {
			s.rm.build(s.total[pt.lo:pt.hi])
			built = true
		}
		var t int64
		for _, sp := range s.sw.data[d.idx].spans {
			if built && sp.lo >= pt.lo && sp.hi <= pt.hi {
				if sp.lo < sp.hi {
					t = max(t, s.rm.max(sp.lo-pt.lo, sp.hi-pt.lo))
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
	idx := make([]int32, len(pre))
	if !s.params.StaticPreordering {
		for k := range pre {
			idx[k] = int32(pre[k].idx)
		}
		return idx
	}
	perm := s.permBuf[:0]
	for k := range pre {
		perm = append(perm, int32(k))
	}
	s.permBuf = perm

	rank, rest := s.staticRank(h)
	slices.SortFunc(perm, func(x, y int32) int {
		a, b := &pre[x], &pre[y]
		if rank != nil {
			if c := cmp.Compare(rank[a.idx], rank[b.idx]); c != 0 {
				return c
			}
		}
		return preorderCmp42(rest, a, b, total)
	})
	for k, x := range perm {
		idx[k] = int32(pre[x].idx)
	}
	return idx
}

// staticKeys returns buffer i's preorder keys, T not yet known.
func (s *solver42) staticKeys(i int) preorderData42 {
	b := &s.bufs[i]
	d := &s.sw.data[i]
	return preorderData42{
		area:     b.size * (b.upper - b.lower),
		lower:    b.lower,
		overlaps: d.nOver,
		sections: int64(d.spans[len(d.spans)-1].hi - d.spans[0].lo),
		size:     b.size,
		total:    -1,
		upper:    b.upper,
		width:    b.upper - b.lower,
		idx:      i,
	}
}

// staticRank returns, for heuristic h, every buffer's rank by the keys
// of h before its first T (equal keys, equal rank), and the rest of h
// from that T; a nil rank when h starts with T.
func (s *solver42) staticRank(h string) ([]int32, string) {
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
	keys := make([]preorderData42, len(s.bufs))
	perm := make([]int32, len(s.bufs))
	for i := range keys {
		keys[i] = s.staticKeys(i)
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(x, y int32) int { return keysCmp42(h[:t], &keys[x], &keys[y], nil) })
	rank := make([]int32, len(s.bufs))
	for k := 1; k < len(perm); k++ {
		rank[perm[k]] = rank[perm[k-1]]
		if keysCmp42(h[:t], &keys[perm[k-1]], &keys[perm[k]], nil) != 0 {
			rank[perm[k]]++
		}
	}
	if s.ranks == nil {
		s.ranks = map[string][]int32{}
	}
	s.ranks[h] = rank
	return rank, h[t:]
}

// rangeMax answers the largest of v[a:b] (a sparse table): built in
// O(len log len), it spares a large partition's preorder a pass over
// every section of every buffer. A build reuses the last one's memory.
type rangeMax42 struct{ t [][]int64 }

func (r *rangeMax42) build(v []int64) {
	r.t = r.t[:0]
	for w := 0; w == 0 || 2*w <= len(v); w = max(2*w, 1) {
		n := len(v) - 2*w + 1
		if w == 0 {
			n = len(v)
		}
		if len(r.t) < cap(r.t) {
			r.t = r.t[:len(r.t)+1]
		} else {
			r.t = append(r.t, nil)
		}
		q := slices.Grow(r.t[len(r.t)-1][:0], n)[:n]
		r.t[len(r.t)-1] = q
		if w == 0 {
			copy(q, v)
			continue
		}
		p := r.t[len(r.t)-2]
		for x := range q {
			q[x] = max(p[x], p[x+w])
		}
	}
}

// max returns the largest of v[a:b], a < b.
func (r *rangeMax42) max(a, b int) int64 {
	j := bits.Len(uint(b-a)) - 1
	return max(r.t[j][a], r.t[j][b-1<<j])
}

// updateMinOffsets raises the lowest offset of every unplaced buffer that
// overlaps buffer i, just placed, to i's offset plus i's effective size
// below it, rounded up to its alignment. It pushes the changes on
// s.offStack and reports whether
// i has any unplaced overlap at all (hatless: none), whether a fixed
// buffer was pushed above its offset, and, with unallocated_floor, marks
// the sections of the raised buffers (s.touched, in no particular order:
// updateSectionData treats each section apart).
func (s *solver42) updateMinOffsets(i int) (hatless, fixedFail bool) {
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
		if s.assign[o] != noOffset42 {
			continue
		}
		hatless = false

		h := off + ov.eff
		if s.minOffs[o] >= h {
			continue
		}
		s.offStack = append(s.offStack, offsetChange42{o, s.minOffs[o]})
		s.minOffs[o] = h
		ob := &s.bufs[o]
		if d := s.minOffs[o] % ob.align; d > 0 {
			s.minOffs[o] += ob.align - d
		}
		if ob.fixed != noOffset42 && s.minOffs[o] > ob.fixed {
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

// raise lifts the lowest offset of unplaced buffer o to at least h (the
// last of s.tops), rounded up to o's alignment, recording the change on
// s.raises; it reports whether
// it rose, and sets *fixedFail when o's fixed offset is now too low.
func (s *solver42) raise(o int, h int64, fixedFail *bool) bool {
	if s.minOffs[o] >= h {
		return false
	}
	s.raises.push(raiseChange42{int32(o), s.setter[o]})
	s.setter[o] = int32(len(s.tops) - 1)
	s.minOffs[o] = h
	ob := &s.bufs[o]
	if d := s.minOffs[o] % ob.align; d > 0 {
		s.minOffs[o] += ob.align - d
	}
	if ob.fixed != noOffset42 && s.minOffs[o] > ob.fixed {
		*fixedFail = true
	}
	s.changed(o)
	return true
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
func (s *solver42) updateMinOffsetsImplicit(i int) (hatless, fixedFail bool) {
	hatless = true
	ix := s.sw.ix
	off := s.assign[i]
	h := off + s.bufs[i].size
	s.tops = append(s.tops, h)
	floor := s.params.UnallocatedFloor
	ilo, ihi := ix.lo[i], ix.hi[i]
	rlo, rhi := ilo, ihi
	visit := func(o int32) {
		if s.assign[o] != noOffset42 {
			return
		}
		hatless = false
		if !s.raise(int(o), h, &fixedFail) || !floor {
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
	for v := int(ilo) + ix.size; v >= 1; v /= 2 {
		for _, o := range ix.nodeBufs[ix.nodeAt[v]:ix.nodeAt[v+1]] {
			if int(o) != i {
				visit(o)
			}
		}
	}
	k, _ := slices.BinarySearchFunc(ix.byLo, ilo+1, func(b, t int32) int { return cmp.Compare(ix.lo[b], t) })
	for ; k < len(ix.byLo) && ix.lo[ix.byLo[k]] < ihi; k++ {
		visit(ix.byLo[k])
	}
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
		f := h
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
func (s *solver42) updateSectionData(i int) {
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
				s.runStack.push(floorRun42{1, s.floor[k]})
			}
			s.floor[k] = h
			s.total[k] -= sp.win.hi - sp.win.lo
		}
	}
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
				if s.assign[o] == noOffset42 {
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
				s.secStack.push(sectionRun42{int32(k), 1, s.floor[k]})
			}
			s.floor[k] = lo
			s.maxFloor = max(s.maxFloor, lo)
		}
	}
}

// sectionMin returns, on an implicit sweep, the lowest minimum offset of
// section k's unplaced buffers (MaxInt64 for none): the least of the
// node minimums on the path from k's leaf of the interval index to its
// root.
func (s *solver42) sectionMin(k int) int64 {
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
func (s *solver42) restoreSectionData(secTop, runTop, i int) {
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
func (s *solver42) restoreMinOffsets(top int) {
	if s.sw.ix != nil {

		for s.raises.len() > top {
			c := s.raises.pop()
			o := int(c.o)
			s.setter[o] = c.setter
			if c.setter < 0 {
				s.minOffs[o] = max(s.bufs[o].fixed, 0)
			} else {
				s.minOffs[o] = s.tops[c.setter]
				if d := s.minOffs[o] % s.bufs[o].align; d > 0 {
					s.minOffs[o] += s.bufs[o].align - d
				}
			}
			s.changed(o)
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
func (s *solver42) check(pt *partition42, off int64) bool {
	if s.quick {
		f := s.maxFloor
		if s.params.MonotonicFloor {
			f = max(off, f)
		}
		if s.params.SectionInference {
			f += s.maxTotal
		}
		if f <= s.capacity {
			return true
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

// candidate is a buffer a small partition's search level may place: its
// lowest offset and its position in the preorder.
type candidate42 struct {
	off int64
	p   int32
}

// scanLimit is the number of buffers below which a partition's levels
// list their order afresh rather than keep a tree.
const scanLimit42 = 1024

// orderTree keeps the unplaced buffers of one partition in upstream's
// dynamic order, lowest offset first and then earlier in the preorder,
// without listing them at every level: a tournament tree over preorder
// positions holds at each node its leaves' lowest (offset, position) and
// lowest offset plus size. A placement or a change of a lowest offset
// updates one path; upstream's order at a level is read from the tree as
// the successors of the level's first key, the tree being back in the
// level's state whenever the level reads it again.
type orderTree42 struct {
	pre  []int32 // buffers by preorder position
	size int     // leaves: a power of two at least len(pre)
	off  []int64 // per node: lowest offset of a present leaf (absent: none)
	pos  []int32 // per node: the position of that leaf, the first on ties
	top  []int64 // per node: lowest offset plus size of a present leaf
}

// absent is the key of a tree node with no unplaced buffer.
const absent42 = math.MaxInt64

// newOrderTree builds the tree of the buffers pre from the search's
// state.
func (s *solver42) newOrderTree(pre []int32) *orderTree42 {
	t := &orderTree42{pre: pre, size: 1}
	for t.size < len(pre) {
		t.size *= 2
	}
	if sp := s.spareTree; sp != nil && cap(sp.off) >= 2*t.size {
		t.off, t.pos, t.top = sp.off[:2*t.size], sp.pos[:2*t.size], sp.top[:2*t.size]
	} else {
		t.off = make([]int64, 2*t.size)
		t.pos = make([]int32, 2*t.size)
		t.top = make([]int64, 2*t.size)
	}
	s.spareTree = nil
	for v := t.size; v < 2*t.size; v++ {
		t.off[v], t.top[v] = absent42, absent42
	}
	for k, i := range pre {
		v := t.size + k
		t.pos[v] = int32(k)
		if s.assign[i] == noOffset42 {
			t.off[v], t.top[v] = s.minOffs[i], s.minOffs[i]+s.bufs[i].size
		}
	}
	for v := t.size - 1; v >= 1; v-- {
		t.pull(v)
	}
	return t
}

// pull recomputes node v from its children and reports whether it
// changed.
func (t *orderTree42) pull(v int) bool {
	l, r := 2*v, 2*v+1
	if t.off[r] < t.off[l] {
		l = r
	}
	top := min(t.top[2*v], t.top[2*v+1])
	if t.off[v] == t.off[l] && t.pos[v] == t.pos[l] && t.top[v] == top {
		return false
	}
	t.off[v], t.pos[v], t.top[v] = t.off[l], t.pos[l], top
	return true
}

// succ returns the least key (offset, position) at or after (a, b) in
// node v's subtree, offset absent for none. It descends only into nodes
// whose least key lies before (a, b): the ancestors of the buffers the
// canonical rule has left behind.
func (t *orderTree42) succ(v int, a int64, b int32) (int64, int32) {
	if o := t.off[v]; o > a || o == a && t.pos[v] >= b {
		return o, t.pos[v]
	}
	if v >= t.size {
		return absent42, 0
	}
	lo, lp := t.succ(2*v, a, b)
	ro, rp := t.succ(2*v+1, a, b)
	if ro < lo || ro == lo && rp < lp {
		return ro, rp
	}
	return lo, lp
}

// changed brings the structures that mirror the search's state up to
// date after buffer i was placed, unplaced or had its minimum offset
// changed: the order tree and the node minimums.
//
// The update waits until a structure is read (flushTree, flushMins):
// the changes undone after a search that succeeded are never read.
func (s *solver42) changed(i int) {
	if s.tree != nil && s.dirty[i]&dirtyTree42 == 0 {
		s.dirty[i] |= dirtyTree42
		s.treeDirty = append(s.treeDirty, int32(i))
	}
	if s.mins != nil && s.dirty[i]&dirtyMins42 == 0 {
		s.dirty[i] |= dirtyMins42
		s.minsDirty = append(s.minsDirty, int32(i))
	}
}

// Bits of solver.dirty: the buffer's leaf in the order tree, or in the
// node minimums, awaits an update.
const (
	dirtyTree42 = 1 << iota
	dirtyMins42
)

// flushTree brings the order tree up to date; with drop, it forgets the
// changes instead (the tree is being discarded).
func (s *solver42) flushTree(drop bool) {
	for _, i := range s.treeDirty {
		s.dirty[i] &^= dirtyTree42
		if !drop {
			s.setLeaf(int(i))
		}
	}
	s.treeDirty = s.treeDirty[:0]
}

// dropTree lets the order tree go, keeping its memory for the next.
func (s *solver42) dropTree() {
	s.flushTree(true)
	if s.tree != nil && (s.spareTree == nil || cap(s.tree.off) > cap(s.spareTree.off)) {
		s.spareTree = s.tree
	}
	s.tree = nil
}

// curTree returns the current partition's order tree, up to date, built
// from the search's state if it was let go.
func (s *solver42) curTree() *orderTree42 {
	if s.tree == nil {
		s.tree = s.newOrderTree(s.treePre)
	} else {
		s.flushTree(false)
	}
	return s.tree
}

// flushMins brings the node minimums up to date.
func (s *solver42) flushMins() {
	for _, i := range s.minsDirty {
		s.dirty[i] &^= dirtyMins42
		s.setMins(int(i))
	}
	s.minsDirty = s.minsDirty[:0]
}

// buildMins builds s.mins from the search's state, all unplaced.
func (s *solver42) buildMins() {
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
			t[x] = absent42
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
func (s *solver42) setMins(i int) {
	ix := s.sw.ix
	val := int64(absent42)
	if s.assign[i] == noOffset42 {
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
func (s *solver42) setLeaf(i int) {
	t := s.tree
	k := s.posOf[i]
	if t == nil || int(k) >= len(t.pre) || int(t.pre[k]) != i {
		return
	}
	v := t.size + int(k)
	if s.assign[i] != noOffset42 {
		t.off[v], t.top[v] = absent42, absent42
	} else {
		t.off[v], t.top[v] = s.minOffs[i], s.minOffs[i]+s.bufs[i].size
	}
	for v /= 2; v >= 1 && t.pull(v); v /= 2 {
	}
}

// search is upstream's SearchSolutions: a depth-first search that places
// one buffer per level at its lowest offset, trying the unplaced buffers
// of pt in the dynamic order (by preorder alone without
// dynamic_ordering). (minOffset, minPre) is the key of the buffer the
// level above placed, the start of the canonical order here.
func (s *solver42) search(pt *partition42, h string, minOffset int64, minPre int) status42 {
	if s.nodesLeft <= 0 {
		return stAborted42
	}
	s.nodesLeft--
	s.run.nodes++
	if s.run.expired() {
		return stDeadline42
	}

	pre := s.treePre
	small := len(pre) < s.scanMax
	var t *orderTree42
	var minHeight int64
	base := len(s.cands)
	var cands []candidate42
	if small {
		minHeight = math.MaxInt64
		for _, i := range pre {
			if s.assign[i] == noOffset42 {
				minHeight = min(minHeight, s.minOffs[i]+s.bufs[i].size)
			}
		}
		if minHeight == math.MaxInt64 {
			for _, i := range pt.bufs {
				s.sol[i] = s.assign[i]
			}
			return stOK42
		}
		for k, i := range pre {
			if s.assign[i] != noOffset42 {
				continue
			}
			off := s.minOffs[i]
			if s.params.DynamicOrdering && (s.params.CanonicalOnly && (off < minOffset || off == minOffset && k < minPre) ||
				s.params.CheckDominance && off >= minHeight) {
				continue
			}
			s.cands = append(s.cands, candidate42{off, int32(k)})
		}
		cands = s.cands[base:]
		if s.params.DynamicOrdering {
			slices.SortFunc(cands, func(x, y candidate42) int {
				if x.off != y.off {
					return cmp.Compare(x.off, y.off)
				}
				return cmp.Compare(x.p, y.p)
			})
		}
	} else {
		t = s.curTree()
		if t.off[1] == absent42 {
			for _, i := range pt.bufs {
				s.sol[i] = s.assign[i]
			}
			return stOK42
		}
		minHeight = t.top[1]
	}

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
			off, p = t.succ(1, a, b)
			if off == absent42 || s.params.CheckDominance && off >= minHeight {
				break levels
			}
			a, b = off, p+1
		default:
			for int(next) < len(pre) && s.assign[pre[next]] != noOffset42 {
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
		if f := s.bufs[i].fixed; f != noOffset42 && off > f {
			continue
		}
		s.assign[i] = off
		s.changed(i)
		offTop, secTop, runTop, maxFloor := len(s.offStack)+s.raises.len(), s.secStack.len(), s.runStack.len(), s.maxFloor
		hatless, fixedFail := s.updateMinOffsets(i)
		s.updateSectionData(i)
		st := stNotFound42
		if !fixedFail && s.check(pt, off) {
			if s.params.DynamicDecomposition {
				st = s.decompose(pt, h, off, int(p), i)
			} else {
				st = s.search(pt, h, off, int(p))
			}
		}
		s.restoreSectionData(secTop, runTop, i)
		s.restoreMinOffsets(offTop)
		s.assign[i] = noOffset42
		s.changed(i)
		s.maxFloor = maxFloor
		if st != stNotFound42 {
			s.cands = s.cands[:base]
			return st
		}
		if hatless && s.params.HatlessPruning {
			break
		}
	}
	s.cands = s.cands[:base]
	s.run.backtracks++
	return stNotFound42
}

// decompose is upstream's DynamicallyDecompose: placing buffer i ends the
// cuts it held; where a cut inside pt drops to zero, the unplaced buffers
// on each side are solved apart, each part a new search.
func (s *solver42) decompose(pt *partition42, h string, minOffset int64, minPre int, i int) status42 {
	s.sol[i] = s.assign[i]
	cutpoints := []int{pt.lo}
	spans := s.sw.data[i].spans
	lo, hi := spans[0].lo, spans[len(spans)-1].hi
	for k := lo; k+1 < hi; k++ {
		s.cuts[k]--
		if s.cuts[k] == 0 {
			cutpoints = append(cutpoints, k+1)
		}
	}
	st := stOK42
	if len(cutpoints) == 1 {
		st = s.search(pt, h, minOffset, minPre)
	} else {
		cutpoints = append(cutpoints, pt.hi)

		parts := make([][]int, len(cutpoints))
		for _, o := range pt.bufs {
			if s.assign[o] != noOffset42 {
				continue
			}
			d := s.sw.data[o].spans
			olo, ohi := d[0].lo, d[len(d)-1].hi
			c, _ := slices.BinarySearch(cutpoints[1:], olo+1)
			for c++; c < len(cutpoints) && cutpoints[c-1] < ohi; c++ {
				parts[c] = append(parts[c], o)
			}
		}
		for c := 1; c < len(cutpoints); c++ {
			if len(parts[c]) == 0 {
				continue
			}
			sub := partition42{bufs: parts[c], lo: cutpoints[c-1], hi: cutpoints[c]}
			if st = s.subSolve(&sub, h); st != stOK42 {
				break
			}
		}
	}
	for k := lo; k+1 < hi; k++ {
		s.cuts[k]++
	}
	return st
}

// height is the solution's top: max(offset + size).
func (s *solver42) height() int64 {
	var h int64
	for i, b := range s.bufs {
		h = max(h, b.size+s.sol[i])
	}
	return h
}

// noOffset marks an unplaced buffer, or one with no fixed offset.
const noOffset42 int64 = -1

// span is a run of sections [lo, hi) in which a buffer uses win of its
// bytes.
type span42 struct {
	lo, hi int
	win    window
}

// overlap is a buffer that shares time with another, and the least
// distance above the other's offset at which it may sit.
type overlap42 struct {
	idx int
	eff int64
}

// bufferData is what the sweep learns about one buffer: its spans, in the
// order the sweep closes them, and its overlaps, by buffer index (none
// stored when the sweep is implicit).
type bufferData42 struct {
	spans    []span42
	overlaps []overlap42
	nOver    int64 // the number of overlaps
}

// partition is a set of buffers that share no time with any other
// partition's, and the sections [lo, hi) they span.
type partition42 struct {
	bufs   []int
	lo, hi int
}

// sweepResult is the sweep's output: the cross sections of buffers live
// together, the partitions and each buffer's data.
//
// Sections and overlaps are stored (secStart/secBufs, a compressed row
// per section in the order the sweep listed its buffers; bufferData's
// overlaps) unless the sweep is implicit: then no buffer has gaps, each
// has one span, and both are read from the spans through ix (an interval
// index over section numbers), so that a problem with a hundred million
// overlapping pairs needs memory linear in its buffers. A buffer's
// effective size below any other is then its size.
type sweepResult42 struct {
	nsec     int
	secStart []int32
	secBufs  []int32
	parts    []partition42
	data     []bufferData42
	ix       *intervalIndex42 // non-nil: implicit
}

// implicitLimit is the number of section entries or overlapping pairs
// above which a sweep of a problem without gaps goes implicit.
const implicitLimit42 = 1 << 22

// Point kinds of the sweep: at one time, ends come before starts.
const (
	pointRight42 = iota
	pointLeft42
)

// point is a moment a buffer starts or stops using a window. endpoint
// marks the first and last points of a buffer.
type point42 struct {
	idx      int
	time     int64
	kind     int
	win      window
	endpoint bool
}

// bufferPoints appends to out the points of buffer idx, as upstream's
// CreatePoints makes them: a point where each windowed gap starts and
// ends, the lifespan's ends unless a windowed gap already starts or ends
// there (the first and last points are the endpoints), then a stop and a
// restart around each gap without a window, and around any gap left
// without one, skipping times already marked.
func bufferPoints42(out []point42, idx int, b *buffer) []point42 {
	full := window{0, b.size}
	var pts []point42
	var lefts, rights []int64
	for _, g := range b.gaps {
		if !g.hasWin {
			continue
		}
		pts = append(pts, point42{idx: idx, time: g.lower, kind: pointLeft42, win: g.win},
			point42{idx: idx, time: g.upper, kind: pointRight42, win: g.win})
		lefts = append(lefts, g.lower)
		rights = append(rights, g.upper)
	}
	if len(pts) == 0 || pts[0].time != b.lower {
		pts = slices.Insert(pts, 0, point42{idx: idx, time: b.lower, kind: pointLeft42, win: full})
	}
	if pts[len(pts)-1].time != b.upper {
		pts = append(pts, point42{idx: idx, time: b.upper, kind: pointRight42, win: full})
	}
	pts[0].endpoint = true
	pts[len(pts)-1].endpoint = true
	rights = append(rights, b.lower)
	lefts = append(lefts, b.upper)
	for _, g := range b.gaps {
		if g.hasWin {
			continue
		}
		if !slices.Contains(rights, g.lower) {
			pts = append(pts, point42{idx: idx, time: g.lower, kind: pointRight42, win: full})
			rights = append(rights, g.lower)
		}
		if !slices.Contains(lefts, g.upper) {
			pts = append(pts, point42{idx: idx, time: g.upper, kind: pointLeft42, win: full})
			lefts = append(lefts, g.upper)
		}
		lefts = append(lefts, g.lower)
		rights = append(rights, g.upper)
	}
	for _, g := range b.gaps {
		if !slices.Contains(rights, g.lower) {
			pts = append(pts, point42{idx: idx, time: g.lower, kind: pointRight42, win: full})
		}
		if !slices.Contains(lefts, g.upper) {
			pts = append(pts, point42{idx: idx, time: g.upper, kind: pointLeft42, win: full})
		}
	}
	return append(out, pts...)
}

// createPoints returns every buffer's points sorted by time, then kind
// (ends first), then buffer index. Well-formed gaps never give two points
// of one buffer the same time and kind, so the order is total.
func createPoints42(bufs []buffer) []point42 {
	pts := make([]point42, 0, 2*len(bufs))
	for i := range bufs {
		pts = bufferPoints42(pts, i, &bufs[i])
	}
	slices.SortFunc(pts, func(a, b point42) int {
		if c := cmp.Compare(a.time, b.time); c != 0 {
			return c
		}
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	return pts
}

// idxSet is a set of buffer indexes that lists its members in a slice.
type idxSet42 struct {
	pos  []int // pos[i]: index of i in list, or -1
	list []int
}

func newIdxSet42(n int) idxSet42 {
	s := idxSet42{pos: make([]int, n)}
	for i := range s.pos {
		s.pos[i] = -1
	}
	return s
}

func (s *idxSet42) add(i int) {
	if s.pos[i] < 0 {
		s.pos[i] = len(s.list)
		s.list = append(s.list, i)
	}
}

func (s *idxSet42) remove(i int) {
	k := s.pos[i]
	if k < 0 {
		return
	}
	last := s.list[len(s.list)-1]
	s.list[k] = last
	s.pos[last] = k
	s.list = s.list[:len(s.list)-1]
	s.pos[i] = -1
}

// sweep is upstream's Sweep: it walks the points in order, keeping the
// buffers active now (using memory) and alive (between their endpoints).
// Before the first end at a new time it closes a section holding the
// active buffers; each end closes a span of its buffer from the section
// where it last started; when nothing is alive any more, the current
// partition ends. Each buffer, at its first point, joins the partition
// and records its overlaps with every alive buffer, both ways, where
// their effective sizes exist. implicit: 1 forces an implicit result
// (which needs a problem without gaps), -1 a stored one, 0 lets the size
// decide (implicitLimit).
func sweep42(bufs []buffer, eff func(a, b int) (int64, bool), look func() error, implicit int) (*sweepResult42, error) {
	n := len(bufs)
	res := &sweepResult42{data: make([]bufferData42, n)}
	pts := createPoints42(bufs)
	store := implicit <= 0
	if implicit >= 0 && !slices.ContainsFunc(bufs, func(b buffer) bool { return len(b.gaps) > 0 }) {
		secTot, pairs := countSweep42(pts)
		store = implicit < 0 || (secTot <= implicitLimit42 && pairs <= implicitLimit42)
	}
	actives, alive := newIdxSet42(n), newIdxSet42(n)
	lastTime := int64(-1)
	lastSection := 0
	start := make([]int, n)
	for i := range start {
		start[i] = -1
	}
	if store {
		res.secStart = []int32{0}
	}
	for k, pt := range pts {
		if k&1023 == 1023 {
			if err := look(); err != nil {
				return nil, err
			}
		}
		b := pt.idx
		if lastTime == -1 {
			lastTime = pt.time
		}
		if pt.kind == pointRight42 {
			if lastTime < pt.time {
				lastTime = pt.time
				res.nsec++
				if store {
					for _, a := range actives.list {
						res.secBufs = append(res.secBufs, int32(a))
					}
					res.secStart = append(res.secStart, int32(len(res.secBufs)))
				}
			}
			actives.remove(b)
			if pt.endpoint {
				alive.remove(b)
			}
			d := &res.data[b]
			d.spans = append(d.spans, span42{lo: start[b], hi: res.nsec, win: pt.win})
			if len(alive.list) == 0 {
				res.parts[len(res.parts)-1].lo = lastSection
				res.parts[len(res.parts)-1].hi = res.nsec
				lastSection = res.nsec
			}
		}
		if pt.kind == pointLeft42 {
			if len(alive.list) == 0 {
				res.parts = append(res.parts, partition42{})
			}
			if pt.endpoint {
				pp := &res.parts[len(res.parts)-1]
				pp.bufs = append(pp.bufs, b)
				if store {
					for _, a := range alive.list {
						if e, ok := eff(a, b); ok {
							res.data[a].overlaps = append(res.data[a].overlaps, overlap42{b, e})
						}
						if e, ok := eff(b, a); ok {
							res.data[b].overlaps = append(res.data[b].overlaps, overlap42{a, e})
						}
					}
				} else {
					res.data[b].nOver += int64(len(alive.list))
					for _, a := range alive.list {
						res.data[a].nOver++
					}
				}
			}
			actives.add(b)
			if pt.endpoint {
				alive.add(b)
			}
			start[b] = res.nsec
		}
	}
	if !store {
		res.ix = newIntervalIndex42(res.data, res.nsec)
		return res, nil
	}

	for i := range res.data {
		d := &res.data[i]
		d.nOver = int64(len(d.overlaps))
		slices.SortFunc(d.overlaps, func(x, y overlap42) int {
			if c := cmp.Compare(x.idx, y.idx); c != 0 {
				return c
			}
			return cmp.Compare(x.eff, y.eff)
		})
	}
	return res, nil
}

// countSweep returns, for points of buffers without gaps, the number of
// section entries and of overlapping pairs a stored sweep would hold.
func countSweep42(pts []point42) (secTot, pairs int64) {
	var live int64
	lastTime := int64(-1)
	for _, pt := range pts {
		if lastTime == -1 {
			lastTime = pt.time
		}
		if pt.kind == pointRight42 {
			if lastTime < pt.time {
				lastTime = pt.time
				secTot += live
			}
			live--
		} else {
			pairs += live
			live++
		}
	}
	return secTot, pairs
}

// intervalIndex answers, for buffers of one span [lo, hi) each, which
// spans contain a section (a segment tree over the sections: each span
// is listed at the O(log) nodes that cover it) and which start inside a
// range of sections (the buffers sorted by their span's start).
type intervalIndex42 struct {
	size     int     // leaves: a power of two at least the sections
	nodeAt   []int32 // node v lists nodeBufs[nodeAt[v]:nodeAt[v+1]]
	nodeBufs []int32
	byLo     []int32 // buffers by span start, then index
	lo, hi   []int32 // each buffer's span
	// Buffer b is listed at nodes entNode[entAt[b]:entAt[b+1]], at
	// positions entPos (indexes of nodeBufs).
	entAt           []int32
	entNode, entPos []int32
}

func newIntervalIndex42(data []bufferData42, nsec int) *intervalIndex42 {
	n := len(data)
	ix := &intervalIndex42{size: 1, lo: make([]int32, n), hi: make([]int32, n), byLo: make([]int32, n)}
	for ix.size < max(nsec, 1) {
		ix.size *= 2
	}
	for i, d := range data {
		ix.lo[i], ix.hi[i] = int32(d.spans[0].lo), int32(d.spans[0].hi)
		ix.byLo[i] = int32(i)
	}
	slices.SortStableFunc(ix.byLo, func(a, b int32) int { return cmp.Compare(ix.lo[a], ix.lo[b]) })
	count := make([]int32, 2*ix.size+1)
	ix.each(func(v int, _ int32) { count[v+1]++ })
	for v := 1; v < len(count); v++ {
		count[v] += count[v-1]
	}
	ix.nodeAt = slices.Clone(count)
	total := count[len(count)-1]
	ix.nodeBufs = make([]int32, total)
	ix.entAt = make([]int32, n+1)
	ix.entNode = make([]int32, 0, total)
	ix.entPos = make([]int32, 0, total)
	ix.each(func(v int, b int32) {
		ix.nodeBufs[count[v]] = b
		ix.entAt[b+1]++
		ix.entNode = append(ix.entNode, int32(v))
		ix.entPos = append(ix.entPos, count[v])
		count[v]++
	})
	for b := range n {
		ix.entAt[b+1] += ix.entAt[b]
	}
	return ix
}

// each calls f for every node v of the segment tree that lists buffer b.
func (ix *intervalIndex42) each(f func(v int, b int32)) {
	for b := range ix.lo {
		l, r := int(ix.lo[b])+ix.size, int(ix.hi[b])+ix.size
		for l < r {
			if l&1 == 1 {
				f(l, int32(b))
				l++
			}
			if r&1 == 1 {
				r--
				f(r, int32(b))
			}
			l, r = l/2, r/2
		}
	}
}

// cuts returns, for each pair of adjacent sections i and i+1, how many
// buffers span both.
func (r *sweepResult42) cuts() []int64 {
	c := make([]int64, max(r.nsec-1, 0))
	for _, d := range r.data {
		for s := d.spans[0].lo; s+1 < d.spans[len(d.spans)-1].hi; s++ {
			c[s]++
		}
	}
	return c
}

// solve42 is 42c7a46's solveProblem in capacity mode.
func solve42(ctx context.Context, bufs []buffer, eff func(a, b int) (int64, bool), capacity int64, p *solverParams, implicit, scanMax int) (*result, error) {
	r := &run42{ctx: ctx, start: time.Now()}
	sw, err := sweep42(bufs, eff, ctx.Err, implicit)
	if err != nil {
		return nil, err
	}
	offs, h, st := newSolver42((*solverParams42)(p), r, bufs, capacity, sw, scanMax).solve()
	res := &result{Capacity: capacity, Complete: true, Offsets: offs, Height: h, Nodes: r.nodes, Backtracks: r.backtracks}
	if st != stOK42 {
		return res, ErrNoSolution
	}
	return res, nil
}
