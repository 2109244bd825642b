package strategies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name:    "offset-greedy-by-size",
		Runtime: "tflite-gpu",
		Kind:    Offsets,
		Doc: "TFLite's GreedyBySizeAssignment: tensors by size descending, each into the " +
			"smallest fitting gap among time-overlapping tensors (ties: lowest address), " +
			"else above them; honours the problem's alignment",
		New: Simple(func() Strategy { return offsetGreedyBySize{} }),
	})
}

type offsetGreedyBySize struct{}

func (offsetGreedyBySize) Name() string { return "offset-greedy-by-size" }

func (offsetGreedyBySize) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	offsets, fp, err := offsetGreedyBySizeOffsets(ctx, p.Buffers, p.Alignment)
	if err != nil {
		return nil, err
	}
	return &Plan{Offsets: offsets, Footprint: fp}, nil
}

// recordError reports the first buffer TFLite's planners cannot assign:
// one whose First is after its Last, or with a negative size.
func recordError(strategy string, bufs []workloads.Buffer) error {
	for i, b := range bufs {
		if b.First > b.Last {
			return fmt.Errorf("%s: Error while calculating the assignment: buffer %d (id %d) has first task %d after last task %d",
				strategy, i, b.ID, b.First, b.Last)
		}
		if b.Size < 0 {
			return fmt.Errorf("%s: buffer %d (id %d) has negative size %d", strategy, i, b.ID, b.Size)
		}
	}
	return nil
}

// ctxCheckEvery is how many tensors a planner places between checks of
// its context: cheap enough to vanish, frequent enough to stop in well
// under 100 ms.
const ctxCheckEvery = 1024

// offsetPlaced is one placed tensor as the gap walk sees it.
type offsetPlaced struct {
	off int64 // offset
	end int64 // offset+size rounded up to the alignment
	seq int32 // placement order: breaks offset ties as TFLite's list does
}

// offsetGreedyBySizeOffsets places the buffers like TFLite's
// GreedyBySizeAssignment. TFLite walks an offset-ordered list of every
// placed tensor for each tensor (O(n^2)) and takes the smallest gap that
// fits (ties: the lowest), else the highest end.
//
// For a tensor of positive size, only gaps of positive length matter, and
// those are the gaps between the connected components of the placed
// tensors' closed address ranges [offset, aligned end]. So an index over
// time (offsetCompIndex) keeps, per segment-tree node, the components of
// the tensors it holds, and a tensor's gap walk runs over the components
// of a few nodes instead of every overlapping tensor (or, when a tensor
// overlaps every placed one, over the components of them all). Zero-size
// tensors, which come last in TFLite's order, can also take zero-length
// gaps, which components hide: they take the tensor-by-tensor walk
// (offsetTimeIndex).
func offsetGreedyBySizeOffsets(ctx context.Context, bufs []workloads.Buffer, align int64) ([]int64, int64, error) {
	return offsetGreedyBySizeRun(ctx, bufs, align, true)
}

// offsetGreedyBySizeRun is offsetGreedyBySizeOffsets; without byID, the
// buffers starting inside a lifetime are gathered one by one (as the
// other planners sharing offsetCompIndex do), which the tests time
// against.
func offsetGreedyBySizeRun(ctx context.Context, bufs []workloads.Buffer, align int64, byID bool) ([]int64, int64, error) {
	if err := recordError("offset-greedy-by-size", bufs); err != nil {
		return nil, 0, err
	}
	align = max(align, 1)
	n := len(bufs)
	offsets := make([]int64, n)
	if n == 0 {
		return offsets, 0, nil
	}
	// TFLite stable-sorts by size descending: ties keep record order.
	order := bySizeDescending(bufs)

	spans := newTaskSpans(bufs, false)
	ix := newOffsetCompIndex(spans)
	if byID {
		ix.byID = newCompIDTree(int32(n))
	}
	// What the loop needs of each tensor, gathered in its order: the
	// loads are independent here, and the loop then reads in sequence.
	tasks := make([]offsetTask, n)
	for k, i := range order {
		id := spans.id[i]
		sp := spans.span[id]
		tasks[k] = offsetTask{bufs[i].Size, id, sp[0], sp[1], spans.startPtr[sp[0]+1], spans.startPtr[sp[1]+1]}
	}
	var comps []offsetComp
	var total int64
	k := 0
	for ; k < n; k++ {
		if k%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		t := &tasks[k]
		if t.size == 0 {
			break
		}
		comps = ix.overlapping(comps[:0], t)
		best := offsetCompBestGap(comps, t.size)
		ix.place(t, offsetComp{best, AlignUp(best+t.size, align)})
		total = max(total, best+t.size)
		t.size = best // the offset, from here on
	}
	for j, t := range tasks[:k] {
		offsets[order[j]] = t.size
	}
	if k == n {
		return offsets, total, nil
	}
	// The zero-size tensors: replay the placed ones into the
	// tensor-by-tensor index, in placement order.
	tix := newOffsetTimeIndex(spans)
	for j, i := range order[:k] {
		tix.place(spans.id[i], offsetPlaced{offsets[i], AlignUp(offsets[i]+bufs[i].Size, align), int32(j + 1)})
	}
	var items []offsetPlaced
	for ; k < n; k++ {
		if k%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		i := order[k]
		id := spans.id[i]
		items = tix.overlapping(items[:0], id)
		sortPlaced(items)
		best := offsetBestGap(items, 0)
		tix.place(id, offsetPlaced{best, AlignUp(best, align), int32(k + 1)})
		offsets[i] = best
		total = max(total, best)
	}
	return offsets, total, nil
}

