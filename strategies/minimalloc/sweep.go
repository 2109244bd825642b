package minimalloc

import (
	"cmp"
	"slices"
)

// window is a byte range [lo, hi) of a buffer, relative to its offset.
type window struct{ lo, hi int64 }

// gap is a stretch [lower, upper) of a buffer's lifespan in which it uses
// only win of its bytes (hasWin), or none of them.
type gap struct {
	lower, upper int64
	hasWin       bool
	win          window
}

// buffer is one buffer in MiniMalloc's terms: a half-open lifespan
// [lower, upper), a size, an alignment (at least 1), gaps, and a fixed
// offset (noOffset for none).
type buffer struct {
	lower, upper int64
	size, align  int64
	gaps         []gap
	fixed        int64
}

// noOffset marks an unplaced buffer, or one with no fixed offset.
const noOffset int64 = -1

// span is a run of sections [lo, hi) in which a buffer uses win of its
// bytes.
type span struct {
	lo, hi int
	win    window
}

// overlap is a buffer that shares time with another, and the least
// distance above the other's offset at which it may sit.
type overlap struct {
	idx int
	eff int64
}

// bufferData is what the sweep learns about one buffer: its spans, in the
// order the sweep closes them, and its overlaps, by buffer index (none
// stored when the sweep is implicit).
type bufferData struct {
	spans    []span
	overlaps []overlap
	nOver    int64 // the number of overlaps
}

