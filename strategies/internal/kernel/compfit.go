package kernel

import "math"

// FirstFit returns FirstFit(ix.Overlapping(nil, t), size, align): where
// a buffer of span t goes under the first-fit rule among the placed
// buffers overlapping it in time. It takes the sorted runs that
// Overlapping would merge (the stabbing path's nodes, the id tree's
// nodes; the small nodes and the loose ids sorted into one) as they are
// and looks in them only up to the first gap that holds the buffer
// (lazyFirstFit): with long lifetimes (idealloc's Y_1: about 800
// components a buffer, the gap found about a fifth of the way up) merging
// them all first was most of a decode's time.
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
	small := ix.scratch[:0]
	for v := t.A + ix.leaves; v >= 1; {
		nd := ix.node[v]
		if nd.len > smallRun {
			runs = append(runs, ix.pool[nd.ptr:nd.ptr+nd.len])
		} else {
			small = append(small, ix.pool[nd.ptr:nd.ptr+nd.len]...)
		}
		v = nd.up
	}
	if lo, hi := t.RLo, t.RHi; lo < hi {
		loose := ix.placed[lo:hi]
		if ix.byID != nil {
			runs, loose = ix.byID.gatherRuns(runs, ix.placed, lo, hi)
		}
		small = appendPlaced(small, loose)
	}
	if len(small) > 0 {
		SortComps(small)
		runs = append(runs, mergeSorted(small))
	}
	ix.scratch, ix.fitRuns = small, runs
	off, next := lazyFirstFit(runs, ix.next, size, align)
	ix.next = next
	return off
}

// smallRun is the most components of a node of the stabbing path that
// FirstFit takes with the loose ones rather than as a run of their own:
// each run costs a look whenever the candidate offset moves.
const smallRun = 16

// lazyFirstFit is FirstFit over the ranges of runs, each sorted and
// disjoint (so sorted by end too). It raises a candidate offset y from 0:
// a range that starts below y+size and ends above y blocks it, and y
// moves to the aligned end of that range, where the next aligned offset
// that may hold the buffer is; y is the answer once no run blocks it.
// Each run keeps a cursor at its first range ending above y (ranges
// ending by y block no later y) and that range's start in next, which
// blocks only once y+size passes it: a run is looked at again only then.
// Cursors move one range at a time: most moves pass one or two. It
// consumes runs; next is scratch, returned for reuse.
func lazyFirstFit(runs [][]Comp, next []int64, size, align int64) (int64, []int64) {
	next = next[:0]
	for _, run := range runs {
		next = append(next, run[0].Lo)
	}
	var y int64
	// clear counts the runs in a row seen not to block y: all of them
	// means none does.
	for r, clear := 0, 0; clear < len(next); {
		if next[r] < y+size {
			run := runs[r]
			i := 0
			for {
				for i < len(run) && run[i].Hi <= y {
					i++
				}
				if i == len(run) || run[i].Lo >= y+size {
					break
				}
				y = AlignUp(run[i].Hi, align)
				clear = 0
				i++
			}
			runs[r] = run[i:]
			next[r] = math.MaxInt64
			if i < len(run) {
				next[r] = run[i].Lo
			}
		}
		clear++
		if r++; r == len(next) {
			r = 0
		}
	}
	return y, next
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
