package strategies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// greedy-by-size is TFLite's GreedyBySizeDistPriorityAssignment (LiteRT
// tflite/delegates/gpu/common/memory_management/greedy_by_size_assignment.cc,
// revision f67457790c9c). Its rules, in our words:
//
//   - a record's position is the index of the rightmost positional maximum
//     at least its size; positions are taken smallest first;
//   - each step takes the unassigned record of least (position,
//     best_dist, -size), ties by lower index, and puts it into its best
//     object, or into a new object when it has none (best_dist not set);
//     the object grows to the record's size;
//   - the distance from a record to an object is the least gap in tasks to
//     the object's tensors, none when it intersects one; after each step a
//     record takes the object as its best when it comes strictly nearer
//     than its best_dist, and a record whose best object now intersects it
//     runs RecalcBestDist: the lowest-id object at least distance, keeping
//     the stale best_object when there is none.
//
// Only the data structures differ from TFLite's:
//
//   - positions come from the positional maximums by binary search;
//   - records are taken in position order, so only the records of the
//     current position sit in a queue keyed (best_dist, -size, index), a
//     tournament tree where most key changes climb no level (gbsQueue);
//   - records with the same lifetime keep one state (a class; TFLite gives
//     them the same best_dist and best_object at every step), and no
//     distance vectors: an object keeps its tensors' intervals sorted;
//   - assigning b to object o can only change the classes lying inside
//     o's gap around b; a segment tree over the classes (gbsTree) keeps
//     for each subtree the bounds that say whether some class in it comes
//     nearer or had o as its best, so only the classes that change are
//     visited;
//   - RecalcBestDist asks two treaps of the objects' gaps (gbsGaps,
//     greedy_by_size_gaps.go): O(log n), not O(objects).
//
// The result is identical to TFLite's, ties included.

func init() {
	Register(Info{
		Name:    "greedy-by-size",
		Runtime: "tflite-gpu",
		Kind:    Objects,
		Doc: "TFLite GREEDY_BY_SIZE (GreedyBySizeDistPriorityAssignment): largest positional " +
			"class first, each tensor joins the object holding its nearest time-disjoint tensor",
		New: Simple(func() Strategy { return greedyBySize{} }),
	})
}

type greedyBySize struct{}

func (greedyBySize) Name() string { return "greedy-by-size" }

func (greedyBySize) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	ids, sizes, err := greedyBySizeObjects(ctx, p.Buffers)
	if err != nil {
		return nil, err
	}
	plan := &Plan{ObjectIDs: ids, ObjectSizes: sizes}
	ObjectsToOffsets(plan, p.Buffers, p.Alignment)
	return plan, nil
}

// gbsNoDist is TFLite's kNotAssigned distance: the record intersects some
// tensor of the object (or there are no objects).
const gbsNoDist = math.MaxInt64

// gbsCheckRecords rejects inputs TFLite's size_t records cannot express.
func gbsCheckRecords(bufs []workloads.Buffer) error {
	const name = "greedy-by-size"
	if len(bufs) > math.MaxInt32-1 {
		return fmt.Errorf("%s: %d buffers is too many", name, len(bufs))
	}
	for i, b := range bufs {
		switch {
		case b.Size < 0:
			return fmt.Errorf("%s: buffer %d (id %d): negative size %d", name, i, b.ID, b.Size)
		case b.First < 0:
			return fmt.Errorf("%s: buffer %d (id %d): negative first task %d", name, i, b.ID, b.First)
		case b.First > b.Last:
			return fmt.Errorf("%s: buffer %d (id %d): first task %d > last task %d", name, i, b.ID, b.First, b.Last)
		}
	}
	return nil
}

// gbsPositions returns each record's position: the index of the rightmost
// positional maximum that is >= its size.
func gbsPositions(bufs []workloads.Buffer, pm []int64) ([]int32, error) {
	pos := make([]int32, len(bufs))
	for i, b := range bufs {
		// pm is non-increasing: count the leading entries >= size.
		k := sort.Search(len(pm), func(k int) bool { return pm[k] < b.Size })
		if k == 0 {
			return nil, fmt.Errorf("greedy-by-size: buffer %d (id %d) of size %d exceeds every positional maximum", i, b.ID, b.Size)
		}
		pos[i] = int32(k - 1)
	}
	return pos, nil
}

