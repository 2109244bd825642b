package exact

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"time"
)

// outcome is what one feasibility search ends with.
type outcome int

const (
	// found: every buffer of the part fits within the capacity.
	found outcome = iota
	// infeasible: the search was complete and found nothing: proved.
	infeasible
	// aborted: the node limit, the deadline or the context ended it.
	aborted
)

// noOffset marks an unplaced buffer.
const noOffset = -1

// budget is what a whole Plan call may spend: search nodes (deterministic)
// and wall time.
type budget struct {
	ctx      context.Context
	deadline time.Time // zero: none
	nodes    int64     // nodes left; < 0: unlimited
	err      error     // ctx's error once seen
	timedOut bool
	// skip sets how often the clock and ctx are read: every 256>>skip
	// nodes of a search. A node of a large problem can take milliseconds
	// (a pinwheel of 1,000 buffers: 10 ms), so a fixed 256 let a 10 s
	// budget run 13 s; spent adapts skip so that reads are about a
	// millisecond apart.
	skip  uint8
	clock time.Time // the last read, zero before the first
	// pairs remembers pairGroups' answers by the sizes paired (pairsOf).
	pairs map[string][][2]uint64
	// sums remembers the filler's answers by the sizes and total asked
	// about (filler.sumMemo).
	sums sumMemo
}

// every is the node-count mask between reads of the clock.
func (b *budget) every() int64 { return 255 >> b.skip }

// spent reports whether the deadline passed or ctx ended; it records why.
func (b *budget) spent() bool {
	if b.err != nil || b.timedOut {
		return true
	}
	if err := b.ctx.Err(); err != nil {
		b.err = err
		return true
	}
	if b.deadline.IsZero() {
		return false
	}
	now := time.Now()
	if !b.clock.IsZero() {
		b.skip = adaptSkip(b.skip, now.Sub(b.clock))
	}
	b.clock = now
	if now.After(b.deadline) {
		b.timedOut = true
		return true
	}
	return false
}

// adaptSkip scales the nodes between reads of the clock by d, the time
// since the last read: 2 ms or more shrinks them by d's power of two in
// milliseconds (down to every node), less than a quarter of one doubles
// them (up to 256).
func adaptSkip(skip uint8, d time.Duration) uint8 {
	switch {
	case d >= 2*time.Millisecond:
		return uint8(min(8, int(skip)+bits.Len64(uint64(d/time.Millisecond))-1))
	case d < time.Millisecond/4 && skip > 0:
		return skip - 1
	}
	return skip
}

// pace counts a search's nodes against its budget and its share.
type pace struct {
	b *budget
	// limit is the node count at which the search pauses (when run as a
	// coroutine, by yield) or else aborts.
	limit, count int64
	// yield hands control back to the driver of a paused search; false
	// means the driver gave the search up.
	yield func(struct{}) bool
	// stop, where above 0, is the node count past which the search
	// aborts without pausing: a band's cap (band.go), checked at every
	// node (when only at reads of the clock, whose skip follows the time
	// a node takes, a cap passed by up to 255 nodes and timed runs went
	// other ways from one run to the next).
	stop int64
	// quit: the driver gave the search up or its limit ended it (no
	// yield); nothing more may be searched.
	quit bool
	// repair: the banded engine on this pace caps its bands and looks
	// for other pairings where they fail (band.go, repair.go).
	repair bool
}

func (p *pace) pacer() *pace { return p }

// node counts one search node; false means the search must abort: its
// driver gave it up, or the budget of nodes, time or ctx ended.
func (p *pace) node() bool {
	p.count++
	// The common case, kept small enough to be inlined.
	// Below stop, or no stop (0 or less: stop-1 is then above every
	// count as unsigned), in one comparison.
	if p.count <= p.limit && uint64(p.count-1) <= uint64(p.stop-1) && p.b.nodes < 0 && p.count&p.b.every() != 0 {
		return true
	}
	return p.check()
}

func (p *pace) check() bool {
	if p.stop > 0 && p.count > p.stop {
		return false
	}
	if p.count > p.limit && (p.yield == nil || !p.yield(struct{}{})) {
		p.quit = true
		return false
	}
	if p.b.nodes == 0 {
		return false
	}
	if p.b.nodes > 0 {
		p.b.nodes--
	}
	return p.count&p.b.every() != 0 || !p.b.spent()
}