// bySizeDescending returns the buffer indices by size descending, ties in
// index order (TFLite's stable sort).
func bySizeDescending(bufs []workloads.Buffer) []int32 {
	keys := radixSort(sizeKeys(bufs), make([]keyed, len(bufs)))
	order := make([]int32, len(bufs))
	for k, x := range keys {
		order[k] = x.i
	}
	return order
}

// sizeKeys returns each buffer's index keyed by its size negated, to sort
// by size descending.
func sizeKeys(bufs []workloads.Buffer) []keyed {
	keys := make([]keyed, len(bufs))
	for i, b := range bufs {
		keys[i] = keyed{-b.Size, int32(i)}
	}
	return keys
}

// offsetComp is a connected component of placed tensors' closed address
// ranges [offset, aligned end]: ranges that touch belong to one.
type offsetComp struct{ lo, hi int64 }

// offsetCompBestGap is offsetBestGap for a tensor of positive size over
// components sorted by start.
func offsetCompBestGap(comps []offsetComp, size int64) int64 {
	best, bestDiff, prev := int64(-1), int64(math.MaxInt64), int64(0)
	for _, c := range comps {
		if c.lo >= prev {
			if d := c.lo - prev; d >= size && d < bestDiff {
				bestDiff, best = d, prev
			}
		}
		prev = max(prev, c.hi)
	}
	if best < 0 {
		return prev
	}
	return best
}

// offsetCompIndex finds, for a buffer, the components of the placed
// buffers whose lifetimes overlap its own. "Overlaps [f, l]" splits into
// two disjoint parts: lifetimes containing f (a stabbing query on a
// segment tree over the distinct first tasks, whose nodes keep the
// components of the buffers whose spans they canonically cover) and
// lifetimes starting in (f, l] (a range of ids, taken one by one).
type offsetCompIndex struct {
	*taskSpans
	leaves int32
	// Node v's components are pool[node[v].ptr:][:node[v].len], sorted;
	// its room, up to node[v+1].ptr, is the number of buffers it may
	// hold, which bounds them (node[2D] is a sentinel).
	node []offsetNode
	pool []offsetComp
	// placed[id] is where buffer id was placed; lo is -1 until it is.
	placed []offsetComp

	// all is the components of every placed buffer: when each of them
	// overlaps a buffer (dense inputs), they are its overlapping ones.
	all denseSet
	// byID, when set (offset-greedy-by-size), gives the second part as
	// merged components of id ranges instead of buffer by buffer.
	byID *compIDTree

	runs    []int32 // scratch: run boundaries in the gathered components
	scratch []offsetComp
}

func newOffsetCompIndex(ts *taskSpans) *offsetCompIndex {
	d := ts.tasks()
	ix := &offsetCompIndex{taskSpans: ts, leaves: d, node: make([]offsetNode, 2*d+1),
		placed: make([]offsetComp, len(ts.id)), all: newDenseSet(len(ts.id))}
	for id := range ix.placed {
		ix.placed[id].lo = -1
	}
	total := countCanonical(ix.node, ts.span, d)
	ix.pool = make([]offsetComp, total)
	// Parents come before children: up[1] is 0.
	for v := int32(2); v < 2*d; v++ {
		if p := v >> 1; ix.node[p+1].ptr > ix.node[p].ptr {
			ix.node[v].up = p
		} else {
			ix.node[v].up = ix.node[p].up
		}
	}
	return ix
}