// gbs is the state of one greedy-by-size run. Records with the same
// first and last tasks see the same objects at the same distances, so
// TFLite gives them the same best_dist and best_object at every step
// until they are assigned: the state is kept once per lifetime (a class),
// classes numbered in order of (first, last), so that a range of first
// tasks is a range of classes.
type gbs struct {
	ctx  context.Context
	size []int64 // by record

	// By class: its tasks (first non-decreasing), its unassigned records,
	// and their best_dist and best_object.
	first, last []int
	live        []int32
	bestDist    []int64
	bestObj     []int32
	class       []int32 // by record
	objOf       []int32 // by record, -1 while unassigned

	// Objects: the intervals of their tensors, sorted by time.
	objFirst [][]int
	objLast  [][]int
	objSize  []int64
	// held[o] counts the live classes whose best object is o (at a
	// finite distance): when it is 0, assigning to o sends no record to
	// RecalcBestDist.
	held []int32
	// gaps finds a class's nearest object when its best one is lost,
	// once there are more than gapsFrom objects (nil until then).
	gaps     *gbsGaps
	gapsFrom int

	// tree aggregates the live classes (gbsNode), so that an assignment
	// visits only the classes whose distance it changes.
	tree gbsTree
	// queue holds the records of the current position; slot[i] is record
	// i's slot in it, -1 for records not in it. A class's records in the
	// queue are linked from queued[c] through next and prev (-1 ends).
	queue      gbsQueue
	slot       []int32
	queued     []int32
	next, prev []int32
	work       int
	canceled   error

	// The assignment being propagated (see assign): record b's tensor
	// [fb, lb] joined object o in its gap (lo, hi).
	o              int32
	bit            uint64 // gbsBit(o)
	fb, lb, lo, hi int
}

// tick accounts for cost units of work and polls ctx every so often, so
// that cancellation is seen promptly even inside one long iteration.
func (g *gbs) tick(cost int) bool {
	g.work += cost
	if g.work < 1<<14 {
		return g.canceled == nil
	}
	g.work = 0
	if g.canceled == nil {
		g.canceled = g.ctx.Err()
	}
	return g.canceled == nil
}

// greedyBySizeObjects returns TFLite's object_ids and object_sizes.
func greedyBySizeObjects(ctx context.Context, bufs []workloads.Buffer) ([]int, []int64, error) {
	return greedyBySizeRun(ctx, bufs, gbsGapsFrom)
}