// ended reports whether nothing more may be searched on p: its driver
// gave it up, or the budget of nodes, time or ctx ended.
func (p *pace) ended() bool { return p.quit || p.b.nodes == 0 || p.b.spent() }

// searcher is a MiniMalloc-style depth-first search over canonical
// solutions at a fixed capacity: buffers are placed in non-decreasing
// order of offset, each at the lowest offset above the placed buffers it
// overlaps, so a solution is a placement order.
type searcher struct {
	pace
	in   *instance
	heur string // the keys of the static order
	cap  int64
	// rank[k] is buffer k's place in the static order: the tie-breaker
	// between buffers that could go at the same offset.
	rank []int32
	// seed, when not 0, perturbs the static order (minimise's restarts,
	// perturb).
	seed uint64

	off    []int64 // offset of each buffer, noOffset while unplaced
	minOff []int64 // lowest offset each unplaced buffer can take
	floor  []int64 // per section: no unplaced buffer of it goes below
	total  []int64 // per section: sum of the asize of its unplaced buffers
	// room holds, per section, the highest base from which its unplaced
	// buffers, stacked, still fit: cap + pad - total.
	room minTree
	ceil []int64 // scratch for room

	offUndo   []change
	floorUndo []change
	touched   []int32 // sections whose floor may rise; scratch
	mark      []bool  // per section: in touched
	cuts      []int32 // per section t: unplaced buffers in both t and t+1
	// live[t][:nLive[t]] are the unplaced buffers of section t (of
	// in.secBufs[t], in some order), so that a floor is found without
	// looking at the placed ones; pos[s.slot(k, t)] is k's place in
	// live[t]. Placing k swaps it to the end of the unplaced ones;
	// posUndo keeps where it was.
	live    [][]int32
	nLive   []int32
	pos     []int32
	slotAt  []int32 // per buffer: the slot of its first section
	posUndo []int32
	cutAt   []int32 // scratch
	// sideOld, per section, all 1<<62-1 between places: in place (in
	// the uniform case), the lowest old minimum offset of the raised
	// buffers whose sections left of k's start there, or right of k's
	// end there.
	sideOld []int64
	// held (len(in.load)+1, all 0 between places) counts, as
	// differences from one section to the next, the buffers raised to
	// k's top in each of k's sections; stands marks those it counts
	// (uniform only).
	held   []int32
	stands []bool
	// witness, per section, is the buffer (of its live ones when
	// unplaced) that the last look found holding its floor down, or -1:
	// looked at first. A hint only: it changes no floor.
	witness []int32
	sol     []int64 // offsets of the last placement found
	cands   [][]cand
}

type change struct {
	at  int32
	old int64
}

type cand struct {
	off  int64
	rank int32
	buf  int32
}

// newSearcher prepares a search whose static order sorts buffers by the
// keys of heur, each descending: W the lifetime, A the area (size times
// lifetime), T the largest load of unplaced bytes among its sections.
func newSearcher(in *instance, heur string) *searcher {
	n := len(in.size)
	s := &searcher{
		in: in, heur: heur, rank: make([]int32, n),
		off: make([]int64, n), minOff: make([]int64, n),
		floor: make([]int64, len(in.load)), total: make([]int64, len(in.load)),
		mark: make([]bool, len(in.load)), cuts: make([]int32, len(in.load)),
		sol: make([]int64, n), slotAt: make([]int32, n+1),
		live: make([][]int32, len(in.load)), nLive: make([]int32, len(in.load)),
		sideOld: make([]int64, len(in.load)),
		held:    make([]int32, len(in.load)+1), stands: make([]bool, len(in.load)),
	}
	s.witness = make([]int32, len(in.load))
	for t := range s.sideOld {
		s.sideOld[t] = 1<<62 - 1
		s.witness[t] = -1
	}
	for k := range n {
		var w int32
		for _, r := range in.runsOf(int32(k)) {
			w += r.hi - r.lo
		}
		s.slotAt[k+1] = s.slotAt[k] + w
	}
	s.pos = make([]int32, s.slotAt[n])
	return s
}