// countCanonical sets node[v].ptr to the start of room for as many
// entries as spans have v among their canonical nodes (node[v].len 0) and
// returns the room in all.
func countCanonical(node []offsetNode, spans [][2]int32, d int32) int32 {
	for _, sp := range spans {
		for l, r := sp[0]+d, sp[1]+d+1; l < r; l, r = l>>1, r>>1 {
			if l&1 == 1 {
				node[l].len++
				l++
			}
			if r&1 == 1 {
				r--
				node[r].len++
			}
		}
	}
	var total int32
	for v := range node {
		node[v].ptr = total
		total += node[v].len
		node[v].len = 0
	}
	return total
}

// add merges c into node v's components.
func (ix *offsetCompIndex) add(v int32, c offsetComp) {
	nd := &ix.node[v]
	// The capacity is the node's room, so this never reallocates.
	nd.len = int32(len(mergeComp(ix.pool[nd.ptr:nd.ptr+nd.len:ix.node[v+1].ptr], c)))
}

// mergeComp merges the closed range c into the sorted, disjoint
// components l, in place where l's capacity allows.
func mergeComp(l []offsetComp, c offsetComp) []offsetComp {
	// The first component ending at or after c.lo.
	i, j := 0, len(l)
	for i < j {
		h := int(uint(i+j) >> 1)
		if l[h].hi < c.lo {
			i = h + 1
		} else {
			j = h
		}
	}
	j = i
	for ; j < len(l) && l[j].lo <= c.hi; j++ {
		c.lo, c.hi = min(c.lo, l[j].lo), max(c.hi, l[j].hi)
	}
	if j == i+1 {
		l[i] = c
		return l
	}
	return slices.Replace(l, i, j, c)
}

// offsetTask is a tensor as offsetCompIndex sees it: its size, id and span
// [a, b], and the ids lo..hi-1 of the buffers starting in (a, b].
type offsetTask struct {
	size     int64
	id, a, b int32
	rLo, rHi int32
}

// place records buffer t, placed at c.
func (ix *offsetCompIndex) place(t *offsetTask, c offsetComp) {
	ix.placed[t.id] = c
	ix.all.place(t.a, t.b, c)
	if ix.byID != nil {
		ix.byID.place(t.id)
	}
	for l, r := t.a+ix.leaves, t.b+ix.leaves+1; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			ix.add(l, c)
			l++
		}
		if r&1 == 1 {
			r--
			ix.add(r, c)
		}
	}
}

// overlapping returns the components of the placed buffers whose
// lifetimes overlap buffer id's, sorted by start (components of different
// nodes may overlap each other), in comps' storage.
func (ix *offsetCompIndex) overlapping(comps []offsetComp, t *offsetTask) []offsetComp {
	a := t.a
	if ix.all.covers(t.a, t.b) {
		return ix.all.set.appendTo(comps)
	}
	runs := ix.runs[:0]
	for v := a + ix.leaves; v >= 1; {
		nd := ix.node[v]
		if nd.len > 0 {
			runs = append(runs, int32(len(comps)))
			comps = append(comps, ix.pool[nd.ptr:nd.ptr+nd.len]...)
		}
		v = nd.up
	}
	if lo, hi := t.rLo, t.rHi; lo < hi {
		var start int
		if ix.byID != nil {
			comps, runs, start = ix.byID.gather(comps, runs, ix.placed, lo, hi)
		} else {
			start = len(comps)
			comps = appendPlaced(comps, ix.placed[lo:hi])
		}
		if start < len(comps) {
			runs = append(runs, int32(start))
			if len(comps) > 24 { // else one insertion sort below does all
				sortComps(comps[start:])
			}
		}
	}
	ix.runs = runs
	return ix.mergeRuns(comps)
}

// sortComps sorts components by start: a quicksort specialised to them,
// as the generic sort's comparison calls dominate at these lengths.
func sortComps(c []offsetComp) {
	for len(c) > 24 {
		// Median of three as the pivot; then partition around it.
		m := len(c) / 2
		if c[m].lo < c[0].lo {
			c[0], c[m] = c[m], c[0]
		}
		if c[len(c)-1].lo < c[0].lo {
			c[0], c[len(c)-1] = c[len(c)-1], c[0]
		}
		if c[len(c)-1].lo < c[m].lo {
			c[m], c[len(c)-1] = c[len(c)-1], c[m]
		}
		pivot := c[m].lo
		i, j := 0, len(c)-1
		for i <= j {
			for c[i].lo < pivot {
				i++
			}
			for c[j].lo > pivot {
				j--
			}
			if i <= j {
				c[i], c[j] = c[j], c[i]
				i++
				j--
			}
		}
		// Recurse into the smaller part, loop on the larger.
		if j+1 < len(c)-i {
			sortComps(c[:j+1])
			c = c[i:]
		} else {
			sortComps(c[i:])
			c = c[:j+1]
		}
	}
	for i := 1; i < len(c); i++ {
		x := c[i]
		j := i
		for ; j > 0 && x.lo < c[j-1].lo; j-- {
			c[j] = c[j-1]
		}
		c[j] = x
	}
}