// greedyBySizeRun is greedyBySizeObjects keeping gbsGaps from gapsFrom
// objects on (the tests try 0 and every count).
func greedyBySizeRun(ctx context.Context, bufs []workloads.Buffer, gapsFrom int) ([]int, []int64, error) {
	if err := gbsCheckRecords(bufs); err != nil {
		return nil, nil, err
	}
	n := len(bufs)
	ids := make([]int, n)
	sizes := make([]int64, 0)
	if n == 0 {
		return ids, sizes, nil
	}
	pm, err := positionalMaximums(ctx, bufs)
	if err != nil {
		return nil, nil, err
	}
	pos, err := gbsPositions(bufs, pm)
	if err != nil {
		return nil, nil, err
	}
	g := &gbs{
		ctx:      ctx,
		gapsFrom: gapsFrom,
		size:     make([]int64, n),
		class:    make([]int32, n),
		objOf:    make([]int32, n),
		slot:     make([]int32, n),
		next:     make([]int32, n),
		prev:     make([]int32, n),
	}
	g.classes(bufs)
	g.tree.build(g.first, g.last)
	dist := make([]int64, n) // the queue's keys, by record

	for _, group := range gbsBuckets(pos) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		// TFLite's order after the distance: larger size, lower index
		// (group is in index order, and the sort is stable).
		keys := make([]kernel.Keyed, len(group))
		for k, i := range group {
			keys[k] = kernel.Keyed{Key: -bufs[i].Size, I: i}
		}
		keys = kernel.RadixSort(keys, make([]kernel.Keyed, len(keys)))
		recs := make([]int32, len(keys))
		for k, x := range keys {
			recs[k] = x.I
		}
		for s, i := range recs {
			c := g.class[i]
			g.slot[i], dist[i] = int32(s), g.bestDist[c]
			g.prev[i], g.next[i] = -1, g.queued[c]
			if g.queued[c] >= 0 {
				g.prev[g.queued[c]] = i
			}
			g.queued[c] = i
		}
		g.queue.reset(recs, dist)
		for {
			s := g.queue.first()
			if s < 0 {
				break
			}
			if !g.tick(64) {
				return nil, nil, g.canceled
			}
			i := recs[s]
			g.queue.set(s, gbsTaken)
			g.slot[i] = -1
			c := g.class[i]
			if p := g.prev[i]; p >= 0 {
				g.next[p] = g.next[i]
			} else {
				g.queued[c] = g.next[i]
			}
			if nx := g.next[i]; nx >= 0 {
				g.prev[nx] = g.prev[i]
			}
			g.assign(i)
			if g.canceled != nil {
				return nil, nil, g.canceled
			}
		}
	}
	for i, o := range g.objOf {
		ids[i] = int(o)
	}
	return ids, g.objSize, nil
}

// classes numbers the lifetimes of bufs in order of (first, last) and
// sets up each class's state: no best object, nothing queued.
func (g *gbs) classes(bufs []workloads.Buffer) {
	order := make([]int32, len(bufs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(bufs[a].First, bufs[b].First); c != 0 {
			return c
		}
		return cmp.Compare(bufs[a].Last, bufs[b].Last)
	})
	for k, i := range order {
		b := bufs[i]
		if k == 0 || b.First != g.first[len(g.first)-1] || b.Last != g.last[len(g.last)-1] {
			g.first = append(g.first, b.First)
			g.last = append(g.last, b.Last)
			g.live = append(g.live, 0)
		}
		c := int32(len(g.first) - 1)
		g.class[i] = c
		g.live[c]++
		g.size[i] = b.Size
		g.objOf[i] = -1
		g.slot[i] = -1
	}
	m := len(g.first)
	g.bestDist = make([]int64, m)
	g.bestObj = make([]int32, m)
	g.queued = make([]int32, m)
	for c := range m {
		g.bestDist[c], g.bestObj[c], g.queued[c] = gbsNoDist, -1, -1
	}
}

// gbsBuckets lists the records of each used position, in position
// order, each in index order.
func gbsBuckets(pos []int32) [][]int32 {
	var maxPos int32
	for _, p := range pos {
		maxPos = max(maxPos, p)
	}
	counts := make([]int, maxPos+2)
	for _, p := range pos {
		counts[p+1]++
	}
	for k := 1; k < len(counts); k++ {
		counts[k] += counts[k-1]
	}
	flat := make([]int32, len(pos))
	fill := slices.Clone(counts[:maxPos+1])
	for i, p := range pos {
		flat[fill[p]] = int32(i)
		fill[p]++
	}
	var groups [][]int32
	for p := int32(0); p <= maxPos; p++ {
		if counts[p+1] > counts[p] {
			groups = append(groups, flat[counts[p]:counts[p+1]])
		}
	}
	return groups
}

