package allocators

// This file holds the ordered set and the coalescing free list shared by
// first-fit, best-fit, buddy, torch-caching (its pools and its simulated
// device) and the verifier.

// ordset is an ordered set of (key, sub) pairs, each carrying a value; every
// node also keeps the largest value in its subtree, so that "the lowest key
// whose value is at least n" (first fit) is one descent. It is a treap whose
// priorities come from a fixed-seed generator, so it is deterministic.
type ordset struct {
	root  *onode
	len   int
	seed  uint64
	pool  []onode // free nodes, reused to spare the garbage collector
	spare *onode
}

type onode struct {
	key, sub, val, max int64
	prio               uint64
	left, right        *onode
}

func (n *onode) less(key, sub int64) bool {
	return n.key < key || (n.key == key && n.sub < sub)
}

func (n *onode) fix() {
	m := n.val
	if n.left != nil && n.left.max > m {
		m = n.left.max
	}
	if n.right != nil && n.right.max > m {
		m = n.right.max
	}
	n.max = m
}

func (s *ordset) newNode(key, sub, val int64) *onode {
	n := s.spare
	if n != nil {
		s.spare = n.right
	} else {
		if len(s.pool) == 0 {
			s.pool = make([]onode, 256)
		}
		n = &s.pool[0]
		s.pool = s.pool[1:]
	}
	// xorshift64*: cheap, deterministic priorities.
	if s.seed == 0 {
		s.seed = 0x9e3779b97f4a7c15
	}
	s.seed ^= s.seed >> 12
	s.seed ^= s.seed << 25
	s.seed ^= s.seed >> 27
	*n = onode{key: key, sub: sub, val: val, max: val, prio: s.seed * 0x2545f4914f6cdd1d}
	return n
}

// split cuts t into the pairs < (key, sub) and those >= (key, sub).
func split(t *onode, key, sub int64) (l, r *onode) {
	if t == nil {
		return nil, nil
	}
	if t.less(key, sub) {
		t.right, r = split(t.right, key, sub)
		t.fix()
		return t, r
	}
	l, t.left = split(t.left, key, sub)
	t.fix()
	return l, t
}

// join concatenates l and r, every pair of l being below every pair of r.
func join(l, r *onode) *onode {
	if l == nil {
		return r
	}
	if r == nil {
		return l
	}
	if l.prio > r.prio {
		l.right = join(l.right, r)
		l.fix()
		return l
	}
	r.left = join(l, r.left)
	r.fix()
	return r
}

// insert adds (key, sub) with val; the pair must not be present.
func (s *ordset) insert(key, sub, val int64) {
	n := s.newNode(key, sub, val)
	s.root = insertNode(s.root, n)
	s.len++
}

func insertNode(t, n *onode) *onode {
	if t == nil {
		return n
	}
	if n.prio > t.prio {
		n.left, n.right = split(t, n.key, n.sub)
		n.fix()
		return n
	}
	if t.less(n.key, n.sub) {
		t.right = insertNode(t.right, n)
	} else {
		t.left = insertNode(t.left, n)
	}
	t.fix()
	return t
}

// remove deletes (key, sub) and reports whether it was present.
func (s *ordset) remove(key, sub int64) bool {
	var gone *onode
	s.root = removeNode(s.root, key, sub, &gone)
	if gone == nil {
		return false
	}
	s.len--
	gone.left, gone.right = nil, s.spare
	s.spare = gone
	return true
}

func removeNode(t *onode, key, sub int64, gone **onode) *onode {
	if t == nil {
		return nil
	}
	switch {
	case t.key == key && t.sub == sub:
		*gone = t
		return join(t.left, t.right)
	case t.less(key, sub):
		t.right = removeNode(t.right, key, sub, gone)
	default:
		t.left = removeNode(t.left, key, sub, gone)
	}
	if *gone != nil {
		t.fix()
	}
	return t
}

// ceil returns the smallest pair >= (key, sub), or nil.
func (s *ordset) ceil(key, sub int64) *onode {
	var best *onode
	for t := s.root; t != nil; {
		if t.less(key, sub) {
			t = t.right
		} else {
			best, t = t, t.left
		}
	}
	return best
}

// floor returns the largest pair <= (key, sub), or nil.
func (s *ordset) floor(key, sub int64) *onode {
	var best *onode
	for t := s.root; t != nil; {
		if t.key == key && t.sub == sub {
			return t
		}
		if t.less(key, sub) {
			best, t = t, t.right
		} else {
			t = t.left
		}
	}
	return best
}

// below returns the largest pair < (key, sub), or nil.
func (s *ordset) below(key, sub int64) *onode {
	var best *onode
	for t := s.root; t != nil; {
		if t.less(key, sub) {
			best, t = t, t.right
		} else {
			t = t.left
		}
	}
	return best
}

// has reports whether (key, sub) is in the set.
func (s *ordset) has(key, sub int64) bool {
	n := s.ceil(key, sub)
	return n != nil && n.key == key && n.sub == sub
}

// first returns the smallest pair, or nil.
func (s *ordset) first() *onode {
	t := s.root
	for t != nil && t.left != nil {
		t = t.left
	}
	return t
}

// last returns the largest pair, or nil.
func (s *ordset) last() *onode {
	t := s.root
	for t != nil && t.right != nil {
		t = t.right
	}
	return t
}

// firstAtLeast returns the smallest pair whose value is >= v, or nil.
func (s *ordset) firstAtLeast(v int64) *onode {
	t := s.root
	if t == nil || t.max < v {
		return nil
	}
	for {
		if t.left != nil && t.left.max >= v {
			t = t.left
		} else if t.val >= v {
			return t
		} else {
			t = t.right
		}
	}
}

