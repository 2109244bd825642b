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
// order the sweep closes them, and its overlaps, by buffer index.
type bufferData struct {
	spans    []span
	overlaps []overlap
}

// partition is a set of buffers that share no time with any other
// partition's, and the sections [lo, hi) they span.
type partition struct {
	bufs   []int
	lo, hi int
}

// sweepResult is the sweep's output: the cross sections of buffers live
// together, the partitions and each buffer's data.
type sweepResult struct {
	sections [][]int
	parts    []partition
	data     []bufferData
}

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
// their effective sizes exist.
func sweep(bufs []buffer, eff func(a, b int) (int64, bool), look func() error) (*sweepResult, error) {
	n := len(bufs)
	res := &sweepResult{data: make([]bufferData, n)}
	pts := createPoints(bufs)
	actives, alive := newIdxSet(n), newIdxSet(n)
	lastTime := int64(-1)
	lastSection := 0
	start := make([]int, n)
	for i := range start {
		start[i] = -1
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
				res.sections = append(res.sections, slices.Clone(actives.list))
			}
			actives.remove(b)
			if pt.endpoint {
				alive.remove(b)
			}
			d := &res.data[b]
			d.spans = append(d.spans, span{lo: start[b], hi: len(res.sections), win: pt.win})
			if len(alive.list) == 0 {
				res.parts[len(res.parts)-1].lo = lastSection
				res.parts[len(res.parts)-1].hi = len(res.sections)
				lastSection = len(res.sections)
			}
		}
		if pt.kind == pointLeft {
			if len(alive.list) == 0 {
				res.parts = append(res.parts, partition{})
			}
			if pt.endpoint {
				pp := &res.parts[len(res.parts)-1]
				pp.bufs = append(pp.bufs, b)
				for _, a := range alive.list {
					if e, ok := eff(a, b); ok {
						res.data[a].overlaps = append(res.data[a].overlaps, overlap{b, e})
					}
					if e, ok := eff(b, a); ok {
						res.data[b].overlaps = append(res.data[b].overlaps, overlap{a, e})
					}
				}
			}
			actives.add(b)
			if pt.endpoint {
				alive.add(b)
			}
			start[b] = len(res.sections)
		}
	}
	// Upstream keeps overlaps in an ordered set of (index, size).
	for i := range res.data {
		slices.SortFunc(res.data[i].overlaps, func(x, y overlap) int {
			if c := cmp.Compare(x.idx, y.idx); c != 0 {
				return c
			}
			return cmp.Compare(x.eff, y.eff)
		})
	}
	return res, nil
}

// cuts returns, for each pair of adjacent sections i and i+1, how many
// buffers span both.
func (r *sweepResult) cuts() []int64 {
	c := make([]int64, max(len(r.sections)-1, 0))
	for _, d := range r.data {
		for s := d.spans[0].lo; s+1 < d.spans[len(d.spans)-1].hi; s++ {
			c[s]++
		}
	}
	return c
}
