package strategies

// gbsGaps indexes the gaps of greedy-by-size's objects so that TFLite's
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
type gbsGaps struct {
	after, before gapTreap
}

// gbsNoTask stands for a missing side of a gap: the gap after an object's
// last tensor has no R; the gap before its first has L = -1, which every
// first task (>= 0) follows.
const gbsNoTask = int(^uint(0) >> 1)

func newGBSGaps(n int) *gbsGaps {
	return &gbsGaps{after: newGapTreap(n, 1), before: newGapTreap(n, 2)}
}

// add records tensor [f, l] of object o, whose neighbours there end at
// lo (-1: none) and start at hi (gbsNoTask: none), all already recorded
// or about to be.
func (gg *gbsGaps) add(o int32, f, l, lo, hi int) {
	gg.after.insert(l, o, hi)
	gg.before.insert(f, o, -lo)
}

// insert records tensor [f, l] joining object o between the tensors
// ending at lo (-1: none) and starting at hi (gbsNoTask: none).
func (gg *gbsGaps) insert(o int32, f, l, lo, hi int) {
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
func (gg *gbsGaps) best(f, l int) (int64, int32) {
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

// gapTreap is a treap of (task, object) keys, each with a value, whose
// nodes keep the largest value below them, so that the first or last key
// in a range with a value above some bound is found in one descent.
// Nodes live in parallel slices; 0 is the empty tree.
type gapTreap struct {
	task      []int
	obj       []int32
	val, most []int
	l, r      []int32
	prio      []uint32
	root      int32
	seed      uint32
	path      []int32
}

func newGapTreap(n int, seed uint32) gapTreap {
	return gapTreap{
		task: make([]int, 1, n+1), obj: make([]int32, 1, n+1),
		val: make([]int, 1, n+1), most: make([]int, 1, n+1),
		l: make([]int32, 1, n+1), r: make([]int32, 1, n+1),
		prio: make([]uint32, 1, n+1), seed: seed,
	}
}

// before reports whether key (t, o) comes before node v's key.
func (tr *gapTreap) before(t int, o int32, v int32) bool {
	return t < tr.task[v] || t == tr.task[v] && o < tr.obj[v]
}

func (tr *gapTreap) pull(v int32) {
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
func (tr *gapTreap) insert(t int, o int32, x int) {
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

func (tr *gapTreap) insertAt(u, v int32) int32 {
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
func (tr *gapTreap) split(u int32, t int, o int32) (int32, int32) {
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
func (tr *gapTreap) set(t int, o int32, x int) {
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
func (tr *gapTreap) lastBelow(t, x int) int32 {
	return tr.lastBelowIn(tr.root, t, x)
}

func (tr *gapTreap) lastBelowIn(v int32, t, x int) int32 {
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
func (tr *gapTreap) firstFrom(t int, o int32, x int) int32 {
	return tr.firstFromIn(tr.root, t, o, x)
}

func (tr *gapTreap) firstFromIn(v int32, t int, o int32, x int) int32 {
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
