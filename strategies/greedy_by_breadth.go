package strategies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

func init() {
	Register(Info{
		Name:    "greedy-by-breadth",
		Runtime: "tflite-gpu",
		Kind:    Objects,
		Doc: "TFLite's GreedyByBreadthAssignment: tasks by breadth descending, their tensors by size " +
			"descending, each into the smallest free object that fits, else the largest free one (grown)",
		New: Simple(func() Strategy { return greedyByBreadth{} }),
	})
}

type greedyByBreadth struct{}

func (greedyByBreadth) Name() string { return "greedy-by-breadth" }

func (greedyByBreadth) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	plan, err := greedyByBreadthObjects(ctx, p.Buffers)
	if err != nil {
		return nil, err
	}
	ObjectsToOffsets(plan, p.Buffers, p.Alignment)
	return plan, nil
}

// breadthSpan is one tensor's lifetime in an object's schedule.
type breadthSpan struct{ first, last int }

// breadthChunk bounds the chunks of a breadthSchedule: inserts move at
// most this many entries, where one sorted slice per object made
// planning quadratic (objects hold thousands of tensors).
const breadthChunk = 128

// breadthSchedule is an object's disjoint lifetimes ordered by first
// task, as sorted chunks of at most breadthChunk entries: TFLite's
// std::set, flat enough to search fast.
type breadthSchedule struct {
	chunks [][]breadthSpan
	heads  []int // heads[c] = chunks[c][0].first
}

// locate returns the chunk to search for first task f: the last one whose
// head is <= f, or 0.
func (s *breadthSchedule) locate(f int) int {
	i, j := 0, len(s.heads)
	for i < j {
		h := int(uint(i+j) >> 1)
		if s.heads[h] <= f {
			i = h + 1
		} else {
			j = h
		}
	}
	return max(i-1, 0)
}