// assign gives record b its object and updates the classes it affects.
// Assigning b to object o can change only the classes that lie inside
// o's gap (lo, hi) around b (the others intersect a neighbour of b in o,
// or are nearer to one): those that end before b or start after it and
// were farther from all objects than they are from b, and those that now
// intersect o and had o as their best. The tree finds exactly these.
func (g *gbs) assign(b int32) {
	c := g.class[b]
	fb, lb := g.first[c], g.last[c]
	lo, hi := -1, gbsNoTask // the gap of the object around b
	var o int32
	if g.bestDist[c] == gbsNoDist {
		o = int32(len(g.objSize))
		g.objSize = append(g.objSize, g.size[b])
		g.objFirst = append(g.objFirst, []int{fb})
		g.objLast = append(g.objLast, []int{lb})
		g.held = append(g.held, 0)
	} else {
		o = g.bestObj[c]
		g.objSize[o] = max(g.objSize[o], g.size[b])
		fs, ls := g.objFirst[o], g.objLast[o]
		k, _ := slices.BinarySearch(ls, fb)
		if k > 0 {
			lo = ls[k-1]
		}
		if k < len(fs) {
			hi = fs[k]
		}
		g.objFirst[o] = slices.Insert(fs, k, fb)
		g.objLast[o] = slices.Insert(ls, k, lb)
	}
	g.objOf[b] = o
	if g.gaps != nil {
		g.gaps.insert(o, fb, lb, lo, hi)
	} else if len(g.objSize) > g.gapsFrom {
		g.gaps = newGBSGaps(len(g.size))
		for o := range g.objFirst {
			fs, ls := g.objFirst[o], g.objLast[o]
			for k := range fs {
				lo, hi := -1, gbsNoTask
				if k > 0 {
					lo = ls[k-1]
				}
				if k+1 < len(fs) {
					hi = fs[k+1]
				}
				g.gaps.add(int32(o), fs[k], ls[k], lo, hi)
			}
		}
	}
	// The class's other records, if any, intersect b: they stay, to be
	// recalculated below if o was their best.
	if g.live[c]--; g.live[c] == 0 {
		if g.bestDist[c] != gbsNoDist {
			g.held[g.bestObj[c]]--
		}
		g.tree.remove(int(c))
	}

	g.o, g.bit, g.fb, g.lb, g.lo, g.hi = o, gbsBit(o), fb, lb, lo, hi
	// The classes starting in (lo, fb), (lo, lb] and (lb, hi).
	from, _ := slices.BinarySearch(g.first, lo+1)
	toFB, _ := slices.BinarySearch(g.first, fb)
	toLB, _ := slices.BinarySearch(g.first, lb+1)
	toHi := len(g.first)
	if hi != gbsNoTask {
		toHi, _ = slices.BinarySearch(g.first, hi)
	}
	leaves := len(g.tree) / 2
	g.visit(gbsEndsBefore, 1, 0, leaves, from, toFB)
	g.visit(gbsStartsAfter, 1, 0, leaves, toLB, toHi)
	if g.held[o] > 0 {
		g.visit(gbsLost, 1, 0, leaves, from, toLB)
	}
}

// The classes an assignment of [fb, lb] to o in its gap (lo, hi) changes
// (see assign).
const (
	// gbsEndsBefore: they end before fb, and fb is nearer than their best.
	gbsEndsBefore = iota
	// gbsStartsAfter: they start after lb, end before hi, and lb is
	// nearer than their best.
	gbsStartsAfter
	// gbsLost: they intersect [fb, lb], end before hi and had o as their
	// best object: TFLite's RecalcBestDist.
	gbsLost
)

// visit updates the classes of a kind in [a, e) below node v (covering
// [l, r)) and reports whether it changed any.
func (g *gbs) visit(kind, v, l, r, a, e int) bool {
	if l >= e || r <= a || !g.may(kind, &g.tree[v]) || g.canceled != nil {
		return false
	}
	if r-l == 1 {
		return g.tick(1) && g.update(kind, int32(l))
	}
	m := (l + r) / 2
	left := g.visit(kind, 2*v, l, m, a, e)
	if g.visit(kind, 2*v+1, m, r, a, e) || left {
		g.tree.pull(v)
		return true
	}
	return false
}

// may reports whether node nd may hold classes of a kind: for a leaf,
// whether it is one, but for the best object's being o.
func (g *gbs) may(kind int, nd *gbsNode) bool {
	switch kind {
	case gbsEndsBefore:
		return nd.minLast < g.fb && nd.reach > int64(g.fb)
	case gbsStartsAfter:
		return nd.minLast < g.hi && nd.from < int64(g.lb)
	}
	return nd.held&g.bit != 0 && nd.maxLast >= g.fb && nd.minLast < g.hi
}