// rankBufs ranks bufs (0 up) in the searcher's static order, with the
// current loads of unplaced bytes.
func (s *searcher) rankBufs(bufs []int32) {
	in := s.in
	key := func(k int32, c byte) int64 {
		switch c {
		case 'W':
			return int64(in.last[k] - in.first[k] + 1)
		case 'A':
			return in.size[k] * int64(in.last[k]-in.first[k]+1)
		case 'S':
			return in.size[k]
		}
		var t int64
		for x := in.secLo[k]; x < in.secHi[k]; x++ {
			t = max(t, s.total[x])
		}
		return t
	}
	type keyed struct {
		k    int32
		keys [3]int64
	}
	ks := make([]keyed, len(bufs))
	for i, k := range bufs {
		ks[i].k = k
		for x := range 3 {
			ks[i].keys[x] = key(k, s.heur[x])
		}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		for x := range 3 {
			if c := cmp.Compare(b.keys[x], a.keys[x]); c != 0 {
				return c
			}
		}
		// Identical buffers end up next to each other, by index.
		if c := cmp.Compare(in.size[b.k], in.size[a.k]); c != 0 {
			return c
		}
		if c := cmp.Compare(in.first[a.k], in.first[b.k]); c != 0 {
			return c
		}
		if c := cmp.Compare(in.last[a.k], in.last[b.k]); c != 0 {
			return c
		}
		return cmp.Compare(a.k, b.k)
	})
	if s.seed != 0 {
		perturb(ks, s.seed)
	}
	for r, x := range ks {
		s.rank[x.k] = int32(r)
	}
}

// solve searches for a placement of part pt within capacity c, spending at
// most limit nodes. On found, s.sol holds the offsets of pt's buffers.
func (s *searcher) solve(pt *part, c, limit int64) outcome {
	s.cap, s.limit, s.count = c, limit, 0
	in := s.in
	if pt.lb > c || pt.alb > c {
		return infeasible
	}
	for _, k := range pt.bufs {
		s.off[k] = noOffset
		s.minOff[k] = 0
		if in.minInit != nil {
			s.minOff[k] = in.minInit[k]
		}
	}
	for t := pt.secLo; t < pt.secHi; t++ {
		s.floor[t] = 0
		s.total[t] = in.aload[t]
		s.cuts[t] = 0
		s.live[t] = append(s.live[t][:0], in.secBufs[t]...)
		s.nLive[t] = int32(len(s.live[t]))
		for x, j := range s.live[t] {
			s.pos[s.slot(j, t)] = int32(x)
		}
	}
	if s.ceil == nil {
		s.ceil = make([]int64, len(in.load))
	}
	for t := range s.ceil {
		s.ceil[t] = c + in.pad[t] - in.aload[t]
	}
	s.room.reset(s.ceil)
	// cuts[t]: unplaced buffers living in both section t and t+1.
	for _, k := range pt.bufs {
		for t := in.secLo[k]; t+1 < in.secHi[k]; t++ {
			s.cuts[t]++
		}
	}
	s.offUndo, s.floorUndo, s.posUndo = s.offUndo[:0], s.floorUndo[:0], s.posUndo[:0]
	s.rankBufs(pt.bufs)
	return s.dfs(pt, len(pt.bufs), 0, 0, 0)
}

// dfs places the remaining buffers of pt. Canonical order: the next
// buffer goes at an offset >= minOffset, and at minOffset only if its rank
// is above minRank. It leaves the state as it found it; on found, s.sol
// holds the offsets of every buffer it placed.
func (s *searcher) dfs(pt *part, remaining, depth int, minOffset int64, minRank int32) outcome {
	if remaining == 0 {
		return found
	}
	if !s.node() {
		return aborted
	}
	in := s.in
	// The lowest top any unplaced buffer can reach: a buffer placed at or
	// above it would leave a gap the other buffer could have filled first
	// (dominance), so only buffers below it are branched on.
	// A fixed buffer waits at its offset: nothing goes above it first,
	// or it could never go.
	minHeight := int64(1<<62 - 1)
	for _, k := range pt.bufs {
		if s.off[k] == noOffset {
			if in.isFixed(k) {
				minHeight = min(minHeight, s.minOff[k]+1)
			} else {
				minHeight = min(minHeight, s.minOff[k]+in.size[k])
			}
		}
	}
	if depth >= len(s.cands) {
		s.cands = append(s.cands, nil)
	}
	cs := s.cands[depth][:0]
	for _, k := range pt.bufs {
		if s.off[k] != noOffset || s.minOff[k] >= minHeight {
			continue
		}
		if t := s.in.twin[k]; t >= 0 && s.off[t] == noOffset {
			continue // its identical twin goes first
		}
		o := s.minOff[k]
		if o < minOffset || o == minOffset && s.rank[k] < minRank {
			continue
		}
		cs = append(cs, cand{o, s.rank[k], k})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.off != b.off {
			return cmp.Compare(a.off, b.off)
		}
		return cmp.Compare(a.rank, b.rank)
	})
	s.cands[depth] = cs
	for i := range cs {
		c := s.cands[depth][i]
		r, hatless := s.place(pt, c)
		if r == found {
			s.sol[c.buf] = c.off
			r = s.next(pt, c, remaining-1, depth+1)
		}
		s.unplace(c)
		if r != infeasible {
			return r
		}
		if hatless {
			// Nothing unplaced overlaps it: its offset is fixed, and
			// placing it affects no other buffer, so no other choice
			// here can succeed where this one failed.
			break
		}
	}
	return infeasible
}