// maxVal returns the largest value in the set, 0 when empty.
func (s *ordset) maxVal() int64 {
	if s.root == nil {
		return 0
	}
	return s.root.max
}

// each calls f on every pair in order until f returns false.
func (s *ordset) each(f func(n *onode) bool) { eachNode(s.root, f) }

func eachNode(t *onode, f func(n *onode) bool) bool {
	return t == nil || (eachNode(t.left, f) && f(t) && eachNode(t.right, f))
}

// fitPolicy chooses a free range for a request.
type fitPolicy uint8

const (
	// firstFit takes the free range with the lowest address that fits.
	firstFit fitPolicy = iota
	// bestFit takes the smallest free range that fits, ties by address.
	bestFit
)

// freeList is a set of disjoint free address ranges; adjacent ranges are
// coalesced when a range is returned.
type freeList struct {
	policy fitPolicy
	byAddr ordset // key offset, value size
	bySize ordset // key size, sub offset; kept for bestFit only
}

// largest returns the size of the largest free range.
func (f *freeList) largest() int64 { return f.byAddr.maxVal() }

// tail returns the free range with the highest address.
func (f *freeList) tail() (off, size int64, ok bool) {
	n := f.byAddr.last()
	if n == nil {
		return 0, 0, false
	}
	return n.key, n.val, true
}

func (f *freeList) add(off, size int64) {
	f.byAddr.insert(off, 0, size)
	if f.policy == bestFit {
		f.bySize.insert(size, off, 0)
	}
}

func (f *freeList) del(off, size int64) {
	f.byAddr.remove(off, 0)
	if f.policy == bestFit {
		f.bySize.remove(size, off)
	}
}

// take carves n bytes from the front of the range the policy picks and
// returns their offset.
func (f *freeList) take(n int64) (int64, bool) {
	var off, size int64
	if f.policy == bestFit {
		b := f.bySize.ceil(n, -1<<63)
		if b == nil {
			return 0, false
		}
		off, size = b.sub, b.key
	} else {
		b := f.byAddr.firstAtLeast(n)
		if b == nil {
			return 0, false
		}
		off, size = b.key, b.val
	}
	f.del(off, size)
	if size > n {
		f.add(off+n, size-n)
	}
	return off, true
}

// put returns [off, off+size) to the list, merging it with free neighbours.
func (f *freeList) put(off, size int64) {
	if p := f.byAddr.below(off, 0); p != nil && p.key+p.val == off {
		po, ps := p.key, p.val
		f.del(po, ps)
		off, size = po, ps+size
	}
	if n := f.byAddr.ceil(off+size, 0); n != nil && n.key == off+size {
		ns := n.val
		f.del(n.key, ns)
		size += ns
	}
	f.add(off, size)
}

// fitArena is an address space that starts empty at offset 0 and grows at
// its end just enough to serve a request none of its free ranges fits, as
// sbrk does.
type fitArena struct {
	free freeList
	end  int64
}

// growth returns how many bytes the arena must grow by to serve n.
func (a *fitArena) growth(n int64) int64 {
	if a.free.largest() >= n {
		return 0
	}
	if off, size, ok := a.free.tail(); ok && off+size == a.end {
		return n - size
	}
	return n
}

// alloc serves n bytes, growing the arena where needed.
func (a *fitArena) alloc(n int64) int64 {
	if g := a.growth(n); g > 0 {
		a.free.put(a.end, g)
		a.end += g
	}
	off, _ := a.free.take(n)
	return off
}

// fitAllocator is the first-fit and best-fit baseline: one arena at offset
// 0 that grows up to memory_limit, a coalescing free list over it, sizes
// rounded up to multiples of 256 bytes. The arena never shrinks, so
// Reserved is its end.
type fitAllocator struct {
	name  string
	arena fitArena
	limit int64
	live  map[int64]int64 // offset -> chunk bytes
	stats statTracker
}

// fitAlign is the baselines' rounding and alignment.
const fitAlign = 256

func newFitAllocator(name string, policy fitPolicy, limit int64) *fitAllocator {
	return &fitAllocator{
		name:  name,
		arena: fitArena{free: freeList{policy: policy}},
		limit: limit,
		live:  map[int64]int64{},
	}
}

func (a *fitAllocator) Alloc(size int64) (Block, error) {
	if size <= 0 {
		return Block{}, badSize(a.name, size)
	}
	if size > maxRequest {
		return Block{}, a.stats.oom(a.name, size)
	}
	n := roundPow2(size, fitAlign)
	if g := a.arena.growth(n); g > 0 && a.limit > 0 && a.arena.end+g > a.limit {
		return Block{}, a.stats.oom(a.name, size)
	}
	before := a.arena.end
	off := a.arena.alloc(n)
	a.stats.reserve(a.arena.end - before)
	return a.stats.handOut(a.live, off, n), nil
}

func (a *fitAllocator) Free(off int64) error {
	n, err := a.stats.takeBack(a.live, a.name, off)
	if err != nil {
		return err
	}
	a.arena.free.put(off, n)
	return nil
}

func (a *fitAllocator) Stats() Stats {
	s := a.stats.st
	s.LargestFreeChunk = a.arena.free.largest()
	return s
}

// Alignment implements Aligner.
func (a *fitAllocator) Alignment() int64 { return fitAlign }

// clear empties the set, keeping its nodes for reuse.
func (s *ordset) clear() {
	var stack []*onode
	if s.root != nil {
		stack = append(stack, s.root)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.left != nil {
			stack = append(stack, n.left)
		}
		if n.right != nil {
			stack = append(stack, n.right)
		}
		n.left, n.right = nil, s.spare
		s.spare = n
	}
	s.root, s.len, s.seed = nil, 0, 0
}
