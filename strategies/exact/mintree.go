package exact

// minTree is a segment tree over int64 values that adds to ranges and
// finds the minimum of ranges, each in O(log n). A node's min already
// counts the adds of its own range, not those of its ancestors.
type minTree struct {
	n       int
	mn, add []int64
}

// reset makes the tree hold vals.
func (t *minTree) reset(vals []int64) {
	t.n = len(vals)
	size := 1
	for size < 2*t.n {
		size *= 2
	}
	if cap(t.mn) < size {
		t.mn, t.add = make([]int64, size), make([]int64, size)
	}
	t.mn, t.add = t.mn[:size], t.add[:size]
	if t.n > 0 {
		t.build(1, 0, t.n, vals)
	}
}

func (t *minTree) build(node, lo, hi int, vals []int64) {
	t.add[node] = 0
	if hi-lo == 1 {
		t.mn[node] = vals[lo]
		return
	}
	mid := (lo + hi) / 2
	t.build(2*node, lo, mid, vals)
	t.build(2*node+1, mid, hi, vals)
	t.mn[node] = min(t.mn[2*node], t.mn[2*node+1])
}

// rangeAdd adds v to every value in [l, r).
func (t *minTree) rangeAdd(l, r int, v int64) {
	if l < r {
		t.update(1, 0, t.n, l, r, v)
	}
}

func (t *minTree) update(node, lo, hi, l, r int, v int64) {
	if l <= lo && hi <= r {
		t.mn[node] += v
		t.add[node] += v
		return
	}
	mid := (lo + hi) / 2
	if l < mid {
		t.update(2*node, lo, mid, l, r, v)
	}
	if r > mid {
		t.update(2*node+1, mid, hi, l, r, v)
	}
	t.mn[node] = min(t.mn[2*node], t.mn[2*node+1]) + t.add[node]
}

// rangeMin returns the least value in [l, r), which must not be empty.
func (t *minTree) rangeMin(l, r int) int64 {
	return t.query(1, 0, t.n, l, r)
}

func (t *minTree) query(node, lo, hi, l, r int) int64 {
	if l <= lo && hi <= r {
		return t.mn[node]
	}
	mid := (lo + hi) / 2
	m := int64(1<<62 - 1)
	if l < mid {
		m = t.query(2*node, lo, mid, l, r)
	}
	if r > mid {
		m = min(m, t.query(2*node+1, mid, hi, l, r))
	}
	return m + t.add[node]
}

// below calls fn for each index in [l, r) whose value is less than x, in
// order, until fn returns false; it reports whether fn never did.
func (t *minTree) below(l, r int, x int64, fn func(i int) bool) bool {
	return t.visit(1, 0, t.n, l, r, x, fn)
}

func (t *minTree) visit(node, lo, hi, l, r int, x int64, fn func(int) bool) bool {
	if t.mn[node] >= x {
		return true
	}
	if hi-lo == 1 {
		return fn(lo)
	}
	// The children's values lack this node's adds.
	x -= t.add[node]
	mid := (lo + hi) / 2
	if l < mid && !t.visit(2*node, lo, mid, l, r, x, fn) {
		return false
	}
	return r <= mid || t.visit(2*node+1, mid, hi, l, r, x, fn)
}