// searchFirst returns the index of the first span in ch starting at or
// after f.
func searchFirst(ch []breadthSpan, f int) int {
	i, j := 0, len(ch)
	for i < j {
		h := int(uint(i+j) >> 1)
		if ch[h].first < f {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// free reports whether no span overlaps [f, l].
func (s *breadthSchedule) free(f, l int) bool {
	if len(s.chunks) == 0 {
		return true
	}
	c := s.locate(f)
	ch := s.chunks[c]
	k := searchFirst(ch, f)
	// The successor: the first span starting at or after f.
	if k < len(ch) {
		if ch[k].first <= l {
			return false
		}
	} else if c+1 < len(s.chunks) && s.chunks[c+1][0].first <= l {
		return false
	}
	// The predecessor: the last span starting before f (in chunk c, as
	// heads[c] <= f unless c is 0).
	return k == 0 || ch[k-1].last < f
}

// insert adds a span that overlaps none in s.
func (s *breadthSchedule) insert(sp breadthSpan) {
	if len(s.chunks) == 0 {
		s.chunks = [][]breadthSpan{{sp}}
		s.heads = []int{sp.first}
		return
	}
	c := s.locate(sp.first)
	ch := s.chunks[c]
	k := searchFirst(ch, sp.first)
	ch = slices.Insert(ch, k, sp)
	s.heads[c] = ch[0].first
	if len(ch) <= breadthChunk {
		s.chunks[c] = ch
		return
	}
	half := len(ch) / 2
	right := slices.Clone(ch[half:])
	s.chunks[c] = ch[:half:half]
	s.chunks = slices.Insert(s.chunks, c+1, right)
	s.heads = slices.Insert(s.heads, c+1, right[0].first)
}

// all returns the spans in order.
func (s *breadthSchedule) all() []breadthSpan {
	var out []breadthSpan
	for _, ch := range s.chunks {
		out = append(out, ch...)
	}
	return out
}

// breadthObjects is the set of shared objects built so far.
type breadthObjects struct {
	sizes []int64
	// sched[o] is object o's tensors' lifetimes.
	sched []breadthSchedule
	// bySize lists the object ids ordered by (size, id), so the best
	// object is the first free one at or after the tensor's size.
	bySize []int32
	// The latest first task and the earliest last task of the assigned
	// tensors, once assigned: a tensor live across both overlaps every
	// assigned tensor, so every object is busy (dense inputs) and none
	// need be searched.
	assigned          bool
	maxFirst, minLast int
	// bits[o], when not nil, marks the task numbers (of d) where object o
	// is busy, and stands for sched[o]: a check is a few words, where a
	// schedule takes two binary searches. bitWords is the budget left.
	bits     [][]uint64
	d        int32
	bitWords int
}

// breadthLife is a tensor's lifetime: its first and last tasks, and their
// numbers a, b among the distinct first tasks (kernel.TaskSpans).
type breadthLife struct {
	f, l int
	a, b int32
}

// breadthMaxBitWords bounds the memory of breadthObjects.bits, in words.
var breadthMaxBitWords = 1 << 22

// free reports whether object o has no tensor overlapping t.
func (bo *breadthObjects) free(o int32, t breadthLife) bool {
	w := bo.bits[o]
	if w == nil {
		return bo.sched[o].free(t.f, t.l)
	}
	lo, hi := t.a>>6, t.b>>6
	loMask, hiMask := ^uint64(0)<<(t.a&63), ^uint64(0)>>(63-t.b&63)
	if lo == hi {
		return w[lo]&loMask&hiMask == 0
	}
	if w[lo]&loMask != 0 || w[hi]&hiMask != 0 {
		return false
	}
	for _, x := range w[lo+1 : hi] {
		if x != 0 {
			return false
		}
	}
	return true
}

// mark sets the bits of tasks a..b in w.
func mark(w []uint64, a, b int32) {
	lo, hi := a>>6, b>>6
	loMask, hiMask := ^uint64(0)<<(a&63), ^uint64(0)>>(63-b&63)
	if lo == hi {
		w[lo] |= loMask & hiMask
		return
	}
	w[lo] |= loMask
	w[hi] |= hiMask
	for k := lo + 1; k < hi; k++ {
		w[k] = ^uint64(0)
	}
}

// rank returns where object (size, id) belongs in bySize.
func (bo *breadthObjects) rank(size int64, id int32) int {
	k, _ := slices.BinarySearchFunc(bo.bySize, id, func(o, id int32) int {
		if c := cmp.Compare(bo.sizes[o], size); c != 0 {
			return c
		}
		return cmp.Compare(o, id)
	})
	return k
}

// choose returns TFLite's pick for a tensor of the given size and
// lifetime, or -1 for a new object: the smallest free object with size >=
// size (ties: lowest id), else the largest free object (ties: lowest id).
func (bo *breadthObjects) choose(size int64, t breadthLife) int32 {
	if bo.assigned && t.f <= bo.minLast && bo.maxFirst <= t.l {
		return -1
	}
	lo, _ := slices.BinarySearchFunc(bo.bySize, size, func(o int32, s int64) int { return cmp.Compare(bo.sizes[o], s) })
	for _, o := range bo.bySize[lo:] {
		if bo.free(o, t) {
			return o
		}
	}
	for k := lo - 1; k >= 0; k-- {
		o := bo.bySize[k]
		if !bo.free(o, t) {
			continue
		}
		// Within one size ids ascend, so walk down the run for a lower id.
		best := o
		for k--; k >= 0 && bo.sizes[bo.bySize[k]] == bo.sizes[o]; k-- {
			if bo.free(bo.bySize[k], t) {
				best = bo.bySize[k]
			}
		}
		return best
	}
	return -1
}

// assign puts a tensor into object o (-1: a new one) and returns o.
func (bo *breadthObjects) assign(o int32, size int64, t breadthLife) int32 {
	if !bo.assigned {
		bo.assigned, bo.maxFirst, bo.minLast = true, t.f, t.l
	}
	bo.maxFirst, bo.minLast = max(bo.maxFirst, t.f), min(bo.minLast, t.l)
	if o < 0 {
		o = int32(len(bo.sizes))
		bo.sizes = append(bo.sizes, size)
		bo.sched = append(bo.sched, breadthSchedule{})
		var w []uint64
		if n := int(bo.d+63) / 64; bo.d > 0 && n <= bo.bitWords {
			w = make([]uint64, n)
			bo.bitWords -= n
		}
		bo.bits = append(bo.bits, w)
		bo.bySize = slices.Insert(bo.bySize, bo.rank(size, o), o)
	} else if size > bo.sizes[o] {
		bo.bySize = slices.Delete(bo.bySize, bo.rank(bo.sizes[o], o), bo.rank(bo.sizes[o], o)+1)
		bo.sizes[o] = size
		bo.bySize = slices.Insert(bo.bySize, bo.rank(size, o), o)
	}
	if w := bo.bits[o]; w != nil {
		mark(w, t.a, t.b)
	} else {
		bo.sched[o].insert(breadthSpan{t.f, t.l})
	}
	return o
}

// greedyByBreadthObjects assigns tensors to shared objects like TFLite's
// GreedyByBreadthAssignment, without its task profiles (O(L) memory for L
// task-tensor pairs) and without scanning every object per tensor.
//
// TFLite visits tasks by breadth descending (ties: lower task first) and,
// in each, the tensors not yet assigned by size descending (ties: record
// order). So a tensor is assigned at the first task of its lifetime in
// that visit order, and the whole visit order is a sort of the tensors by
// (that task's rank, size descending, index). That task is always one
// where some tensor starts: from one such task to the next no tensor
// starts, so the later tasks have a subset of the live tensors, no more
// breadth and a higher id. A range-minimum over the ranks of the distinct
// first tasks finds it.
//
// Objects are kept ordered by (size, id), so the search starts at the
// smallest object that fits and stops at the first free one, which is
// the object TFLite's scan ends on. Whether an object is free is a look
// at a bitset of its busy tasks; a tensor that overlaps every assigned
// one needs no search at all (dense inputs).
func greedyByBreadthObjects(ctx context.Context, bufs []workloads.Buffer) (*Plan, error) {
	if err := kernel.RecordError("greedy-by-breadth", bufs); err != nil {
		return nil, err
	}
	for i, b := range bufs {
		if b.Last < 0 { // in no task profile: TFLite leaves it unassigned
			return nil, fmt.Errorf("greedy-by-breadth: Error while calculating the assignment: buffer %d (id %d) is live at no task >= 0 (tasks %d..%d)",
				i, b.ID, b.First, b.Last)
		}
	}
	order, ts := breadthOrder(bufs)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids := make([]int, len(bufs))
	bo := breadthObjects{sizes: []int64{}, d: ts.Tasks(), bitWords: breadthMaxBitWords}
	for k, i := range order {
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		b := bufs[i]
		sp := ts.Span[ts.ID[i]]
		t := breadthLife{b.First, b.Last, sp[0], sp[1]}
		ids[i] = int(bo.assign(bo.choose(b.Size, t), b.Size, t))
	}
	return &Plan{ObjectIDs: ids, ObjectSizes: bo.sizes}, nil
}

// breadthOrder returns the buffer indices in the order TFLite's
// GreedyByBreadthAssignment assigns them (see greedyByBreadthObjects).
func breadthOrder(bufs []workloads.Buffer) ([]int32, *kernel.TaskSpans) {
	ts := kernel.NewTaskSpans(bufs, true)
	d := ts.Tasks()
	// Breadth at each distinct first task, from a difference array.
	breadth := make([]int64, d+1)
	for i, b := range bufs {
		sp := ts.Span[ts.ID[i]]
		breadth[sp[0]] += b.Size
		breadth[sp[1]+1] -= b.Size
	}
	for t := range d {
		breadth[t+1] += breadth[t]
	}
	// Tasks by breadth descending, ties by task: a stable radix sort.
	byBreadth := make([]kernel.Keyed, d)
	for t := range d {
		byBreadth[t] = kernel.Keyed{Key: -breadth[t], I: t}
	}
	byBreadth = kernel.RadixSort(byBreadth, make([]kernel.Keyed, d))
	// A bottom-up segment tree of the ranks answers range minimums.
	tree := make([]int32, 2*d)
	for r, t := range byBreadth {
		tree[d+t.I] = int32(r)
	}
	for v := d - 1; v >= 1; v-- {
		tree[v] = min(tree[2*v], tree[2*v+1])
	}
	// The visit order is by (rank, size descending, index): stable radix
	// sorts by size descending, then by rank.
	keys := kernel.RadixSort(kernel.SizeKeys(bufs), make([]kernel.Keyed, len(bufs)))
	for k, x := range keys {
		sp := ts.Span[ts.ID[x.I]]
		r := int32(math.MaxInt32)
		for l, h := sp[0]+d, sp[1]+d+1; l < h; l, h = l>>1, h>>1 {
			if l&1 == 1 {
				r = min(r, tree[l])
				l++
			}
			if h&1 == 1 {
				h--
				r = min(r, tree[h])
			}
		}
		keys[k].Key = int64(r)
	}
	keys = kernel.RadixSort(keys, make([]kernel.Keyed, len(bufs)))
	order := make([]int32, len(bufs))
	for k, x := range keys {
		order[k] = x.I
	}
	return order, ts
}
