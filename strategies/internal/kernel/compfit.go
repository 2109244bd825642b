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
// them all first was most of a decode's time. With coarse hints
// (CoarseHints) the walk starts from a lower bound on the answer instead
// of 0, and the ranges ending by it are not read.
//
// Gaps of length zero (between touching ranges, or at a zero-size
// buffer) hold only zero-size buffers, which first fit puts at 0, so the
// order in which ranges with the same start come out does not matter.
func (ix *CompIndex) FirstFit(t *Task, size, align int64) int64 {
	return ix.FirstFitAbove(t, size, align, 0)
}

// FirstFitAbove is FirstFit for a caller that knows no aligned offset
// below above (aligned, >= 0) holds the buffer: the walk starts there, or
// at the coarse hint if that is higher.
func (ix *CompIndex) FirstFitAbove(t *Task, size, align, above int64) int64 {
	return ix.FirstFitWindows(t, size, align, nil, above)
}

// FirstFitWindows is FirstFit for a caller that knows no aligned offset
// below upTo (aligned, >= 0) holds the buffer unless it lies in one of
// wins: sorted, disjoint offset windows [Lo, Hi) (FirstFitAbove: none).
// The walk starts at the first window, or at upTo, or at the coarse hint
// if that is higher, and jumps over the offsets below upTo outside the
// windows, which blocked offsets are (ranges that end by a jump's target
// are passed as by any move).
func (ix *CompIndex) FirstFitWindows(t *Task, size, align int64, wins []Comp, upTo int64) int64 {
	if size <= 0 {
		return 0 // the first gap, [0, ...), holds it
	}
	if ix.all.covers(t.A, t.B) {
		// One merged set: its blocks without a long enough gap go whole.
		ix.scratch = ix.all.set.gapSpans(ix.scratch[:0], size)
		if upTo == 0 {
			return FirstFit(ix.scratch, size, align)
		}
		ix.fitRuns = append(ix.fitRuns[:0], ix.scratch)
		off, next := lazyFirstFit(ix.fitRuns, ix.next, settle(0, align, wins, upTo), size, align, wins, upTo)
		ix.next = next
		return off
	}
	var from int64
	if ix.coarse != nil {
		from = ix.coarse.hint(t.A, t.B, size, align)
	}
	from = settle(from, align, wins, upTo)
	runs, small := ix.appendFitRuns(ix.fitRuns[:0], ix.scratch[:0], t, from)
	var off int64
	ix.scratch, ix.fitRuns, ix.next, off = walkRuns(runs, small, ix.next, from, size, align, wins, upTo)
	return off
}

// appendFitRuns appends to runs the sorted runs of the placed buffers
// overlapping t that FirstFit walks (the stabbing path's nodes, the id
// tree's nodes) and to small the ranges it takes loose (the small nodes,
// the ids one by one), leaving out those that end by from: they block no
// offset from there up.
func (ix *CompIndex) appendFitRuns(runs [][]Comp, small []Comp, t *Task, from int64) ([][]Comp, []Comp) {
	for v := t.A + ix.leaves; v >= 1; {
		nd := ix.node[v]
		if c := ix.pool[nd.ptr : nd.ptr+nd.len]; nd.len > smallRun {
			runs = append(runs, c)
		} else {
			small = appendEndingAfter(small, c, from)
		}
		v = nd.up
	}
	if lo, hi := t.RLo, t.RHi; lo < hi {
		if ix.byID != nil {
			runs, small = ix.byID.gatherRuns(runs, small, ix.placed, lo, hi, syncShare, from)
		} else {
			small = appendEndingAfter(small, ix.placed[lo:hi], from)
		}
	}
	return runs, small
}

// walkRuns is lazyFirstFit over runs and the ranges of small (unsorted,
// none ending by from) as one more run, with FirstFitWindows' wins and
// upTo (none: nil, 0); it returns its scratch for reuse.
func walkRuns(runs [][]Comp, small []Comp, next []int64, from, size, align int64, wins []Comp, upTo int64) ([]Comp, [][]Comp, []int64, int64) {
	runs = appendSmall(runs, small)
	off, next := lazyFirstFit(runs, next, from, size, align, wins, upTo)
	return small, runs, next, off
}

