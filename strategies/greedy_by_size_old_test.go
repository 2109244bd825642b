package strategies

// The greedy-by-size planner as it was before its records were kept in a
// gbsTree (commit 6ef6fac): each assignment walked every unassigned record
// inside the object's gap around the new tensor. Kept here, in tests only,
// as the reference the randomized differential tests and the A/B
// benchmark hold the planner to.

import (
	"cmp"
	"context"
	"math"
	"slices"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// gbsOld is the state of one greedy-by-size run. Records are renumbered in
// order of first task (ties by index), so that the scans below walk the
// arrays in order; orig maps back to the problem's index.
type gbsOld struct {
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
	gaps     *gbsOldGaps
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
func (g *gbsOld) tick(cost int) bool {
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

// gbsOldObjects returns TFLite's object_ids and object_sizes.
func gbsOldObjects(ctx context.Context, bufs []workloads.Buffer) ([]int, []int64, error) {
	return gbsOldRun(ctx, bufs, gbsGapsFrom)
}

// gbsOldRun is gbsOldObjects keeping gbsOldGaps from gapsFrom
// objects on (the tests try 0 and every count).
func gbsOldRun(ctx context.Context, bufs []workloads.Buffer, gapsFrom int) ([]int, []int64, error) {
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
	g := &gbsOld{
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

// assign gives record b its object and updates the records it affects.
func (g *gbsOld) assign(b int32) {
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
		g.gaps = newGBSOldGaps(len(g.first))
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
func (g *gbsOld) offerNew(o int32, fb, lb int) {
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
func (g *gbsOld) offerEndingBefore(o int32, v, l, r, end, fb int) {
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
func (g *gbsOld) offer(i, o int32, d int64) {
	if d < g.bestDist[i] {
		g.bestDist[i] = d
		g.bestObj[i] = o
		g.requeue(i)
	}
}

// recalc is TFLite's RecalcBestDist: the lowest-id object at minimal
// distance (with none, TFLite leaves best_object as it was).
func (g *gbsOld) recalc(i int32) {
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

func (g *gbsOld) find(k int) int {
	nx := g.next
	for int(nx[k]) != k {
		nx[k] = nx[nx[k]]
		k = int(nx[k])
	}
	return k
}

// requeue gives record i its new distance in the queue, if it is there.
func (g *gbsOld) requeue(i int32) {
	if s := g.slot[i]; s >= 0 {
		g.queue.set(s, uint64(g.bestDist[i]))
	}
}

// gbsOldGaps indexes the gaps of greedy-by-size's objects so that TFLite's
// RecalcBestDist (the nearest object a record does not intersect, lowest id
// on ties) costs a few tree descents instead of a pass over every object.
//
// An object's tensors are disjoint, so they cut time into gaps (L, R): L
// is the last task of a tensor (or none), R the first task of the next
// one in the object (or none). A record [f, l] misses the object exactly
// when it lies inside one of its gaps, L < f and l < R, and its distance
// to the object is then min(f-L, R-l). So the record's best distance is
// the smaller of f - (the largest L of a gap holding it) and (the smallest
// R of a gap holding it) - l, and the objects at that distance are those
// with a gap holding it whose L or R is that far away.
//
// Every gap but an object's last is the gap before a tensor, and every gap
// but its first the gap after one: after keys each tensor by (its last
// task, its object) with the R of the gap after it; before keys it by (its
// first task, its object) with -L of the gap before it. Within one task
// the key orders objects by id, so the first key found at the nearest task
// is the lowest id there.
type gbsOldGaps struct {
	after, before gbsOldTreap
}

func newGBSOldGaps(n int) *gbsOldGaps {
	return &gbsOldGaps{after: newGBSOldTreap(n, 1), before: newGBSOldTreap(n, 2)}
}

// add records tensor [f, l] of object o, whose neighbours there end at
// lo (-1: none) and start at hi (gbsNoTask: none), all already recorded
// or about to be.
func (gg *gbsOldGaps) add(o int32, f, l, lo, hi int) {
	gg.after.insert(l, o, hi)
	gg.before.insert(f, o, -lo)
}

// insert records tensor [f, l] joining object o between the tensors
// ending at lo (-1: none) and starting at hi (gbsNoTask: none).
func (gg *gbsOldGaps) insert(o int32, f, l, lo, hi int) {
	gg.add(o, f, l, lo, hi)
	if lo >= 0 {
		gg.after.set(lo, o, f)
	}
	if hi != gbsNoTask {
		gg.before.set(hi, o, -l)
	}
}

// best returns the distance from [f, l] to its nearest object that it
// does not intersect and the lowest id of the objects at that distance;
// gbsNoDist and -1 when it intersects every object.
func (gg *gbsOldGaps) best(f, l int) (int64, int32) {
	dist, obj := int64(gbsNoDist), int32(-1)
	// The largest L below f of a gap with R > l ...
	if v := gg.after.lastBelow(f, l); v != 0 {
		L := gg.after.task[v]
		// ... and the lowest object with such a gap at that L.
		w := gg.after.firstFrom(L, 0, l)
		dist, obj = int64(f-L), gg.after.obj[w]
	}
	// The smallest R above l of a gap with L < f, lowest object first.
	// No object id reaches MaxInt32, so the key (l, MaxInt32) starts
	// just past every key at task l.
	if v := gg.before.firstFrom(l, 1<<31-1, -f); v != 0 {
		d, o := int64(gg.before.task[v]-l), gg.before.obj[v]
		if d < dist || d == dist && o < obj {
			dist, obj = d, o
		}
	}
	return dist, obj
}

// gbsOldTreap is a treap of (task, object) keys, each with a value, whose
// nodes keep the largest value below them, so that the first or last key
// in a range with a value above some bound is found in one descent.
// Nodes live in parallel slices; 0 is the empty tree.
type gbsOldTreap struct {
	task      []int
	obj       []int32
	val, most []int
	l, r      []int32
	prio      []uint32
	root      int32
	seed      uint32
	path      []int32
}

func newGBSOldTreap(n int, seed uint32) gbsOldTreap {
	return gbsOldTreap{
		task: make([]int, 1, n+1), obj: make([]int32, 1, n+1),
		val: make([]int, 1, n+1), most: make([]int, 1, n+1),
		l: make([]int32, 1, n+1), r: make([]int32, 1, n+1),
		prio: make([]uint32, 1, n+1), seed: seed,
	}
}

// before reports whether key (t, o) comes before node v's key.
func (tr *gbsOldTreap) before(t int, o int32, v int32) bool {
	return t < tr.task[v] || t == tr.task[v] && o < tr.obj[v]
}

func (tr *gbsOldTreap) pull(v int32) {
	m := tr.val[v]
	if c := tr.l[v]; c != 0 {
		m = max(m, tr.most[c])
	}
	if c := tr.r[v]; c != 0 {
		m = max(m, tr.most[c])
	}
	tr.most[v] = m
}

// insert adds key (t, o), which must be new, with value x.
func (tr *gbsOldTreap) insert(t int, o int32, x int) {
	// xorshift32: priorities need only be well spread, not secret.
	s := tr.seed
	s ^= s << 13
	s ^= s >> 17
	s ^= s << 5
	tr.seed = s
	v := int32(len(tr.task))
	tr.task = append(tr.task, t)
	tr.obj = append(tr.obj, o)
	tr.val = append(tr.val, x)
	tr.most = append(tr.most, x)
	tr.l = append(tr.l, 0)
	tr.r = append(tr.r, 0)
	tr.prio = append(tr.prio, s)
	tr.root = tr.insertAt(tr.root, v)
}

func (tr *gbsOldTreap) insertAt(u, v int32) int32 {
	if u == 0 {
		return v
	}
	if tr.prio[v] > tr.prio[u] {
		tr.l[v], tr.r[v] = tr.split(u, tr.task[v], tr.obj[v])
		tr.pull(v)
		return v
	}
	if tr.before(tr.task[v], tr.obj[v], u) {
		tr.l[u] = tr.insertAt(tr.l[u], v)
	} else {
		tr.r[u] = tr.insertAt(tr.r[u], v)
	}
	tr.pull(u)
	return u
}

// split cuts tree u into the keys before (t, o) and the others.
func (tr *gbsOldTreap) split(u int32, t int, o int32) (int32, int32) {
	if u == 0 {
		return 0, 0
	}
	if tr.before(t, o, u) {
		a, b := tr.split(tr.l[u], t, o)
		tr.l[u] = b
		tr.pull(u)
		return a, u
	}
	a, b := tr.split(tr.r[u], t, o)
	tr.r[u] = a
	tr.pull(u)
	return u, b
}

// set changes the value of key (t, o), which must be present, to x.
func (tr *gbsOldTreap) set(t int, o int32, x int) {
	path := tr.path[:0]
	v := tr.root
	for tr.task[v] != t || tr.obj[v] != o {
		path = append(path, v)
		if tr.before(t, o, v) {
			v = tr.l[v]
		} else {
			v = tr.r[v]
		}
	}
	tr.val[v] = x
	tr.pull(v)
	for k := len(path) - 1; k >= 0; k-- {
		tr.pull(path[k])
	}
	tr.path = path
}

// lastBelow returns the node of the last key whose task is below t and
// whose value is above x, or 0.
func (tr *gbsOldTreap) lastBelow(t, x int) int32 {
	return tr.lastBelowIn(tr.root, t, x)
}

func (tr *gbsOldTreap) lastBelowIn(v int32, t, x int) int32 {
	for v != 0 && tr.most[v] > x {
		if tr.task[v] >= t {
			v = tr.l[v]
			continue
		}
		// Every key of the left subtree is below t too: if the right
		// one has no answer, the answer is v or the left's last.
		if w := tr.lastBelowIn(tr.r[v], t, x); w != 0 {
			return w
		}
		if tr.val[v] > x {
			return v
		}
		v = tr.l[v]
	}
	return 0
}

// firstFrom returns the node of the first key at or after (t, o) whose
// value is above x, or 0.
func (tr *gbsOldTreap) firstFrom(t int, o int32, x int) int32 {
	return tr.firstFromIn(tr.root, t, o, x)
}

func (tr *gbsOldTreap) firstFromIn(v int32, t int, o int32, x int) int32 {
	for v != 0 && tr.most[v] > x {
		if t > tr.task[v] || t == tr.task[v] && o > tr.obj[v] {
			v = tr.r[v]
			continue
		}
		if w := tr.firstFromIn(tr.l[v], t, o, x); w != 0 {
			return w
		}
		if tr.val[v] > x {
			return v
		}
		v = tr.r[v]
	}
	return 0
}