// update updates class i, one of a kind but for gbsLost's best object,
// and reports whether it changed.
func (g *gbs) update(kind int, i int32) bool {
	switch kind {
	case gbsEndsBefore:
		g.setBest(i, int64(g.fb-g.last[i]), g.o)
	case gbsStartsAfter:
		g.setBest(i, int64(g.first[i]-g.lb), g.o)
	default:
		if g.bestObj[i] != g.o || g.bestDist[i] == gbsNoDist {
			return false
		}
		g.recalc(i)
	}
	return true
}

// setBest gives class c its best distance and object, keeping held, the
// queue and c's leaf of the tree (its ancestors are the caller's) in step.
func (g *gbs) setBest(c int32, d int64, o int32) {
	if g.bestDist[c] != gbsNoDist {
		g.held[g.bestObj[c]]--
	}
	if d != gbsNoDist {
		g.held[o]++
	}
	g.bestDist[c], g.bestObj[c] = d, o
	g.tree.leaf(int(c), g.first[c], g.last[c], d, o)
	for i := g.queued[c]; i >= 0; i = g.next[i] {
		g.queue.set(g.slot[i], uint64(d))
	}
}

// gbsGapsFrom is how many objects recalc scans one by one (distances by
// binary search, stopping at distance 1) before greedy-by-size keeps
// gbsGaps: few objects (most graphs) are cheaper to scan than to index.
const gbsGapsFrom = 64

// recalc is TFLite's RecalcBestDist for class c: the lowest-id object at
// minimal distance (with none, TFLite leaves best_object as it was).
func (g *gbs) recalc(c int32) {
	best, bo := g.nearest(g.first[c], g.last[c])
	if best == gbsNoDist {
		bo = g.bestObj[c]
	}
	g.setBest(c, best, bo)
}

// nearest returns the distance from [fi, li] to the nearest object it
// does not intersect and the lowest such object's id (gbsNoDist, -1: none).
func (g *gbs) nearest(fi, li int) (int64, int32) {
	best, bo := int64(gbsNoDist), int32(-1)
	if g.gaps != nil {
		best, bo = g.gaps.best(fi, li)
	} else {
		for o := range g.objSize {
			fs, ls := g.objFirst[o], g.objLast[o]
			k, _ := slices.BinarySearch(ls, fi)
			if k < len(fs) && fs[k] <= li {
				continue // intersects
			}
			d := int64(gbsNoDist)
			if k < len(fs) {
				d = int64(fs[k] - li)
			}
			if k > 0 {
				d = min(d, int64(fi-ls[k-1]))
			}
			if d < best {
				best, bo = d, int32(o)
				if d == 1 {
					break // distances are >= 1: nothing later is strictly nearer
				}
			}
		}
	}
	return best, bo
}

// gbsQueue yields the records of one position in TFLite's priority order:
// smaller best_dist, then larger size, then lower index. It is a
// tournament tree over slots numbered in (size, index) order, each node
// holding the slot with the least distance below it (ties: the lower
// slot). A new distance climbs only while it changes a node's winner,
// which for most updates is not at all.
type gbsQueue struct {
	key []uint64 // by slot: the distance, gbsTaken once taken
	win []int32  // by node, leaves at len(win)/2: the winning slot
}

// gbsTaken is the key of a taken slot (and of padding): above every
// distance, gbsNoDist included.
const gbsTaken = math.MaxUint64

// reset fills the queue with the records recs, in slot order, keyed by
// their distances.
func (q *gbsQueue) reset(recs []int32, dist []int64) {
	leaves := 1
	for leaves < len(recs) {
		leaves *= 2
	}
	q.key = slices.Grow(q.key[:0], leaves)[:leaves]
	q.win = slices.Grow(q.win[:0], 2*leaves)[:2*leaves]
	for s := range q.key {
		q.key[s] = gbsTaken
		if s < len(recs) {
			q.key[s] = uint64(dist[recs[s]])
		}
		q.win[leaves+s] = int32(s)
	}
	for v := leaves - 1; v >= 1; v-- {
		q.win[v] = q.better(q.win[2*v], q.win[2*v+1])
	}
}