// next goes on after placing c: where no unplaced buffer of pt is left
// across some boundary of time, the sides are independent and are
// searched apart, each from the bottom (MiniMalloc's dynamic
// decomposition); otherwise the search goes deeper.
func (s *searcher) next(pt *part, c cand, remaining, depth int) outcome {
	in := s.in
	k := c.buf
	cutAt := s.cutAt[:0]
	for t := in.secLo[k]; t+1 < in.secHi[k]; t++ {
		s.cuts[t]--
		if s.cuts[t] == 0 && t+1 > pt.secLo && t+1 < pt.secHi {
			cutAt = append(cutAt, t+1)
		}
	}
	s.cutAt = cutAt
	var r outcome
	if len(cutAt) == 0 || remaining == 0 {
		r = s.dfs(pt, remaining, depth, c.off, c.rank)
	} else {
		bounds := append([]int32{pt.secLo}, cutAt...)
		bounds = append(bounds, pt.secHi)
		r = found
		for x := 0; x+1 < len(bounds) && r == found; x++ {
			sub := &part{secLo: bounds[x], secHi: bounds[x+1], lb: pt.lb, alb: pt.alb}
			for _, j := range pt.bufs {
				if s.off[j] == noOffset && in.secLo[j] < sub.secHi && in.secHi[j] > sub.secLo {
					sub.bufs = append(sub.bufs, j)
				}
			}
			if len(sub.bufs) > 0 {
				// Each side is ranked afresh with its current loads,
				// then the ranks are put back.
				old := make([]int32, len(sub.bufs))
				for x, j := range sub.bufs {
					old[x] = s.rank[j]
				}
				s.rankBufs(sub.bufs)
				r = s.dfs(sub, len(sub.bufs), depth, 0, 0)
				for x, j := range sub.bufs {
					s.rank[j] = old[x]
				}
			}
		}
	}
	for t := in.secLo[k]; t+1 < in.secHi[k]; t++ {
		s.cuts[t]++
	}
	return r
}

// markSide takes section t, beside k's, into a place's sweep outward
// from k: low, the lowest old offset of the raised buffers seen so far
// on the way, comes to include t's; where it is at or below t's floor the
// floor may rise, and the raised buffers, now at next, hold it when next
// is at or below it. It returns low.
func (s *searcher) markSide(t int32, low, next int64) int64 {
	low = min(low, s.sideOld[t])
	s.sideOld[t] = 1<<62 - 1
	if low <= s.floor[t] {
		s.mark[t] = true
		s.touched = append(s.touched, t)
		s.stands[t] = next <= s.floor[t]
	}
	return low
}