// partition is a set of buffers that share no time with any other
// partition's, and the sections [lo, hi) they span.
type partition struct {
	bufs   []int32
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
type sweepResult struct {
	nsec     int
	secStart []int32
	secBufs  []int32
	parts    []partition
	data     []bufferData
	ix       *intervalIndex // non-nil: implicit
}

// implicitLimit is the number of section entries or overlapping pairs
// above which a sweep of a problem without gaps goes implicit.
const implicitLimit = 1 << 22

// Point kinds of the sweep: at one time, ends come before starts.
const (
	pointRight = iota
	pointLeft
)

// point is a moment a buffer starts or stops using a window. endpoint
// marks the first and last points of a buffer.
type point struct {
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
func bufferPoints(out []point, idx int, b *buffer) []point {
	full := window{0, b.size}
	var pts []point
	var lefts, rights []int64
	for _, g := range b.gaps {
		if !g.hasWin {
			continue
		}
		pts = append(pts, point{idx: idx, time: g.lower, kind: pointLeft, win: g.win},
			point{idx: idx, time: g.upper, kind: pointRight, win: g.win})
		lefts = append(lefts, g.lower)
		rights = append(rights, g.upper)
	}
	if len(pts) == 0 || pts[0].time != b.lower {
		pts = slices.Insert(pts, 0, point{idx: idx, time: b.lower, kind: pointLeft, win: full})
	}
	if pts[len(pts)-1].time != b.upper {
		pts = append(pts, point{idx: idx, time: b.upper, kind: pointRight, win: full})
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
			pts = append(pts, point{idx: idx, time: g.lower, kind: pointRight, win: full})
			rights = append(rights, g.lower)
		}
		if !slices.Contains(lefts, g.upper) {
			pts = append(pts, point{idx: idx, time: g.upper, kind: pointLeft, win: full})
			lefts = append(lefts, g.upper)
		}
		lefts = append(lefts, g.lower)
		rights = append(rights, g.upper)
	}
	for _, g := range b.gaps {
		if !slices.Contains(rights, g.lower) {
			pts = append(pts, point{idx: idx, time: g.lower, kind: pointRight, win: full})
		}
		if !slices.Contains(lefts, g.upper) {
			pts = append(pts, point{idx: idx, time: g.upper, kind: pointLeft, win: full})
		}
	}
	return append(out, pts...)
}

// createPoints returns every buffer's points sorted by time, then kind
// (ends first), then buffer index. Well-formed gaps never give two points
// of one buffer the same time and kind, so the order is total.
func createPoints(bufs []buffer) []point {
	pts := make([]point, 0, 2*len(bufs))
	for i := range bufs {
		pts = bufferPoints(pts, i, &bufs[i])
	}
	slices.SortFunc(pts, func(a, b point) int {
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
type idxSet struct {
	pos  []int // pos[i]: index of i in list, or -1
	list []int
}

func newIdxSet(n int) idxSet {
	s := idxSet{pos: make([]int, n)}
	for i := range s.pos {
		s.pos[i] = -1
	}
	return s
}

func (s *idxSet) add(i int) {
	if s.pos[i] < 0 {
		s.pos[i] = len(s.list)
		s.list = append(s.list, i)
	}
}

func (s *idxSet) remove(i int) {
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
func sweep(bufs []buffer, eff func(a, b int) (int64, bool), look func() error, implicit int) (*sweepResult, error) {
	n := len(bufs)
	res := &sweepResult{data: make([]bufferData, n)}
	pts := createPoints(bufs)
	gapped := slices.ContainsFunc(bufs, func(b buffer) bool { return len(b.gaps) > 0 })
	store := implicit < 0 || gapped
	if implicit == 0 && !gapped {
		secTot, pairs := countSweep(pts)
		store = secTot <= implicitLimit && pairs <= implicitLimit
	}
	actives, alive := newIdxSet(n), newIdxSet(n)
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
		if pt.kind == pointRight {
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
			d.spans = append(d.spans, span{lo: start[b], hi: res.nsec, win: pt.win})
			if len(alive.list) == 0 {
				res.parts[len(res.parts)-1].lo = lastSection
				res.parts[len(res.parts)-1].hi = res.nsec
				lastSection = res.nsec
			}
		}
		if pt.kind == pointLeft {
			if len(alive.list) == 0 {
				res.parts = append(res.parts, partition{})
			}
			if pt.endpoint {
				pp := &res.parts[len(res.parts)-1]
				pp.bufs = append(pp.bufs, int32(b))
				if store {
					for _, a := range alive.list {
						if e, ok := eff(a, b); ok {
							res.data[a].overlaps = append(res.data[a].overlaps, overlap{b, e})
						}
						if e, ok := eff(b, a); ok {
							res.data[b].overlaps = append(res.data[b].overlaps, overlap{a, e})
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
		res.ix = newIntervalIndex(res.data, res.nsec)
		return res, nil
	}
	// Upstream keeps overlaps in an ordered set of (index, size).
	for i := range res.data {
		d := &res.data[i]
		d.nOver = int64(len(d.overlaps))
		slices.SortFunc(d.overlaps, func(x, y overlap) int {
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
func countSweep(pts []point) (secTot, pairs int64) {
	var live int64
	lastTime := int64(-1)
	for _, pt := range pts {
		if lastTime == -1 {
			lastTime = pt.time
		}
		if pt.kind == pointRight {
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
type intervalIndex struct {
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

func newIntervalIndex(data []bufferData, nsec int) *intervalIndex {
	n := len(data)
	ix := &intervalIndex{size: 1, lo: make([]int32, n), hi: make([]int32, n), byLo: make([]int32, n)}
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
func (ix *intervalIndex) each(f func(v int, b int32)) {
	for b := range ix.lo {
		coverNodes(ix.size, int(ix.lo[b]), int(ix.hi[b]), func(v int) { f(v, int32(b)) })
	}
}

// coverNodes calls f for each node of the fewest that cover leaves
// [l, r) of a segment tree of size leaves (root 1, leaves from size).
func coverNodes(size, l, r int, f func(v int)) {
	for l, r = l+size, r+size; l < r; l, r = l/2, r/2 {
		if l&1 == 1 {
			f(l)
			l++
		}
		if r&1 == 1 {
			r--
			f(r)
		}
	}
}

// cuts returns, for each pair of adjacent sections i and i+1, how many
// buffers span both.
func (r *sweepResult) cuts() []int64 {
	// Each buffer adds one to the cuts [lo, hi-1): a difference array,
	// summed once, rather than a step a section.
	c := make([]int64, max(r.nsec, 1))
	for _, d := range r.data {
		if lo, hi := d.spans[0].lo, d.spans[len(d.spans)-1].hi; lo+1 < hi {
			c[lo]++
			c[hi-1]--
		}
	}
	for k := 1; k < len(c); k++ {
		c[k] += c[k-1]
	}
	return c[:max(r.nsec-1, 0)]
}
