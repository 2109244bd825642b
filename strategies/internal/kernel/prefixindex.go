package kernel

import (
	"math"
	"slices"
)

// PrefixIndex holds a fixed sequence of placements, for rounds that each
// place a prefix of it less some positions they skip (PrefixRound) and
// ask first fits along the way. The hill climb's passes in lockstep place
// the buffers they all keep where the pool they start from has them, in
// that pool's order: every round from one pool places about the same
// buffers in the same order, and on idealloc's Y_1 a CompIndex rebuilt
// for each round placed about 43,000 of them, a good part of its time.
// Here each node of CompIndex's two trees (the segment tree over tasks,
// the tree over id blocks of compIDTree) lists, once for the sequence,
// the ranges it would be given, in the sequence's order; a round merges
// a node's ranges up to its prefix only when a query reads the node, so
// that placing costs nothing and nodes no query reads are never merged.
// Its queries give what CompIndex's give over the same placements.
type PrefixIndex struct {
	leaves int32 // the segment tree's, as CompIndex's: the number of tasks
	// Node v of the segment tree lists its ranges in seg[segAt[v]:segAt[v+1]],
	// in sequence order; up[v] is the nearest ancestor that lists any.
	segAt []int32
	seg   []prefixRange
	up    []int32
	// The id tree: node v (heap order over idLeaves blocks of compIDLeaf
	// ids) lists its ranges in ids[idAt[v]:idAt[v+1]], nodes spanning more
	// ids than any lifetime holds none (they are in no range's
	// decomposition).
	idLeaves int32
	idAt     []int32
	ids      []prefixRange
	// byID[id]: the buffer's range and position, pos -1 if it is not in
	// the sequence.
	byID []prefixRange
	n    int32 // the sequence's length
	// segInit and idInit: each node's state at the start of a round.
	segInit, idInit []prefixNode
}

// prefixNode is a node's state in a round, all a query that finds
// nothing new to merge reads of it (one cache line, mostly): its room in
// the lists and the round's pool (lo up to end), its cursor in its list
// and the position there (next, MaxInt32 at the end), the number of
// ranges it has merged, in the segment tree up, and the round whose
// state it is (PrefixRound.epoch; older ones stand for the initial
// state, so that a round begins without writing every node).
type prefixNode struct{ lo, end, cur, next, len, up, round int32 }

// prefixRange is a range of the sequence and its position there.
type prefixRange struct {
	c   Comp
	pos int32
}