// place puts candidate c at its offset and updates the floors; it returns
// infeasible when some section's unplaced buffers can no longer fit. It
// also reports whether no unplaced buffer overlaps c's.
func (s *searcher) place(pt *part, c cand) (res outcome, hatless bool) {
	in := s.in
	k := c.buf
	s.off[k] = c.off
	s.offUndo = append(s.offUndo, change{-1, 0}) // frame marker
	s.floorUndo = append(s.floorUndo, change{-1, 0})
	top := c.off + in.size[k]
	next := alignUp(top, in.align)
	s.touched = s.touched[:0]
	hatless = true
	// uniform: the sections of raised buffers left of k's, [sideLo, ka),
	// and right of them, [kb, sideHi).
	ka, kb := in.secLo[k], in.secHi[k]
	sideLo, sideHi := ka, kb
	for x, j := range in.overlaps[k] {
		if s.off[j] != noOffset {
			continue
		}
		hatless = false
		if in.isFixed(j) {
			continue // k kept clear of it
		}
		next := next
		if !in.uniform {
			// j's own alignment, its effective size above k, and the
			// fixed buffers in its way.
			next = alignUp(max(c.off+in.upOf(k, x), 0), in.al[j])
			if in.obst != nil {
				next = firstFit(next, in.al[j], in.obst[j])
			}
		}
		if s.minOff[j] >= next {
			continue
		}
		old := s.minOff[j]
		s.offUndo = append(s.offUndo, change{j, old})
		s.minOff[j] = next
		// A section's floor is never below the lowest minimum offset of
		// its unplaced buffers; if j's was above the floor, another
		// buffer's holds the floor down, and raising j's changes nothing
		// there.
		if in.uniform {
			// One run: the whole lifetime (the hot path). The sections
			// k lives in are looked at anyway (below), so only those of
			// j's on either side of k's are. j shares a section with k,
			// so its sections left of k's run up to k's first: section
			// t there is looked at when the lowest old minimum offset
			// of the buffers raised that start at or before t is at
			// most its floor. Keeping only that lowest per first
			// section and sweeping once (below) costs one step a
			// section instead of one a section for each buffer raised
			// (D and J: buffers that live almost throughout).
			if lo := in.secLo[j]; lo < ka {
				s.sideOld[lo] = min(s.sideOld[lo], old)
				sideLo = min(sideLo, lo)
			}
			if hi := in.secHi[j]; hi > kb {
				s.sideOld[hi-1] = min(s.sideOld[hi-1], old)
				sideHi = max(sideHi, hi)
			}
			// j now sits at next, k's top, in the sections it shares
			// with k: their floors stand (below).
			s.held[max(in.secLo[j], ka)]++
			s.held[min(in.secHi[j], kb)]--
			continue
		}
		for _, r := range in.runsOf(j) {
			for t := r.lo; t < r.hi; t++ {
				if !s.mark[t] && old <= s.floor[t] {
					s.mark[t] = true
					s.touched = append(s.touched, t)
				}
			}
		}
	}
	if in.uniform {
		low := int64(1<<62 - 1)
		for t := sideLo; t < ka; t++ {
			low = s.markSide(t, low, next)
		}
		low = 1<<62 - 1
		for t := sideHi - 1; t >= kb; t-- {
			low = s.markSide(t, low, next)
		}
	}
	for _, r := range in.runsOf(k) {
		// Offsets are aligned: nothing goes between the top of k's
		// window and the next multiple of the alignment.
		fl := next
		if !in.uniform {
			fl = alignUp(c.off+r.whi, in.align)
		}
		var held int32
		for t := r.lo; t < r.hi; t++ {
			if in.uniform {
				held += s.held[t]
				s.held[t] = 0
				s.stands[t] = held > 0
			}
			s.floorUndo = append(s.floorUndo, change{t, s.floor[t]})
			s.floor[t] = fl
			s.total[t] -= r.w
			s.unlive(k, t)
			// k leaves the section's unplaced buffers: look again.
			if !s.mark[t] {
				s.mark[t] = true
				s.touched = append(s.touched, t)
			}
		}
		if in.uniform {
			s.held[r.hi] = 0
		}
		s.room.rangeAdd(int(r.lo), int(r.hi), r.w)
	}
	if in.uniform && next <= s.cap && s.room.rangeMin(int(ka), int(kb)) < next {
		// One of k's sections cannot stack its unplaced buffers from
		// k's top, below which its floor never goes: the check below
		// would fail it whatever floors rise, so they are not looked at.
		for _, t := range s.touched {
			s.mark[t], s.stands[t] = false, false
		}
		return infeasible, hatless
	}
	// A section's unplaced buffers all lie at or above the lowest of
	// their minimum offsets.
	for _, t := range s.touched {
		s.mark[t] = false
		if s.stands[t] {
			// A raised buffer lies at k's top, at or below the floor.
			s.stands[t] = false
			continue
		}
		f := s.floor[t]
		if w := s.witness[t]; w >= 0 && s.off[w] == noOffset && s.minOff[w] <= f {
			continue // the buffer that held the floor last still does
		}
		// Stop at the first unplaced buffer that could go at or below
		// the floor: then the floor stands.
		lowest := int64(1<<62 - 1)
		for _, j := range s.live[t][:s.nLive[t]] {
			if s.minOff[j] <= f {
				lowest = f
				s.witness[t] = j
				break
			}
			lowest = min(lowest, s.minOff[j])
		}
		if lowest != 1<<62-1 && lowest > f {
			s.floorUndo = append(s.floorUndo, change{t, s.floor[t]})
			s.floor[t] = lowest
		}
	}
	// Inference: every later buffer lies at or above c.off (canonical
	// order) and above its section's floor, and a section's unplaced
	// buffers are stacked, each but the top one taking its asize. The
	// sections not touched kept their floor and load since the last check
	// passed; while c.off plus the part's peak load fits, the rise of
	// c.off cannot fail them.
	if c.off+pt.alb > s.cap {
		if s.room.rangeMin(int(pt.secLo), int(pt.secHi)) < c.off {
			return infeasible, hatless
		}
		// A section with less room than one alignment step above c.off
		// needs a buffer at c.off exactly, to come after c in canonical
		// order: one of rank above c's whose minimum offset is c.off
		// (a buffer whose minimum is below c.off can only go above it
		// later).
		filled := s.room.below(int(pt.secLo), int(pt.secHi), c.off+in.align, func(t int) bool {
			if s.total[t] == 0 {
				return true
			}
			for _, j := range s.live[t][:s.nLive[t]] {
				if s.minOff[j] == c.off && s.rank[j] > c.rank {
					return true
				}
			}
			return false
		})
		if !filled {
			return infeasible, hatless
		}
	}
	for _, t := range s.touched {
		if s.total[t] > 0 && s.floor[t]+s.total[t]-in.pad[t] > s.cap {
			return infeasible, hatless
		}
	}
	if top > s.cap {
		return infeasible, hatless
	}
	return found, hatless
}