func (q *gbsQueue) better(a, b int32) int32 {
	if q.key[b] < q.key[a] {
		return b
	}
	return a // a < b in every call
}

// first returns the slot to take next, or -1 when all are taken.
func (q *gbsQueue) first() int32 {
	if s := q.win[1]; q.key[s] != gbsTaken {
		return s
	}
	return -1
}

// set changes slot s's key to k.
func (q *gbsQueue) set(s int32, k uint64) {
	q.key[s] = k
	for v := len(q.win)/2 + int(s); v > 1; {
		p := v >> 1
		w := q.better(q.win[2*p], q.win[2*p+1])
		if w == q.win[p] && w != s {
			return // p's winner and its key are as they were
		}
		q.win[p] = w
		v = p
	}
}

// gbsNode aggregates the unassigned records below a node of a gbsTree
// (assigned ones and padding count as none).
type gbsNode struct {
	// minLast and maxLast bound their last tasks.
	minLast, maxLast int
	// reach is the largest last + best_dist: a tensor starting at s after
	// a record is nearer than its best exactly when s < its last +
	// best_dist.
	reach int64
	// from is the smallest first - best_dist: a tensor ending at e before
	// a record is nearer than its best exactly when e > its first -
	// best_dist.
	from int64
	// held has bit gbsBit(o) set for the best object o of each record
	// (at a finite distance): a node without o's bit holds no record of o.
	held uint64
}

// gbsBit is object o's bit in gbsNode.held.
func gbsBit(o int32) uint64 { return 1 << (uint32(o) * 0x9e3779b1 >> 26) }

// gbsNone is the node of no record.
var gbsNone = gbsNode{minLast: math.MaxInt, maxLast: math.MinInt, reach: math.MinInt64, from: math.MaxInt64}

// gbsTree is a segment tree over the records (leaves at len/2, in record
// order) of gbsNode.
type gbsTree []gbsNode

// build makes the tree of records with the given tasks, none assigned
// and none near an object.
func (t *gbsTree) build(first, last []int) {
	leaves := 1
	for leaves < len(first) {
		leaves *= 2
	}
	*t = make(gbsTree, 2*leaves)
	tr := *t
	for v := range tr[:leaves] {
		tr[v] = gbsNone
	}
	for r := range leaves {
		if r < len(first) {
			tr.leaf(r, first[r], last[r], gbsNoDist, -1)
		} else {
			tr[leaves+r] = gbsNone
		}
	}
	for v := leaves - 1; v >= 1; v-- {
		tr.pull(v)
	}
}

// leaf sets record r's leaf, with best distance d (its ancestors are
// left for the caller to pull).
func (t gbsTree) leaf(r, first, last int, d int64, o int32) {
	reach, held := int64(math.MaxInt64), uint64(0)
	if d <= math.MaxInt64-int64(last) {
		reach = int64(last) + d
	}
	if d != gbsNoDist {
		held = gbsBit(o)
	}
	t[len(t)/2+r] = gbsNode{minLast: last, maxLast: last, reach: reach, from: int64(first) - d, held: held}
}

func (t gbsTree) pull(v int) {
	a, b := &t[2*v], &t[2*v+1]
	t[v] = gbsNode{
		minLast: min(a.minLast, b.minLast), maxLast: max(a.maxLast, b.maxLast),
		reach: max(a.reach, b.reach), from: min(a.from, b.from),
		held: a.held | b.held,
	}
}

// remove takes record r out of the tree (it is assigned).
func (t gbsTree) remove(r int) {
	v := len(t)/2 + r
	for t[v] = gbsNone; v > 1; v >>= 1 {
		t.pull(v >> 1)
	}
}
