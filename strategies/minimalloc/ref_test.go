package minimalloc

// The solver and sweep as they were before the speed work (commit
// f82698b), kept for the differential test (TestDifferential): the new
// code must return the same offsets, heights and node counts.

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// orderData is an unplaced buffer in the dynamic order: its lowest
// possible offset and its place in the static preorder.
type orderData struct {
	offset int64
	pre    int
}

// orderLess is upstream's dynamic order: lower offset first, then earlier
// in the preorder.
func orderLess(a, b orderData) bool {
	if a.offset != b.offset {
		return a.offset < b.offset
	}
	return a.pre < b.pre
}

func orderCmp(a, b orderData) int {
	if orderLess(a, b) {
		return -1
	}
	if orderLess(b, a) {
		return 1
	}
	return 0
}

// refOverlap is a buffer that shares time with another, and the least
// distance above the other's offset at which it may sit.
type refOverlap struct {
	idx int
	eff int64
}

// refBufferData is what the refSweep learns about one buffer: its spans, in the
// order the refSweep closes them, and its overlaps, by buffer index.
type refBufferData struct {
	spans    []span
	overlaps []refOverlap
}

// refPartition is a set of buffers that share no time with any other
// refPartition's, and the sections [lo, hi) they span.
type refPartition struct {
	bufs   []int
	lo, hi int
}

// refSweepResult is the refSweep's output: the cross sections of buffers live
// together, the partitions and each buffer's data.
type refSweepResult struct {
	sections [][]int
	parts    []refPartition
	data     []refBufferData
}

// refIdxSet is a set of buffer indexes that lists its members in a slice.
type refIdxSet struct {
	pos  []int // pos[i]: index of i in list, or -1
	list []int
}

func refNewIdxSet(n int) refIdxSet {
	s := refIdxSet{pos: make([]int, n)}
	for i := range s.pos {
		s.pos[i] = -1
	}
	return s
}

func (s *refIdxSet) add(i int) {
	if s.pos[i] < 0 {
		s.pos[i] = len(s.list)
		s.list = append(s.list, i)
	}
}

