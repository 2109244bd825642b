package kernel

import "math"

// FirstFit returns FirstFit(ix.Overlapping(nil, t), size, align): where
// a buffer of span t goes under the first-fit rule among the placed
// buffers overlapping it in time. It walks the sorted runs that
// Overlapping would merge (the stabbing path's nodes, the id tree's
// nodes, the loose ids sorted) together through a heap, lazily, and stops
// at the first gap that holds the buffer: with long lifetimes (idealloc's
// Y_1: about 800 components a buffer, the gap found about a fifth of the
// way up) merging them all first was most of a decode's time.
//
// Gaps of length zero (between touching ranges, or at a zero-size
// buffer) hold only zero-size buffers, which first fit puts at 0, so the
// order in which ranges with the same start come out does not matter.
func (ix *CompIndex) FirstFit(t *Task, size, align int64) int64 {
	if size <= 0 {
		return 0 // the first gap, [0, ...), holds it
	}
	if ix.all.covers(t.A, t.B) {
		// One merged set: its blocks without a long enough gap go whole.
		ix.scratch = ix.all.set.gapSpans(ix.scratch[:0], size)
		return FirstFit(ix.scratch, size, align)
	}
	runs := ix.fitRuns[:0]
	for v := t.A + ix.leaves; v >= 1; {
		nd := ix.node[v]
		if nd.len > 0 {
			runs = append(runs, ix.pool[nd.ptr:nd.ptr+nd.len])
		}
		v = nd.up
	}
	if lo, hi := t.RLo, t.RHi; lo < hi {
		loose := ix.placed[lo:hi]
		if ix.byID != nil {
			runs, loose = ix.byID.gatherRuns(runs, ix.placed, lo, hi)
		}
		if ix.scratch = appendPlaced(ix.scratch[:0], loose); len(ix.scratch) > 0 {
			SortComps(ix.scratch)
			runs = append(runs, mergeSorted(ix.scratch))
		}
	}
	ix.fitRuns = runs
	off, next := lazyFirstFit(runs, ix.next, size, align)
	ix.next = next
	return off
}

// lazyFirstFit is FirstFit over the ranges of runs, each sorted and
// disjoint (so sorted by end too). It raises a candidate offset y from 0:
// a range that starts below y+size and ends above y blocks it, and y
// moves to the aligned end of that range, where the next aligned offset
// that may hold the buffer is; y is the answer once no run blocks it.
// Each run keeps a cursor at its first range ending above y (ranges
// ending by y block no later y) and that range's start in next, which
// blocks only once y+size passes it: a run is looked at again only then.
// It consumes runs; next is scratch, returned for reuse.
func lazyFirstFit(runs [][]Comp, next []int64, size, align int64) (int64, []int64) {
	next = next[:0]
	for _, run := range runs {
		next = append(next, run[0].Lo)
	}
	var y int64
	for {
		// A run whose next range starts below y+size may block y.
		r := 0
		for r < len(next) && next[r] >= y+size {
			r++
		}
		if r == len(next) {
			return y, next
		}
		run := runs[r]
		for {
			run = skipEnded(run, y)
			if len(run) == 0 || run[0].Lo >= y+size {
				break
			}
			y = AlignUp(run[0].Hi, align)
		}
		runs[r] = run
		next[r] = math.MaxInt64
		if len(run) > 0 {
			next[r] = run[0].Lo
		}
	}
}

// skipEnded returns run (sorted and disjoint) from its first range
// ending above y: a look at the next range, then galloping, as a blocked
// y usually moves past a few ranges of the run but may pass many.
func skipEnded(run []Comp, y int64) []Comp {
	if len(run) == 0 || run[0].Hi > y {
		return run
	}
	// run[lo].Hi <= y; find hi with run[hi].Hi > y (or the end).
	lo, step := 0, 1
	for lo+step < len(run) && run[lo+step].Hi <= y {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(run))
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if run[m].Hi <= y {
			lo = m
		} else {
			hi = m
		}
	}
	return run[hi:]
}

// mergeSorted merges, in place, the ranges of c (sorted by start) that
// overlap or touch, as MergeComp does, and returns them.
func mergeSorted(c []Comp) []Comp {
	out := c[:1]
	for _, x := range c[1:] {
		if last := &out[len(out)-1]; x.Lo <= last.Hi {
			last.Hi = max(last.Hi, x.Hi)
		} else {
			out = append(out, x)
		}
	}
	return out
}