// mergeRuns merges the sorted runs of comps that start at ix.runs, pair
// by pair, and returns comps or the scratch buffer holding the result.
// Up to 24 components, one insertion sort does it, runs sorted or not.
func (ix *offsetCompIndex) mergeRuns(comps []offsetComp) []offsetComp {
	runs := ix.runs
	if len(comps) <= 24 { // the range's run is not sorted yet
		sortComps(comps)
		return comps
	}
	if len(runs) <= 1 {
		return comps
	}
	src := comps
	dst := slices.Grow(ix.scratch[:0], len(comps))[:len(comps)]
	for len(runs) > 1 {
		next := runs[:0]
		for r := 0; r < len(runs); r += 2 {
			lo := int(runs[r])
			if r+1 == len(runs) {
				copy(dst[lo:], src[lo:])
				next = append(next, runs[r])
				break
			}
			mid := int(runs[r+1])
			hi := len(src)
			if r+2 < len(runs) {
				hi = int(runs[r+2])
			}
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if src[j].lo < src[i].lo {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
			next = append(next, runs[r])
		}
		runs = next
		src, dst = dst, src
	}
	if &src[0] != &comps[0] {
		ix.scratch = comps[:0]
	} else {
		ix.scratch = dst[:0]
	}
	return src
}

// sortPlaced sorts by (offset, placement order): TFLite's list order.
func sortPlaced(items []offsetPlaced) {
	less := func(x, y *offsetPlaced) bool { return x.off < y.off || x.off == y.off && x.seq < y.seq }
	if len(items) > 24 {
		slices.SortFunc(items, func(x, y offsetPlaced) int {
			if x.off != y.off {
				return cmp.Compare(x.off, y.off)
			}
			return cmp.Compare(x.seq, y.seq)
		})
		return
	}
	// Most tensors overlap only a few placed ones: a plain insertion sort
	// beats the generic sort's indirect comparisons there.
	for i := 1; i < len(items); i++ {
		x := items[i]
		j := i
		for ; j > 0 && less(&x, &items[j-1]); j-- {
			items[j] = items[j-1]
		}
		items[j] = x
	}
}

// offsetBestGap walks placed tensors in TFLite's list order and returns
// the offset for a tensor of the given size: the start of the smallest gap
// that fits it (ties: the lowest), where a gap runs from the highest
// aligned end seen so far to the next tensor's offset; with no such gap,
// the highest aligned end (0 for none).
func offsetBestGap(items []offsetPlaced, size int64) int64 {
	best, bestDiff, prev := int64(-1), int64(math.MaxInt64), int64(0)
	for _, it := range items {
		if it.off >= prev {
			if d := it.off - prev; d >= size && d < bestDiff {
				bestDiff, best = d, prev
			}
		}
		prev = max(prev, it.end)
	}
	if best < 0 {
		return prev
	}
	return best
}

// taskSpans numbers buffers by (first task, index), so the buffers
// starting in a time range are a range of ids, and numbers the distinct
// first tasks 0..D-1. Between two consecutive distinct first tasks no
// buffer starts, so they are the only points where a buffer's set of
// overlapping buffers can change.
type taskSpans struct {
	// id[i] is the id of buffer index i.
	id []int32
	// span[id] = [a, b]: the numbers of the buffer's first task and of the
	// last distinct first task <= its last task.
	span [][2]int32
	// The buffers whose first task is number t have ids startPtr[t] .. startPtr[t+1]-1.
	startPtr []int32
}

// newTaskSpans builds the spans of bufs, whose lifetimes must satisfy
// First <= Last; with clamp, first tasks below 0 count as 0 (as TFLite's
// task profiles do), and buffers must have Last >= 0.
func newTaskSpans(bufs []workloads.Buffer, clamp bool) *taskSpans {
	n := len(bufs)
	byFirst := make([]keyed, n)
	for i, b := range bufs {
		f := b.First
		if clamp {
			f = max(f, 0)
		}
		byFirst[i] = keyed{int64(f), int32(i)}
	}
	byFirst = radixSort(byFirst, make([]keyed, n))
	// At most n distinct first tasks: room for all of them up front saves
	// the appends' regrowth, a tenth of greedy-by-breadth's time.
	ts := &taskSpans{id: make([]int32, n), span: make([][2]int32, n), startPtr: make([]int32, 0, n+1)}
	firsts := make([]int64, 0, n)
	for id, k := range byFirst {
		ts.id[k.i] = int32(id)
		if len(firsts) == 0 || firsts[len(firsts)-1] != k.key {
			firsts = append(firsts, k.key)
			ts.startPtr = append(ts.startPtr, int32(id))
		}
		ts.span[id][0] = int32(len(firsts) - 1)
	}
	ts.startPtr = append(ts.startPtr, int32(n))
	for id, k := range byFirst {
		// The last distinct first task <= last: gallop up from the
		// buffer's own first task, as most lifetimes are short.
		last := int64(bufs[k.i].Last)
		lo := int(ts.span[id][0]) // firsts[lo] <= last
		step := 1
		for lo+step < len(firsts) && firsts[lo+step] <= last {
			lo += step
			step *= 2
		}
		hi := min(lo+step, len(firsts)) // firsts[hi] > last, or hi is the end
		for hi-lo > 1 {
			h := int(uint(lo+hi) >> 1)
			if firsts[h] <= last {
				lo = h
			} else {
				hi = h
			}
		}
		ts.span[id][1] = int32(lo)
	}
	return ts
}

// tasks returns D, the number of distinct first tasks.
func (ts *taskSpans) tasks() int32 { return int32(len(ts.startPtr) - 1) }

// offsetTimeIndex finds, for a buffer, every placed buffer whose lifetime
// overlaps its own. "Overlaps [f, l]" splits into two disjoint parts:
// lifetimes containing f (a stabbing query on a segment tree over the
// distinct first tasks) and lifetimes starting in (f, l] (a range of ids).
type offsetTimeIndex struct {
	*taskSpans
	// placed[id] is the placed buffer id; seq 0 while unplaced.
	placed []offsetPlaced
	// A segment tree over 0..D-1 (leaves at D..2D-1) holding each placed
	// buffer in the canonical nodes of its span, so a root-to-leaf walk
	// meets every span containing a point exactly once. Node v's entries
	// are seg[node[v].ptr:][:node[v].len]. Entries are copies: a placed
	// buffer never moves.
	leaves int32
	node   []offsetNode
	seg    []offsetPlaced
}

// offsetNode is a segment-tree node's list; one struct keeps a root-to-leaf
// walk at one cache miss per level. up is the nearest proper ancestor that
// may hold entries (0: none), for offsetCompIndex to skip the others.
type offsetNode struct{ ptr, len, up int32 }

func newOffsetTimeIndex(ts *taskSpans) *offsetTimeIndex {
	ix := &offsetTimeIndex{taskSpans: ts}
	d := ix.tasks()
	ix.leaves = d
	// Count each node's share; place fills the lists as buffers are placed.
	ix.node = make([]offsetNode, 2*d)
	for _, sp := range ix.span {
		for l, r := sp[0]+d, sp[1]+d+1; l < r; l, r = l>>1, r>>1 {
			if l&1 == 1 {
				ix.node[l].len++
				l++
			}
			if r&1 == 1 {
				r--
				ix.node[r].len++
			}
		}
	}
	var total int32
	for v := range ix.node {
		ix.node[v].ptr = total
		total += ix.node[v].len
		ix.node[v].len = 0
	}
	ix.seg = make([]offsetPlaced, total)
	ix.placed = make([]offsetPlaced, len(ts.id))
	return ix
}

// place records buffer id as placed: in the id-ordered list and in the
// canonical nodes of its span.
func (ix *offsetTimeIndex) place(id int32, p offsetPlaced) {
	ix.placed[id] = p
	sp := ix.span[id]
	for l, r := sp[0]+ix.leaves, sp[1]+ix.leaves+1; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			ix.seg[ix.node[l].ptr+ix.node[l].len] = p
			ix.node[l].len++
			l++
		}
		if r&1 == 1 {
			r--
			ix.seg[ix.node[r].ptr+ix.node[r].len] = p
			ix.node[r].len++
		}
	}
}

// overlapping appends to items the placed buffers whose lifetimes
// overlap buffer id's.
func (ix *offsetTimeIndex) overlapping(items []offsetPlaced, id int32) []offsetPlaced {
	a, b := ix.span[id][0], ix.span[id][1]
	for v := a + ix.leaves; v >= 1; v >>= 1 {
		if nd := ix.node[v]; nd.len > 0 {
			items = append(items, ix.seg[nd.ptr:nd.ptr+nd.len]...)
		}
	}
	for _, p := range ix.placed[ix.startPtr[a+1]:ix.startPtr[b+1]] {
		if p.seq != 0 {
			items = append(items, p)
		}
	}
	return items
}