// unplace undoes place(c).
func (s *searcher) unplace(c cand) {
	in := s.in
	k := c.buf
	s.floorUndo = rollBack(s.floorUndo, s.floor)
	s.offUndo = rollBack(s.offUndo, s.minOff)
	runs := in.runsOf(k)
	for x := len(runs) - 1; x >= 0; x-- {
		r := runs[x]
		for t := r.hi - 1; t >= r.lo; t-- {
			s.total[t] += r.w
			s.relive(k, t)
		}
		s.room.rangeAdd(int(r.lo), int(r.hi), -r.w)
	}
	s.off[k] = noOffset
}

// slot returns the index in pos of buffer k's place in section t, where
// k is in use.
func (s *searcher) slot(k, t int32) int32 {
	in := s.in
	if in.uniform {
		return s.slotAt[k] + t - in.secLo[k]
	}
	at := s.slotAt[k]
	for _, r := range in.runsOf(k) {
		if t < r.hi {
			return at + t - r.lo
		}
		at += r.hi - r.lo
	}
	panic("exact: slot of a section the buffer does not use")
}

// unlive takes k out of section t's unplaced buffers, swapping it with
// the last of them.
func (s *searcher) unlive(k, t int32) {
	sk := s.slot(k, t)
	p := s.pos[sk]
	last := s.nLive[t] - 1
	if p != last {
		m := s.live[t][last]
		s.live[t][p], s.live[t][last] = m, k
		s.pos[s.slot(m, t)], s.pos[sk] = p, last
	}
	s.nLive[t] = last
	s.posUndo = append(s.posUndo, p)
}

// relive undoes the last unlive, of k from t.
func (s *searcher) relive(k, t int32) {
	p := s.posUndo[len(s.posUndo)-1]
	s.posUndo = s.posUndo[:len(s.posUndo)-1]
	last := s.nLive[t]
	if p != last {
		m := s.live[t][p]
		s.live[t][p], s.live[t][last] = k, m
		s.pos[s.slot(k, t)], s.pos[s.slot(m, t)] = p, last
	}
	s.nLive[t] = last + 1
}

func alignUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

func (s *searcher) offsets() []int64 { return s.sol }

// rollBack restores vals from the changes logged since the last frame
// marker, newest first, and returns the log without them.
func rollBack(log []change, vals []int64) []change {
	for {
		u := log[len(log)-1]
		log = log[:len(log)-1]
		if u.at < 0 {
			return log
		}
		vals[u.at] = u.old
	}
}