// appendSmall appends to runs the ranges of small (unsorted), sorted and
// merged into one run, if there are any.
func appendSmall(runs [][]Comp, small []Comp) [][]Comp {
	if len(small) == 0 {
		return runs
	}
	SortComps(small)
	return append(runs, mergeSorted(small))
}

// settle returns the lowest aligned offset at or above y that may hold
// the buffer given what FirstFitWindows' caller knows: y itself from upTo
// up or inside a window, else the start of the next window (aligned), else
// upTo.
func settle(y, align int64, wins []Comp, upTo int64) int64 {
	for _, w := range wins {
		if y >= upTo {
			return y
		}
		if y >= w.Hi {
			continue
		}
		// y is aligned: inside the window it stays.
		if a := max(y, AlignUp(w.Lo, align)); a < w.Hi {
			return min(a, upTo)
		}
	}
	return max(y, upTo)
}

// appendEndingAfter appends the ranges of placed buffers among ps
// (appendPlaced) that end after y.
func appendEndingAfter(comps []Comp, ps []Comp, y int64) []Comp {
	for _, c := range ps {
		if c.Lo >= 0 && c.Hi > y {
			comps = append(comps, c)
		}
	}
	return comps
}

// smallRun is the most components of a node of the stabbing path that
// FirstFit takes with the loose ones rather than as a run of their own:
// each run costs a look whenever the candidate offset moves, while the
// loose ones are sorted for every buffer. With coarse hints, a decode of
// idealloc's Y_1 ran the fewest instructions from 0 to 2 (16 took a
// sixth more).
const smallRun = 2

// lazyFirstFit is FirstFit over the ranges of runs, each sorted and
// disjoint (so sorted by end too), given that no aligned offset below
// from holds the buffer (from aligned, 0 if nothing is known). It raises
// a candidate offset y from there, each run's cursor first moved past the
// ranges ending by from (a binary search):
// a range that starts below y+size and ends above y blocks it, and y
// moves to the aligned end of that range, where the next aligned offset
// that may hold the buffer is; y is the answer once no run blocks it.
// Each run keeps a cursor at its first range ending above y (ranges
// ending by y block no later y) and that range's start in next, which
// blocks only once y+size passes it: a run is looked at again only then.
// Cursors move one range at a time: most moves pass one or two. Below
// upTo, y only takes offsets inside wins (FirstFitWindows; from is
// settled already): a move that ends outside them jumps on. It consumes
// runs; next is scratch, returned for reuse.
func lazyFirstFit(runs [][]Comp, next []int64, from, size, align int64, wins []Comp, upTo int64) (int64, []int64) {
	next = next[:0]
	for r, run := range runs {
		if from > 0 {
			run = run[endAfter(run, from):]
			runs[r] = run
		}
		if len(run) == 0 {
			next = append(next, math.MaxInt64)
		} else {
			next = append(next, run[0].Lo)
		}
	}
	y := from
	// clear counts the runs in a row seen not to block y: all of them
	// means none does.
	for r, clear := 0, 0; clear < len(next); {
		if next[r] < y+size {
			run := runs[r]
			i := 0
			for {
				if i < len(run) && run[i].Hi <= y {
					// Mostly one range is passed: gallop only past two.
					if i++; i < len(run) && run[i].Hi <= y {
						i = endAfterFrom(run, i+1, y)
					}
				}
				if i == len(run) || run[i].Lo >= y+size {
					break
				}
				y = AlignUp(run[i].Hi, align)
				if y < upTo {
					for len(wins) > 0 && wins[0].Hi <= y {
						wins = wins[1:]
					}
					y = settle(y, align, wins, upTo)
				}
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

// endAfter returns the index of the first range of run (sorted and
// disjoint) that ends after y, len(run) if none does.
func endAfter(run []Comp, y int64) int {
	i, j := 0, len(run)
	for i < j {
		h := int(uint(i+j) >> 1)
		if run[h].Hi <= y {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// endAfterFrom is endAfter for a run whose ranges before i end by y:
// it gallops from i, as the cursor mostly passes one or two ranges but
// after a long jump of y (a hint's solid stretch) may pass thousands.
func endAfterFrom(run []Comp, i int, y int64) int {
	step := 1
	for i+step <= len(run) && run[i+step-1].Hi <= y {
		i += step
		step *= 2
	}
	return i + endAfter(run[i:min(i+step-1, len(run))], y)
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
