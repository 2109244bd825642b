package kernel

// appendUnionRuns is appendFitRuns, or, where t overlaps every buffer
// placed in ix, the gap spans of all of them (FirstFitWindows) as one
// run, in ix.gaps.
func (ix *CompIndex) appendUnionRuns(runs [][]Comp, small []Comp, t *Task, size, from int64) ([][]Comp, []Comp) {
	if ix.all.covers(t.A, t.B) {
		ix.gaps = ix.all.set.gapSpans(ix.gaps[:0], size)
		if len(ix.gaps) == 0 {
			return runs, small
		}
		return append(runs, ix.gaps), small
	}
	return ix.appendFitRuns(runs, small, t, from)
}

// FirstFitWindowsPrefix is FirstFitWindows over the buffers placed in
// ix and those round r places below position q (PrefixRound) together,
// as if they were placed in one index: the runs of both go into one
// walk. A caller whose placements split into a part many rounds share
// and a part of each round's own keeps the shared part in a PrefixIndex,
// built once, rather than placing it again every round. Coarse hints
// come from ix alone.
func (ix *CompIndex) FirstFitWindowsPrefix(r *PrefixRound, q int32, t *Task, size, align int64, wins []Comp, upTo int64) int64 {
	if size <= 0 {
		return 0 // the first gap, [0, ...), holds it
	}
	var from int64
	if ix.coarse != nil {
		from = ix.coarse.hint(t.A, t.B, size, align)
	}
	from = settle(from, align, wins, upTo)
	runs, small := ix.appendUnionRuns(ix.fitRuns[:0], ix.scratch[:0], t, size, from)
	runs, small = r.appendFitRuns(runs, small, t, from, q)
	var off int64
	ix.scratch, ix.fitRuns, ix.next, off = walkRuns(runs, small, ix.next, from, size, align, wins, upTo)
	return off
}