func (s *refIdxSet) remove(i int) {
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

// refSweep is upstream's Sweep: it walks the points in order, keeping the
// buffers active now (using memory) and alive (between their endpoints).
// Before the first end at a new time it closes a section holding the
// active buffers; each end closes a span of its buffer from the section
// where it last started; when nothing is alive any more, the current
// refPartition ends. Each buffer, at its first point, joins the refPartition
// and records its overlaps with every alive buffer, both ways, where
// their effective sizes exist.
func refSweep(bufs []buffer, eff func(a, b int) (int64, bool), look func() error) (*refSweepResult, error) {
	n := len(bufs)
	res := &refSweepResult{data: make([]refBufferData, n)}
	pts := createPoints(bufs)
	actives, alive := refNewIdxSet(n), refNewIdxSet(n)
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
				res.parts = append(res.parts, refPartition{})
			}
			if pt.endpoint {
				pp := &res.parts[len(res.parts)-1]
				pp.bufs = append(pp.bufs, b)
				for _, a := range alive.list {
					if e, ok := eff(a, b); ok {
						res.data[a].overlaps = append(res.data[a].overlaps, refOverlap{b, e})
					}
					if e, ok := eff(b, a); ok {
						res.data[b].overlaps = append(res.data[b].overlaps, refOverlap{a, e})
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
		slices.SortFunc(res.data[i].overlaps, func(x, y refOverlap) int {
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
func (r *refSweepResult) cuts() []int64 {
	c := make([]int64, max(len(r.sections)-1, 0))
	for _, d := range r.data {
		for s := d.spans[0].lo; s+1 < d.spans[len(d.spans)-1].hi; s++ {
			c[s]++
		}
	}
	return c
}

// refOffsetChange and refSectionChange record a value before the search changed
// it, to undo the change.
type refOffsetChange struct {
	idx int
	min int64
}

type refSectionChange struct {
	sec   int
	floor int64
}

// refSolver is upstream's SolverImpl: the search for offsets within one
// capacity.
type refSolver struct {
	params   *solverParams
	run      *run
	maxNodes int64 // the run's nodes past which it stops as at a deadline; 0: none
	bufs     []buffer
	capacity int64
	sw       *refSweepResult

	assign  []int64 // placed offsets, noOffset when unplaced
	sol     []int64 // the solution, refPartition by refPartition
	minOffs []int64 // lowest offset each unplaced buffer may take
	floor   []int64 // per section: lowest offset left for its buffers
	total   []int64 // per section: the bytes of its unplaced buffers
	cuts    []int64 // per pair of adjacent sections: buffers spanning both

	nodesLeft int64

	// Scratch: section marks for updateSectionData; the stack of the
	// dynamic orders of the levels of the search; the raised buffers of
	// computeOrdering; the stacks of changes to undo.
	mark     []int64
	stamp    int64
	touched  []int
	ords     []orderData
	raised   []orderData
	offStack []refOffsetChange
	secStack []refSectionChange
}

func refNewSolver(params *solverParams, r *run, bufs []buffer, capacity int64, sw *refSweepResult) *refSolver {
	return &refSolver{params: params, run: r, bufs: bufs, capacity: capacity, sw: sw, nodesLeft: math.MaxInt64}
}

// solve is SolverImpl::Solve: one search over every refPartition in turn
// with a single heuristic and no node limit, or a round robin of them.
func (s *refSolver) solve() ([]int64, int64, status) {
	n := len(s.bufs)
	if n == 0 {
		return []int64{}, 0, stOK
	}
	s.assign = make([]int64, n)
	s.sol = make([]int64, n)
	s.minOffs = make([]int64, n)
	for i := range s.assign {
		s.assign[i], s.sol[i] = noOffset, noOffset
	}
	ns := len(s.sw.sections)
	s.floor = make([]int64, ns)
	s.total = make([]int64, ns)
	s.mark = make([]int64, ns)
	for i := range s.bufs {
		for _, sp := range s.sw.data[i].spans {
			for k := sp.lo; k < sp.hi; k++ {
				s.total[k] += sp.win.hi - sp.win.lo
			}
		}
		if f := s.bufs[i].fixed; f != noOffset {
			s.minOffs[i] = f
		}
	}
	s.cuts = s.sw.cuts()
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

// roundRobin tries the heuristics in turn, each on every refPartition with a
// node limit that starts at twice the number of buffers and doubles each
// round, until one finishes. A proof of infeasibility or a timeout ends
// it at once.
func (s *refSolver) roundRobin() ([]int64, int64, status) {
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
func (s *refSolver) subSolve(pt *refPartition, h string) status {
	pre := make([]preorderData, 0, len(pt.bufs))
	for _, i := range pt.bufs {
		b := &s.bufs[i]
		d := &s.sw.data[i]
		var total int64
		for _, sp := range d.spans {
			for k := sp.lo; k < sp.hi; k++ {
				total = max(total, s.total[k])
			}
		}
		pre = append(pre, preorderData{
			area:     b.size * (b.upper - b.lower),
			lower:    b.lower,
			overlaps: int64(len(d.overlaps)),
			sections: int64(d.spans[len(d.spans)-1].hi - d.spans[0].lo),
			size:     b.size,
			total:    total,
			upper:    b.upper,
			width:    b.upper - b.lower,
			idx:      i,
		})
	}
	if s.params.StaticPreordering {
		slices.SortFunc(pre, func(a, b preorderData) int {
			if preorderLess(h, &a, &b) {
				return -1
			}
			if preorderLess(h, &b, &a) {
				return 1
			}
			return 0
		})
	}
	order := make([]orderData, len(pre))
	for k := range order {
		order[k].pre = k
	}
	return s.search(pt, h, pre, order, 0, 0)
}

// updateMinOffsets raises the lowest offset of every unplaced buffer that
// overlaps buffer i, just placed, to i's offset plus i's effective size
// below it, rounded up to its alignment. It pushes the changes on
// s.offStack and reports whether
// i has any unplaced refOverlap at all (hatless: none), whether a fixed
// buffer was pushed above its offset, and, with unallocated_floor, marks
// the sections of the raised buffers.
func (s *refSolver) updateMinOffsets(i int) (hatless, fixedFail bool) {
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
		h := off + ov.eff
		if s.minOffs[o] >= h {
			continue
		}
		s.offStack = append(s.offStack, refOffsetChange{o, s.minOffs[o]})
		s.minOffs[o] = h
		ob := &s.bufs[o]
		if d := s.minOffs[o] % ob.align; d > 0 {
			s.minOffs[o] += ob.align - d
		}
		if ob.fixed != noOffset && s.minOffs[o] > ob.fixed {
			fixedFail = true
		}
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

// updateSectionData pushes on s.secStack the changes it makes: it raises the floor of each section buffer i spans to
// the top of its window there and takes its bytes off the section's
// total; then raises the floor of each marked section to the lowest
// offset any of its unplaced buffers may take.
func (s *refSolver) updateSectionData(i int) {
	off := s.assign[i]
	for _, sp := range s.sw.data[i].spans {
		h := off + sp.win.hi
		for k := sp.lo; k < sp.hi; k++ {
			s.secStack = append(s.secStack, refSectionChange{k, s.floor[k]})
			s.floor[k] = h
			s.total[k] -= sp.win.hi - sp.win.lo
		}
	}
	if !s.params.UnallocatedFloor {
		return
	}
	for _, k := range s.touched {
		// The floor rises only when every unplaced buffer's minimum offset
		// is above it, so the first at or below it settles the question.
		lo := int64(math.MaxInt64)
		for _, o := range s.sw.sections[k] {
			if s.assign[o] == noOffset {
				lo = min(lo, s.minOffs[o])
				if lo <= s.floor[k] {
					break
				}
			}
		}
		if lo != math.MaxInt64 && s.floor[k] < lo {
			s.secStack = append(s.secStack, refSectionChange{k, s.floor[k]})
			s.floor[k] = lo
		}
	}
}

// restoreSectionData undoes updateSectionData for buffer i, popping the
// changes above top.
func (s *refSolver) restoreSectionData(top, i int) {
	for c := len(s.secStack) - 1; c >= top; c-- {
		s.floor[s.secStack[c].sec] = s.secStack[c].floor
	}
	s.secStack = s.secStack[:top]
	for _, sp := range s.sw.data[i].spans {
		for k := sp.lo; k < sp.hi; k++ {
			s.total[k] += sp.win.hi - sp.win.lo
		}
	}
}

// restoreMinOffsets undoes updateMinOffsets, popping the changes above
// top.
func (s *refSolver) restoreMinOffsets(top int) {
	for c := len(s.offStack) - 1; c >= top; c-- {
		s.minOffs[s.offStack[c].idx] = s.offStack[c].min
	}
	s.offStack = s.offStack[:top]
}

// check is the inference test after placing a buffer at off: in every
// section of pt, the floor (at least off, with monotonic_floor) plus the
// bytes still to place there (with section_inference) must fit the
// capacity.
func (s *refSolver) check(pt *refPartition, off int64) bool {
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

// computeOrdering lists the unplaced buffers of orig with their lowest
// offsets now, sorted by offset and then preorder with dynamic_ordering.
// The list is pushed on s.ords; the caller pops it (popOrdering).
//
// Offsets only rise between orig and now, so the buffers whose offset is
// unchanged are still in order when orig was: those are merged with the
// few raised ones, sorted apart, which gives the order a full sort gives
// (the keys are distinct).
func (s *refSolver) computeOrdering(pre []preorderData, orig []orderData) []orderData {
	top := len(s.ords)
	s.raised = s.raised[:0]
	inOrder := true
	var last orderData
	haveLast := false
	for _, o := range orig {
		i := pre[o.pre].idx
		if s.assign[i] != noOffset {
			continue
		}
		no := orderData{s.minOffs[i], o.pre}
		if s.params.DynamicOrdering && no.offset != o.offset {
			s.raised = append(s.raised, no)
			continue
		}
		if haveLast && !orderLess(last, no) {
			inOrder = false
		}
		last, haveLast = no, true
		s.ords = append(s.ords, no)
	}
	if !s.params.DynamicOrdering {
		return s.ords[top:len(s.ords):len(s.ords)]
	}
	if !inOrder {
		s.ords = append(s.ords, s.raised...)
		slices.SortFunc(s.ords[top:], orderCmp)
		return s.ords[top:len(s.ords):len(s.ords)]
	}
	if len(s.raised) > 0 {
		slices.SortFunc(s.raised, orderCmp)
		// Merge from the back, in place.
		k := len(s.ords) - top
		s.ords = append(s.ords, s.raised...)
		out := s.ords[top:]
		i, j, w := k-1, len(s.raised)-1, len(out)-1
		for j >= 0 {
			if i >= 0 && orderLess(s.raised[j], out[i]) {
				out[w] = out[i]
				i--
			} else {
				out[w] = s.raised[j]
				j--
			}
			w--
		}
	}
	return s.ords[top:len(s.ords):len(s.ords)]
}

// search is upstream's SearchSolutions: a depth-first search that places
// one buffer per level at its lowest offset, trying the unplaced buffers
// in the dynamic order.
func (s *refSolver) search(pt *refPartition, h string, pre []preorderData, orig []orderData, minOffset int64, minPre int) status {
	if s.nodesLeft <= 0 {
		return stAborted
	}
	s.nodesLeft--
	s.run.nodes++
	if s.run.expired() || s.maxNodes > 0 && s.run.nodes > s.maxNodes {
		return stDeadline
	}
	top := len(s.ords)
	order := s.computeOrdering(pre, orig)
	defer func() { s.ords = s.ords[:top] }()
	if len(order) == 0 {
		for _, i := range pt.bufs {
			s.sol[i] = s.assign[i]
		}
		return stOK
	}
	minHeight := int64(math.MaxInt64)
	for _, o := range order {
		minHeight = min(minHeight, o.offset+s.bufs[pre[o.pre].idx].size)
	}
	for _, o := range order {
		off, p := o.offset, o.pre
		i := pre[p].idx
		if s.params.CanonicalOnly && (off < minOffset || off == minOffset && p < minPre) {
			continue
		}
		if s.params.CheckDominance && off >= minHeight {
			continue
		}
		if f := s.bufs[i].fixed; f != noOffset && off > f {
			continue
		}
		s.assign[i] = off
		offTop, secTop := len(s.offStack), len(s.secStack)
		hatless, fixedFail := s.updateMinOffsets(i)
		s.updateSectionData(i)
		st := stNotFound
		if !fixedFail && s.check(pt, off) {
			if s.params.DynamicDecomposition {
				st = s.decompose(pt, h, pre, order, off, p, i)
			} else {
				st = s.search(pt, h, pre, order, off, p)
			}
		}
		s.restoreSectionData(secTop, i)
		s.restoreMinOffsets(offTop) // none when hatless
		s.assign[i] = noOffset
		if st != stNotFound {
			return st
		}
		if hatless && s.params.HatlessPruning {
			break
		}
	}
	s.run.backtracks++
	return stNotFound
}

// decompose is upstream's DynamicallyDecompose: placing buffer i ends the
// cuts it held; where a cut inside pt drops to zero, the unplaced buffers
// on each side are solved apart, each part a new search.
func (s *refSolver) decompose(pt *refPartition, h string, pre []preorderData, orig []orderData, minOffset int64, minPre int, i int) status {
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
	st := stOK
	if len(cutpoints) == 1 {
		st = s.search(pt, h, pre, orig, minOffset, minPre)
	} else {
		cutpoints = append(cutpoints, pt.hi)
		for c := 1; c < len(cutpoints); c++ {
			slo, shi := cutpoints[c-1], cutpoints[c]
			var bufs []int
			for _, o := range pt.bufs {
				if s.assign[o] != noOffset {
					continue
				}
				d := s.sw.data[o].spans
				olo, ohi := d[0].lo, d[len(d)-1].hi
				if !(ohi <= slo || shi <= olo) {
					bufs = append(bufs, o)
				}
			}
			if len(bufs) == 0 {
				continue
			}
			sub := refPartition{bufs: bufs, lo: slo, hi: shi}
			if st = s.subSolve(&sub, h); st != stOK {
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
func (s *refSolver) height() int64 {
	var h int64
	for i, b := range s.bufs {
		h = max(h, b.size+s.sol[i])
	}
	return h
}

// refSolveProblem runs MiniMalloc's refSolver on bufs: in capacity mode a plan
// within capacity, in minimise mode the binary search below it. eff(a, b)
// is buffer a's effective size below b (upstream's Buffer::effective_size:
// workloads.EffectiveSize, the rule membench shares).
// Past maxNodes search nodes in all (0: no limit) it stops as at a
// timeout, so that tests bound it in nodes, not in time.
func refSolveProblem(ctx context.Context, bufs []buffer, eff func(a, b int) (int64, bool), capacity int64, params *solverParams, maxNodes int64) (*result, error) {
	r := &run{ctx: ctx, start: time.Now()}
	sw, err := refSweep(bufs, eff, ctx.Err)
	if err != nil {
		return nil, err
	}
	newSolver := func(capacity int64) *refSolver {
		sv := refNewSolver(params, r, bufs, capacity, sw)
		sv.maxNodes = maxNodes
		return sv
	}
	res := &result{Capacity: capacity, Complete: true}
	finish := func(err error) (*result, error) {
		res.Nodes, res.Backtracks = r.nodes, r.backtracks
		if r.cancelled {
			return nil, ctx.Err()
		}
		return res, err // res carries the counters even on failure
	}
	if !params.MinimizeCapacity {
		offs, h, st := newSolver(capacity).solve()
		switch st {
		case stOK:
			res.Offsets, res.Height = offs, h
			return finish(nil)
		case stDeadline:
			res.Complete = false
			return finish(fmt.Errorf("minimalloc: %w within capacity %d: stopped after %d nodes", ErrNoSolution, capacity, maxNodes))
		}
		return finish(fmt.Errorf("minimalloc: %w within capacity %d (proved)", ErrNoSolution, capacity))
	}
	lo, hi := int64(0), capacity
	for lo <= hi {
		mid := lo + (hi-lo)/2
		offs, h, st := newSolver(mid).solve()
		if r.cancelled {
			return finish(nil)
		}
		if st != stOK {
			if st == stDeadline {
				res.Complete = false
			}
			lo = mid + 1
			continue
		}
		res.Offsets, res.Height = offs, h
		hi = h - 1
	}
	if res.Offsets == nil {
		if !res.Complete {
			return finish(fmt.Errorf("minimalloc: %w within capacity %d: stopped after %d nodes", ErrNoSolution, capacity, maxNodes))
		}
		return finish(fmt.Errorf("minimalloc: %w within capacity %d (proved)", ErrNoSolution, capacity))
	}
	return finish(nil)
}