// NewPrefixIndex returns the index of the sequence that places buffer
// index seq[p] (of ts) at at[seq[p]], position by position.
func NewPrefixIndex(ts *TaskSpans, seq []int32, at []Comp) *PrefixIndex {
	d := ts.Tasks()
	n := int32(len(ts.ID))
	px := &PrefixIndex{leaves: d, segAt: make([]int32, 2*d+1), up: make([]int32, 2*d), n: int32(len(seq))}
	px.byID = make([]prefixRange, n)
	for id := range px.byID {
		px.byID[id].pos = -1
	}
	for p, i := range seq {
		px.byID[ts.ID[i]] = prefixRange{at[i], int32(p)}
	}
	var maxRange int32 // the most ids starting inside a lifetime
	for _, sp := range ts.Span {
		maxRange = max(maxRange, ts.StartPtr[sp[1]+1]-ts.StartPtr[sp[0]+1])
	}
	// The segment tree: count, then fill in sequence order.
	for _, i := range seq {
		sp := ts.Span[ts.ID[i]]
		for l, r := sp[0]+d, sp[1]+d+1; l < r; l, r = l>>1, r>>1 {
			if l&1 == 1 {
				px.segAt[l+1]++
				l++
			}
			if r&1 == 1 {
				r--
				px.segAt[r+1]++
			}
		}
	}
	for v := int32(1); v <= 2*d; v++ {
		px.segAt[v] += px.segAt[v-1]
	}
	px.seg = make([]prefixRange, px.segAt[2*d])
	fill := make([]int32, 2*d)
	copy(fill, px.segAt)
	for p, i := range seq {
		sp := ts.Span[ts.ID[i]]
		e := prefixRange{at[i], int32(p)}
		for l, r := sp[0]+d, sp[1]+d+1; l < r; l, r = l>>1, r>>1 {
			if l&1 == 1 {
				px.seg[fill[l]] = e
				fill[l]++
				l++
			}
			if r&1 == 1 {
				r--
				px.seg[fill[r]] = e
				fill[r]++
			}
		}
	}
	for v := int32(2); v < 2*d; v++ {
		if p := v >> 1; px.segAt[p+1] > px.segAt[p] {
			px.up[v] = p
		} else {
			px.up[v] = px.up[p]
		}
	}
	// The id tree, as compIDTree's: blocks of compIDLeaf ids.
	blocks := (n + compIDLeaf - 1) / compIDLeaf
	px.idLeaves = 1
	for px.idLeaves < blocks {
		px.idLeaves *= 2
	}
	// keep: the lowest node whose level spans at most maxRange ids.
	keep := int32(1)
	for s := px.idLeaves * compIDLeaf; s > maxRange && keep < px.idLeaves; s /= 2 {
		keep *= 2
	}
	px.idAt = make([]int32, 2*px.idLeaves+1)
	for _, i := range seq {
		for v := px.idLeaves + ts.ID[i]/compIDLeaf; v >= keep; v >>= 1 {
			px.idAt[v+1]++
		}
	}
	for v := int32(1); v <= 2*px.idLeaves; v++ {
		px.idAt[v] += px.idAt[v-1]
	}
	px.ids = make([]prefixRange, px.idAt[2*px.idLeaves])
	fill = append(fill[:0], px.idAt[:2*px.idLeaves]...)
	for p, i := range seq {
		e := prefixRange{at[i], int32(p)}
		for v := px.idLeaves + ts.ID[i]/compIDLeaf; v >= keep; v >>= 1 {
			px.ids[fill[v]] = e
			fill[v]++
		}
	}
	px.segInit = initNodes(px.seg, px.segAt, px.up)
	px.idInit = initNodes(px.ids, px.idAt, nil)
	return px
}

// initNodes returns the nodes' states at the start of a round, for the
// lists list[at[v]:at[v+1]] (and up, where given).
func initNodes(list []prefixRange, at, up []int32) []prefixNode {
	nodes := make([]prefixNode, len(at)-1)
	for v := range nodes {
		nd := &nodes[v]
		nd.lo, nd.end, nd.cur, nd.next = at[v], at[v+1], at[v], math.MaxInt32
		if nd.cur < nd.end {
			nd.next = list[nd.cur].pos
		}
		if v < len(up) {
			nd.up = up[v]
		}
	}
	return nodes
}

// PrefixRound is a round over a PrefixIndex: the sequence's placements
// at positions below a bound that it has not skipped, as if placed in a
// CompIndex (PrefixRound.Skip, CompIndex.FirstFitWindowsPrefix). Each
// node keeps the ranges it has merged so far and a cursor at the first
// it has not. A round is one goroutine's; the index is read only.
type PrefixRound struct {
	px *PrefixIndex
	// skip[p] == epoch: position p is skipped.
	skip  []int32
	epoch int32
	// Node v's merged ranges are segPool[segs[v].lo:][:segs[v].len];
	// likewise for the id tree.
	segs, idNodes   []prefixNode
	segPool, idPool []Comp
	add, out        []Comp // scratch
}

// NewRound returns an empty round over px.
func (px *PrefixIndex) NewRound() *PrefixRound {
	r := &PrefixRound{}
	r.Reset(px)
	return r
}

// Reset empties r for a new round over px, keeping r's storage where it
// is large enough.
func (r *PrefixRound) Reset(px *PrefixIndex) {
	if r.px != px {
		r.px = px
		r.skip = growInt32(r.skip, int(px.n))
		r.segs = slices.Grow(r.segs[:0], len(px.segInit))[:len(px.segInit)]
		r.idNodes = slices.Grow(r.idNodes[:0], len(px.idInit))[:len(px.idInit)]
		r.segPool = growComps(r.segPool, len(px.seg))
		r.idPool = growComps(r.idPool, len(px.ids))
	}
	r.epoch++ // the marks and node states of rounds before no longer count
}

// seg returns segment tree node v's state in the round.
func (r *PrefixRound) seg(v int32) *prefixNode {
	nd := &r.segs[v]
	if nd.round != r.epoch {
		*nd = r.px.segInit[v]
		nd.round = r.epoch
	}
	return nd
}

