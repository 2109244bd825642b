package strategies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name: "offset-greedy-by-size",
		Kind: Offsets,
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
// placed tensor for each tensor (O(n^2)). Here an index over time hands
// each tensor only the placed tensors whose lifetimes overlap its own;
// sorting those by (offset, placement order) reproduces the order of
// TFLite's list restricted to them, so the gap walk and its choice are
// unchanged.
func offsetGreedyBySizeOffsets(ctx context.Context, bufs []workloads.Buffer, align int64) ([]int64, int64, error) {
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
	// Sorting (size, index) pairs is that order and keeps memory access
	// sequential.
	type sizeKey struct {
		size int64
		idx  int32
	}
	order := make([]sizeKey, n)
	for i, b := range bufs {
		order[i] = sizeKey{b.Size, int32(i)}
	}
	slices.SortFunc(order, func(x, y sizeKey) int {
		if x.size != y.size {
			return cmp.Compare(y.size, x.size)
		}
		return cmp.Compare(x.idx, y.idx)
	})

	ix := newOffsetTimeIndex(bufs)
	var items []offsetPlaced
	var total int64
	for k, o := range order {
		if k%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		id := ix.id[o.idx]
		items = ix.overlapping(items[:0], id)
		sortPlaced(items)
		best := offsetBestGap(items, o.size)
		ix.place(id, offsetPlaced{best, AlignUp(best+o.size, align), int32(k + 1)})
		offsets[o.idx] = best
		total = max(total, best+o.size)
	}
	return offsets, total, nil
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
	type firstKey struct {
		first int
		idx   int32
	}
	byFirst := make([]firstKey, n)
	for i, b := range bufs {
		f := b.First
		if clamp {
			f = max(f, 0)
		}
		byFirst[i] = firstKey{f, int32(i)}
	}
	slices.SortFunc(byFirst, func(x, y firstKey) int {
		if x.first != y.first {
			return cmp.Compare(x.first, y.first)
		}
		return cmp.Compare(x.idx, y.idx)
	})
	ts := &taskSpans{id: make([]int32, n), span: make([][2]int32, n)}
	var firsts []int
	for id, k := range byFirst {
		ts.id[k.idx] = int32(id)
		if len(firsts) == 0 || firsts[len(firsts)-1] != k.first {
			firsts = append(firsts, k.first)
			ts.startPtr = append(ts.startPtr, int32(id))
		}
		ts.span[id][0] = int32(len(firsts) - 1)
	}
	ts.startPtr = append(ts.startPtr, int32(n))
	for id, k := range byFirst {
		last := bufs[k.idx].Last
		ts.span[id][1] = int32(sort.Search(len(firsts), func(t int) bool { return firsts[t] > last }) - 1)
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
// walk at one cache miss per level.
type offsetNode struct{ ptr, len int32 }

func newOffsetTimeIndex(bufs []workloads.Buffer) *offsetTimeIndex {
	ix := &offsetTimeIndex{taskSpans: newTaskSpans(bufs, false)}
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
	ix.placed = make([]offsetPlaced, len(bufs))
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
