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

// greedy-by-size is TFLite's GreedyBySizeDistPriorityAssignment. The rules
// are TFLite's; only the data structures differ:
//
//   - positions come from the positional maximums by binary search;
//   - records are taken in position order, so only the records of the
//     current position sit in a queue keyed (best_dist, -size, index), a
//     tournament tree where most key changes climb no level (gbsQueue);
//   - per-record distance vectors are not stored: an object keeps its
//     tensors' intervals sorted, and dist(i, o) is found by binary search;
//   - assigning b to object o can only change dist(i, o) for records lying
//     inside o's gap around b, so only those are visited: records are
//     numbered by first task, and a union-find skips assigned ones;
//   - RecalcBestDist, which TFLite runs over every object each time a
//     record's best object comes to intersect it (about n^2/8 times for
//     equal-size long-lived tensors), asks two treaps of the objects'
//     gaps instead (gbsGaps, greedy_by_size_gaps.go): O(log n), not
//     O(objects), so such inputs cost O(n^2 log n), not O(n^3).
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

// gbs is the state of one greedy-by-size run. Records are renumbered in
// order of first task (ties by index), so that the scans below walk the
// arrays in order; orig maps back to the problem's index.
type gbs struct {
	ctx   context.Context
	orig  []int32
	first []int // non-decreasing
	last  []int
	size  []int64

	bestDist []int64
	bestObj  []int32
	objOf    []int32 // -1 while unassigned

	// Objects: the intervals of their tensors, sorted by time.
	objFirst [][]int
	objLast  [][]int
	objSize  []int64
	// gaps finds a record's nearest object when its best one is lost,
	// once there are more than gapsFrom objects (nil until then).
	gaps     *gbsGaps
	gapsFrom int

	// next skips assigned records (union-find with path halving,
	// next[n] == n).
	next []int32
	// minLast is a segment tree (leaves at len(minLast)/2) of the last
	// tasks of the unassigned records (assigned: MaxInt), so a new object
	// finds the records ending before it without visiting the others.
	minLast []int
	// queue holds the records of the current position; slot[r] is record
	// r's slot in it, -1 for records not in it.
	queue    gbsQueue
	slot     []int32
	work     int
	canceled error
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
		orig:     make([]int32, n),
		first:    make([]int, n),
		last:     make([]int, n),
		size:     make([]int64, n),
		bestDist: make([]int64, n),
		bestObj:  make([]int32, n),
		objOf:    make([]int32, n),
		next:     make([]int32, n+1),
		slot:     make([]int32, n),
	}
	for i := range g.orig {
		g.orig[i] = int32(i)
	}
	slices.SortFunc(g.orig, func(a, b int32) int {
		if c := cmp.Compare(bufs[a].First, bufs[b].First); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	rank := make([]int32, n)
	for r, i := range g.orig {
		rank[i] = int32(r)
		b := bufs[i]
		g.first[r], g.last[r], g.size[r] = b.First, b.Last, b.Size
		g.bestDist[r] = gbsNoDist
		g.bestObj[r] = -1
		g.objOf[r] = -1
		g.next[r] = int32(r)
		g.slot[r] = -1
	}
	g.next[n] = int32(n)
	leaves := 1
	for leaves < n {
		leaves *= 2
	}
	g.minLast = make([]int, 2*leaves)
	for v := range g.minLast {
		g.minLast[v] = math.MaxInt
	}
	copy(g.minLast[leaves:], g.last)
	for v := leaves - 1; v >= 1; v-- {
		g.minLast[v] = min(g.minLast[2*v], g.minLast[2*v+1])
	}

	for _, group := range gbsBuckets(pos) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		// TFLite's order after the distance: larger size, lower index
		// (group is in index order, and the sort is stable).
		keys := make([]kernel.Keyed, len(group))
		for k, i := range group {
			keys[k] = kernel.Keyed{Key: -bufs[i].Size, I: rank[i]}
		}
		keys = kernel.RadixSort(keys, make([]kernel.Keyed, len(keys)))
		recs := make([]int32, len(keys))
		for k, x := range keys {
			recs[k] = x.I
		}
		g.queue.reset(recs, g.bestDist)
		for s, r := range recs {
			g.slot[r] = int32(s)
		}
		for {
			s := g.queue.first()
			if s < 0 {
				break
			}
			if !g.tick(64) {
				return nil, nil, g.canceled
			}
			r := recs[s]
			g.queue.set(s, gbsTaken)
			g.slot[r] = -1
			g.assign(r)
			if g.canceled != nil {
				return nil, nil, g.canceled
			}
		}
	}
	for r, o := range g.objOf {
		ids[g.orig[r]] = int(o)
	}
	return ids, g.objSize, nil
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

// assign gives record b its object and updates the records it affects.
func (g *gbs) assign(b int32) {
	fb, lb := g.first[b], g.last[b]
	lo, hi := -1, gbsNoTask // the gap of the object around b
	var o int32
	if g.bestDist[b] == gbsNoDist {
		o = int32(len(g.objSize))
		g.objSize = append(g.objSize, g.size[b])
		g.objFirst = append(g.objFirst, []int{fb})
		g.objLast = append(g.objLast, []int{lb})
	} else {
		o = g.bestObj[b]
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
		g.gaps = newGBSGaps(len(g.first))
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
	g.next[b] = b + 1
	v := len(g.minLast)/2 + int(b)
	for g.minLast[v] = math.MaxInt; v > 1; v >>= 1 {
		g.minLast[v>>1] = min(g.minLast[v], g.minLast[v^1])
	}
	if hi == gbsNoTask && lo == -1 {
		g.offerNew(o, fb, lb)
		return
	}

	// Only records inside (lo, hi) can see their distance to o change:
	// others either intersect a neighbour of b in o or have a nearer one.
	k, _ := slices.BinarySearch(g.first, lo+1)
	for k = g.find(k); k < len(g.first) && g.first[k] < hi; k = g.find(k + 1) {
		if !g.tick(1) {
			return
		}
		i := int32(k)
		li := g.last[i]
		if li >= hi {
			continue
		}
		fi := g.first[i]
		var d int64
		switch {
		case li < fb:
			d = int64(fb - li)
		case lb < fi:
			d = int64(fi - lb)
		default:
			// i now intersects o. If o was its best, TFLite recomputes.
			if g.bestObj[i] == o && g.bestDist[i] != gbsNoDist {
				g.recalc(i)
			}
			continue
		}
		g.offer(i, o, d)
	}
}

// offerNew updates the records that a new object o, holding only [fb, lb],
// affects: those that do not intersect it (a record that intersects it
// cannot have o as its best). Those ending before fb are found in
// minLast; those starting after lb form a range.
func (g *gbs) offerNew(o int32, fb, lb int) {
	end, _ := slices.BinarySearch(g.first, fb) // records [0, end) start before fb
	g.offerEndingBefore(o, 1, 0, len(g.minLast)/2, end, fb)
	k, _ := slices.BinarySearch(g.first, lb+1)
	for k = g.find(k); k < len(g.first); k = g.find(k + 1) {
		if !g.tick(1) {
			return
		}
		g.offer(int32(k), o, int64(g.first[k]-lb))
	}
}

// offerEndingBefore offers o to the unassigned records below index end in
// node v (covering [l, r)) whose last task is before fb.
func (g *gbs) offerEndingBefore(o int32, v, l, r, end, fb int) {
	if l >= end || g.minLast[v] >= fb || g.canceled != nil {
		return
	}
	if r-l == 1 {
		if g.tick(1) {
			g.offer(int32(l), o, int64(fb-g.last[l]))
		}
		return
	}
	m := (l + r) / 2
	g.offerEndingBefore(o, 2*v, l, m, end, fb)
	g.offerEndingBefore(o, 2*v+1, m, r, end, fb)
}

// offer makes o record i's best object if d is nearer than its best.
func (g *gbs) offer(i, o int32, d int64) {
	if d < g.bestDist[i] {
		g.bestDist[i] = d
		g.bestObj[i] = o
		g.requeue(i)
	}
}

// gbsGapsFrom is how many objects recalc scans one by one (distances by
// binary search, stopping at distance 1) before greedy-by-size keeps
// gbsGaps: few objects (most graphs) are cheaper to scan than to index.
const gbsGapsFrom = 64

// recalc is TFLite's RecalcBestDist: the lowest-id object at minimal
// distance (with none, TFLite leaves best_object as it was).
func (g *gbs) recalc(i int32) {
	fi, li := g.first[i], g.last[i]
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
	if best == gbsNoDist {
		bo = g.bestObj[i]
	}
	g.bestDist[i], g.bestObj[i] = best, bo
	g.requeue(i)
}

func (g *gbs) find(k int) int {
	nx := g.next
	for int(nx[k]) != k {
		nx[k] = nx[nx[k]]
		k = int(nx[k])
	}
	return k
}

// requeue gives record i its new distance in the queue, if it is there.
func (g *gbs) requeue(i int32) {
	if s := g.slot[i]; s >= 0 {
		g.queue.set(s, uint64(g.bestDist[i]))
	}
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
