package minimalloc

import (
	"context"
	"math"
	"slices"
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
func preorderLess(h string, a, b *preorderData) bool {
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
			return x > y
		}
	}
	return a.idx < b.idx
}

// orderData is an unplaced buffer in the dynamic order: its lowest
// possible offset and its place in the static preorder.
type orderData struct {
	offset int64
	pre    int
}

// offsetChange and sectionChange record a value before the search changed
// it, to undo the change.
type offsetChange struct {
	idx int
	min int64
}

type sectionChange struct {
	sec   int
	floor int64
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

	assign  []int64 // placed offsets, noOffset when unplaced
	sol     []int64 // the solution, partition by partition
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
	offStack []offsetChange
	secStack []sectionChange
}

func newSolver(params *solverParams, r *run, bufs []buffer, capacity int64, sw *sweepResult) *solver {
	return &solver{params: params, run: r, bufs: bufs, capacity: capacity, sw: sw, nodesLeft: math.MaxInt64}
}

// solve is SolverImpl::Solve: one search over every partition in turn
// with a single heuristic and no node limit, or a round robin of them.
func (s *solver) solve() ([]int64, int64, status) {
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
// i has any unplaced overlap at all (hatless: none), whether a fixed
// buffer was pushed above its offset, and, with unallocated_floor, marks
// the sections of the raised buffers.
func (s *solver) updateMinOffsets(i int) (hatless, fixedFail bool) {
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
		s.offStack = append(s.offStack, offsetChange{o, s.minOffs[o]})
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
func (s *solver) updateSectionData(i int) {
	off := s.assign[i]
	for _, sp := range s.sw.data[i].spans {
		h := off + sp.win.hi
		for k := sp.lo; k < sp.hi; k++ {
			s.secStack = append(s.secStack, sectionChange{k, s.floor[k]})
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
			s.secStack = append(s.secStack, sectionChange{k, s.floor[k]})
			s.floor[k] = lo
		}
	}
}

// restoreSectionData undoes updateSectionData for buffer i, popping the
// changes above top.
func (s *solver) restoreSectionData(top, i int) {
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
func (s *solver) restoreMinOffsets(top int) {
	for c := len(s.offStack) - 1; c >= top; c-- {
		s.minOffs[s.offStack[c].idx] = s.offStack[c].min
	}
	s.offStack = s.offStack[:top]
}

// check is the inference test after placing a buffer at off: in every
// section of pt, the floor (at least off, with monotonic_floor) plus the
// bytes still to place there (with section_inference) must fit the
// capacity.
func (s *solver) check(pt *partition, off int64) bool {
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
func (s *solver) computeOrdering(pre []preorderData, orig []orderData) []orderData {
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

// search is upstream's SearchSolutions: a depth-first search that places
// one buffer per level at its lowest offset, trying the unplaced buffers
// in the dynamic order.
func (s *solver) search(pt *partition, h string, pre []preorderData, orig []orderData, minOffset int64, minPre int) status {
	if s.nodesLeft <= 0 {
		return stAborted
	}
	s.nodesLeft--
	s.run.nodes++
	if s.run.expired() {
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
func (s *solver) decompose(pt *partition, h string, pre []preorderData, orig []orderData, minOffset int64, minPre int, i int) status {
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
			sub := partition{bufs: bufs, lo: slo, hi: shi}
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
func (s *solver) height() int64 {
	var h int64
	for i, b := range s.bufs {
		h = max(h, b.size+s.sol[i])
	}
	return h
}