// idNode returns id tree node v's state in the round.
func (r *PrefixRound) idNode(v int32) *prefixNode {
	nd := &r.idNodes[v]
	if nd.round != r.epoch {
		*nd = r.px.idInit[v]
		nd.round = r.epoch
	}
	return nd
}

// growInt32 returns s resized to n, reallocated if too short (zeroed
// then).
func growInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// growComps returns s resized to n, reallocated if too short.
func growComps(s []Comp, n int) []Comp {
	if cap(s) < n {
		return make([]Comp, n)
	}
	return s[:n]
}

// Skip leaves position p out of the round: a query never sees it. It
// must come before any query with a bound above p.
func (r *PrefixRound) Skip(p int32) { r.skip[p] = r.epoch }

// node returns a node's merged ranges of the positions below q not
// skipped (list: the index's list of its tree; nd and pool: the round's
// state of the node and the room of the tree's merged ranges), merging
// those it has not merged yet.
func (r *PrefixRound) node(list []prefixRange, nd *prefixNode, pool []Comp, q int32) []Comp {
	lo, end := nd.lo, nd.end
	if nd.next >= q {
		return pool[lo : lo+nd.len]
	}
	add := r.add[:0]
	c := nd.cur
	for ; c < end && list[c].pos < q; c++ {
		if e := list[c]; r.skip[e.pos] != r.epoch {
			add = append(add, e.c)
		}
	}
	nd.cur, nd.next = c, math.MaxInt32
	if c < end {
		nd.next = list[c].pos
	}
	r.add = add
	l := pool[lo : lo+nd.len : end]
	if len(add) <= syncInsert {
		// The node's room bounds its ranges: no reallocation.
		for _, x := range add {
			l = MergeComp(l, x)
		}
	} else {
		SortComps(add)
		r.out = mergeRanges(r.out[:0], l, add)
		l = l[:copy(pool[lo:end], r.out)]
	}
	nd.len = int32(len(l))
	return l
}

// appendFitRuns is CompIndex.appendFitRuns over the round's placements
// at positions below q: the stabbing path's nodes and the id tree's
// nodes inside t's range of starts as runs (the short ones loose, in
// small), and the ids at the ends of that range loose, leaving out the
// ranges that end by from.
func (r *PrefixRound) appendFitRuns(runs [][]Comp, small []Comp, t *Task, from int64, q int32) ([][]Comp, []Comp) {
	px := r.px
	for v := t.A + px.leaves; v >= 1; {
		nd := r.seg(v)
		v = nd.up
		if c := r.node(px.seg, nd, r.segPool, q); len(c) > smallRun {
			runs = append(runs, c)
		} else {
			small = appendEndingAfter(small, c, from)
		}
	}
	lo, hi := t.RLo, t.RHi
	if lo >= hi {
		return runs, small
	}
	blo := (lo + compIDLeaf - 1) / compIDLeaf
	bhi := hi / compIDLeaf
	if blo >= bhi {
		return runs, r.appendIDs(small, lo, hi, from, q)
	}
	small = r.appendIDs(small, lo, blo*compIDLeaf, from, q)
	small = r.appendIDs(small, bhi*compIDLeaf, hi, from, q)
	for l, h := blo+px.idLeaves, bhi+px.idLeaves; l < h; l, h = l>>1, h>>1 {
		if l&1 == 1 {
			if c := r.node(px.ids, r.idNode(l), r.idPool, q); len(c) > 0 {
				runs = append(runs, c)
			}
			l++
		}
		if h&1 == 1 {
			h--
			if c := r.node(px.ids, r.idNode(h), r.idPool, q); len(c) > 0 {
				runs = append(runs, c)
			}
		}
	}
	return runs, small
}

// appendIDs appends to small the ranges of ids lo..hi-1 that the round
// has placed below q and that end after from.
func (r *PrefixRound) appendIDs(small []Comp, lo, hi int32, from int64, q int32) []Comp {
	for _, e := range r.px.byID[lo:hi] {
		if e.pos >= 0 && e.pos < q && r.skip[e.pos] != r.epoch && e.c.Hi > from {
			small = append(small, e.c)
		}
	}
	return small
}
