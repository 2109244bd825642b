package strategies

// gbsGaps indexes the gaps of greedy-by-size's objects so that TFLite's
// RecalcBestDist (the nearest object a record does not intersect, lowest id
// on ties) costs two tree descents instead of a pass over every object.
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
// task, its object's id complemented) with the R of the gap after it;
// before keys it by (its first task, its object) with -L of the gap before
// it. So the last key of after below the record's first task, and the
// first key of before after its last task, are each at the nearest task
// and the lowest object id there.
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
	gg.after.insert(l, ^o, hi)
	gg.before.insert(f, o, -lo)
}

// insert records tensor [f, l] joining object o between the tensors
// ending at lo (-1: none) and starting at hi (gbsNoTask: none).
func (gg *gbsGaps) insert(o int32, f, l, lo, hi int) {
	gg.add(o, f, l, lo, hi)
	if lo >= 0 {
		gg.after.set(lo, ^o, f)
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
	// The largest L below f of a gap with R > l, lowest object there.
	if v := gg.after.lastBelow(f, l); v != 0 {
		n := &gg.after.nodes[v]
		dist, obj = int64(f-n.task), ^n.obj
	}
	// The smallest R above l of a gap with L < f, lowest object first.
	// No object id reaches MaxInt32, so the key (l, MaxInt32) starts
	// just past every key at task l.
	if v := gg.before.firstFrom(l, 1<<31-1, -f); v != 0 {
		n := &gg.before.nodes[v]
		d, o := int64(n.task-l), n.obj
		if d < dist || d == dist && o < obj {
			dist, obj = d, o
		}
	}
	return dist, obj
}

// gapTreap is a treap of (task, object) keys, each with a value, whose
// nodes keep the largest value below them, so that the first or last key
// in a range with a value above some bound is found in one descent.
// Node 0 stands for the empty tree.
type gapTreap struct {
	nodes []gapNode
	root  int32
	seed  uint32
	path  []int32
}

// gapNode is one key of a gapTreap, in one cache line.
type gapNode struct {
	task      int
	val, most int
	obj       int32
	l, r      int32
	prio      uint32
}

func newGapTreap(n int, seed uint32) gapTreap {
	return gapTreap{nodes: make([]gapNode, 1, n+1), seed: seed}
}

// after reports whether node n's key comes after key (t, o).
func (n *gapNode) after(t int, o int32) bool {
	return t < n.task || t == n.task && o < n.obj
}

func (tr *gapTreap) pull(v int32) {
	nd := &tr.nodes[v]
	m := nd.val
	if c := nd.l; c != 0 {
		m = max(m, tr.nodes[c].most)
	}
	if c := nd.r; c != 0 {
		m = max(m, tr.nodes[c].most)
	}
	nd.most = m
}

// insert adds key (t, o), which must be new, with value x.
func (tr *gapTreap) insert(t int, o int32, x int) {
	// xorshift32: priorities need only be well spread, not secret.
	s := tr.seed
	s ^= s << 13
	s ^= s >> 17
	s ^= s << 5
	tr.seed = s
	v := int32(len(tr.nodes))
	tr.nodes = append(tr.nodes, gapNode{task: t, obj: o, val: x, most: x, prio: s})
	tr.root = tr.insertAt(tr.root, v)
}

func (tr *gapTreap) insertAt(u, v int32) int32 {
	if u == 0 {
		return v
	}
	nv, nu := &tr.nodes[v], &tr.nodes[u]
	if nv.prio > nu.prio {
		nv.l, nv.r = tr.split(u, nv.task, nv.obj)
		tr.pull(v)
		return v
	}
	if nu.after(nv.task, nv.obj) {
		l := tr.insertAt(nu.l, v)
		tr.nodes[u].l = l
	} else {
		r := tr.insertAt(nu.r, v)
		tr.nodes[u].r = r
	}
	tr.pull(u)
	return u
}

// split cuts tree u into the keys before (t, o) and the others.
func (tr *gapTreap) split(u int32, t int, o int32) (int32, int32) {
	if u == 0 {
		return 0, 0
	}
	if tr.nodes[u].after(t, o) {
		a, b := tr.split(tr.nodes[u].l, t, o)
		tr.nodes[u].l = b
		tr.pull(u)
		return a, u
	}
	a, b := tr.split(tr.nodes[u].r, t, o)
	tr.nodes[u].r = a
	tr.pull(u)
	return u, b
}

// set changes the value of key (t, o), which must be present, to x.
func (tr *gapTreap) set(t int, o int32, x int) {
	path := tr.path[:0]
	v := tr.root
	for n := &tr.nodes[v]; n.task != t || n.obj != o; n = &tr.nodes[v] {
		path = append(path, v)
		if n.after(t, o) {
			v = n.l
		} else {
			v = n.r
		}
	}
	tr.nodes[v].val = x
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
	for v != 0 {
		n := &tr.nodes[v]
		if n.most <= x {
			break
		}
		if n.task >= t {
			v = n.l
			continue
		}
		// Every key of the left subtree is below t too: if the right
		// one has no answer, the answer is v or the left's last.
		if w := tr.lastBelowIn(n.r, t, x); w != 0 {
			return w
		}
		if n.val > x {
			return v
		}
		v = n.l
	}
	return 0
}

// firstFrom returns the node of the first key at or after (t, o) whose
// value is above x, or 0.
func (tr *gapTreap) firstFrom(t int, o int32, x int) int32 {
	return tr.firstFromIn(tr.root, t, o, x)
}

func (tr *gapTreap) firstFromIn(v int32, t int, o int32, x int) int32 {
	for v != 0 {
		n := &tr.nodes[v]
		if n.most <= x {
			break
		}
		if t > n.task || t == n.task && o > n.obj {
			v = n.r
			continue
		}
		if w := tr.firstFromIn(n.l, t, o, x); w != 0 {
			return w
		}
		if n.val > x {
			return v
		}
		v = n.r
	}
	return 0
}
