package kernel

import "slices"

// OrderedKey orders a treap's nodes lexicographically.
type OrderedKey [3]int64

// Less reports whether a sorts before b.

func (a OrderedKey) Less(b OrderedKey) bool {
	if a[0] != b[0] {
		return a[0] < b[0]
	}
	if a[1] != b[1] {
		return a[1] < b[1]
	}
	return a[2] < b[2]
}

// KeyTreap is an ordered set of node ids 0..N-1 by their keys, which must
// be distinct; a node's key may change only while it is out of the set.
// Nodes live in flat arrays and every operation is a loop. MXNet's free
// multimap and MegEngine's free-by-size multiset are both one of these,
// with an insertion counter in the key to order equal sizes.
type KeyTreap struct {
	Key         []OrderedKey // by node id; set before Insert
	left, right []int32
	prio        []uint32
	root        int32
	seed        uint32
	started     bool
}

// Reserve sets aside room for n nodes.
func (t *KeyTreap) Reserve(n int) {
	t.Key = slices.Grow(t.Key, n)
	t.left = slices.Grow(t.left, n)
	t.right = slices.Grow(t.right, n)
	t.prio = slices.Grow(t.prio, n)
}

// Grow makes room for node ids below n.
func (t *KeyTreap) Grow(n int) {
	if !t.started {
		t.root, t.seed, t.started = -1, 0x9e3779b9, true
	}
	for len(t.Key) < n {
		// xorshift32: priorities shape the tree, never the answers.
		t.seed ^= t.seed << 13
		t.seed ^= t.seed >> 17
		t.seed ^= t.seed << 5
		t.Key = append(t.Key, OrderedKey{})
		t.left = append(t.left, -1)
		t.right = append(t.right, -1)
		t.prio = append(t.prio, t.seed)
	}
}

// Insert adds node id (with its current key) to the set.
func (t *KeyTreap) Insert(id int32) {
	t.Grow(int(id) + 1)
	k, prio := t.Key[id], t.prio[id]
	link := &t.root
	for n := *link; n >= 0 && t.prio[n] >= prio; n = *link {
		if k.Less(t.Key[n]) {
			link = &t.left[n]
		} else {
			link = &t.right[n]
		}
	}
	n := *link
	*link = id
	l, r := &t.left[id], &t.right[id]
	for n >= 0 {
		if t.Key[n].Less(k) {
			*l = n
			l = &t.right[n]
			n = *l
		} else {
			*r = n
			r = &t.left[n]
			n = *r
		}
	}
	*l, *r = -1, -1
}

// Erase removes node id, which must be in the set.
func (t *KeyTreap) Erase(id int32) {
	k := t.Key[id]
	link := &t.root
	for *link != id {
		if n := *link; k.Less(t.Key[n]) {
			link = &t.left[n]
		} else {
			link = &t.right[n]
		}
	}
	a, b := t.left[id], t.right[id]
	for a >= 0 && b >= 0 {
		if t.prio[a] > t.prio[b] {
			*link = a
			link = &t.right[a]
			a = *link
		} else {
			*link = b
			link = &t.left[b]
			b = *link
		}
	}
	if a >= 0 {
		*link = a
	} else {
		*link = b
	}
}

// Ceil returns the node with the smallest key >= k, or -1.
func (t *KeyTreap) Ceil(k OrderedKey) int32 {
	best := int32(-1)
	if !t.started {
		return best
	}
	for n := t.root; n >= 0; {
		if t.Key[n].Less(k) {
			n = t.right[n]
		} else {
			best, n = n, t.left[n]
		}
	}
	return best
}

// Lower returns the node with the largest key < k, or -1.
func (t *KeyTreap) Lower(k OrderedKey) int32 {
	best := int32(-1)
	if !t.started {
		return best
	}
	for n := t.root; n >= 0; {
		if t.Key[n].Less(k) {
			best, n = n, t.right[n]
		} else {
			n = t.left[n]
		}
	}
	return best
}

// Last returns the node with the largest key, or -1.
func (t *KeyTreap) Last() int32 {
	if !t.started || t.root < 0 {
		return -1
	}
	n := t.root
	for t.right[n] >= 0 {
		n = t.right[n]
	}
	return n
}
