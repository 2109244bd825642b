package allocators

import "math/bits"

// Exact size classes over a bitmap: the best-fit index of the small free
// chunks of bfc, and of the cached blocks and free pieces of torch-caching
// and oneflow-bin, which keep theirs as BFC does.

const (
	// classLimit: free chunks smaller than this sit in exact size classes.
	classLimit = 16 << 20
	// classList is the most chunks a class lists before it moves them
	// into a heap, which bounds every list walk.
	classList = 8
)

// classSlot is one exact size class: a list of free chunks by address,
// linked through bfcChunk.fnext, or, once it outgrew the list, a binary
// heap of its chunks by address, where fnext is each chunk's position.
// The zero value is an empty class, so the slot array needs no setup. The
// bitmaps mark the classes with n != 0.
type classSlot struct {
	head int32 // lowest-address chunk when n > 0; the heap's id when n < 0
	n    int32 // chunks listed (> 0), or minus the chunks in the heap (< 0)
}

// classEnt is a chunk in a class's heap.
type classEnt struct {
	addr int64
	h    int32
}

// sizeClasses holds free chunks by exact size (size >> shift: one class
// per 256 bytes, or per 512 for allocators whose sizes are multiples of
// 512) with a three-level bitmap of non-empty classes, so best fit is a
// few bit scans and the head of a list or heap: TLSF's idea. The bitmap
// has at most 64*64*64 classes, so classLimit <= 64 MiB.
// A class holding many chunks of one size (a caching allocator's whole
// free segments) keeps them in a heap, whose operations stay logarithmic.
type sizeClasses struct {
	slots []classSlot  // nil when classes are off
	heaps [][]classEnt // by id: the heaps of classes with n < 0
	spare []int32      // heap ids not in use
	l0    []uint64     // bit k: class k holds a chunk
	l1    []uint64     // bit i: l0[i] != 0
	l2    uint64       // bit j: l1[j] != 0
	shift uint8        // log2 of the bytes per class: 8 or 9
}

// init sets up classes of 1<<shift bytes for every chunk size below
// limit. Every chunk size must be a multiple of 1<<shift.
func (sc *sizeClasses) init(limit int64, shift uint8) {
	sc.shift = shift
	n := int((limit+(1<<shift)-1)>>shift+63) &^ 63
	sc.slots = make([]classSlot, n)
	sc.l0 = make([]uint64, n/64)
	sc.l1 = make([]uint64, (len(sc.l0)+63)/64)
}

func (sc *sizeClasses) clear(chunks []bfcChunk) {
	if sc.slots == nil {
		return
	}
	for i := range chunks {
		if k := chunks[i].size >> (sc.shift & 63); chunks[i].bin != bfcNone && k < int64(len(sc.slots)) {
			sc.slots[k] = classSlot{}
		}
	}
	clear(sc.l0)
	clear(sc.l1)
	sc.l2 = 0
	sc.spare = sc.spare[:0]
	for id := range sc.heaps {
		sc.heaps[id] = sc.heaps[id][:0]
		sc.spare = append(sc.spare, int32(id))
	}
}

func (sc *sizeClasses) mark(k int64) {
	w := &sc.l0[k>>6]
	if *w == 0 {
		sc.l1[k>>12] |= 1 << ((k >> 6) & 63)
		sc.l2 |= 1 << (k >> 12)
	}
	*w |= 1 << (k & 63)
}

func (sc *sizeClasses) unmark(k int64) {
	if sc.l0[k>>6] &^= 1 << (k & 63); sc.l0[k>>6] == 0 {
		if sc.l1[k>>12] &^= 1 << ((k >> 6) & 63); sc.l1[k>>12] == 0 {
			sc.l2 &^= 1 << (k >> 12)
		}
	}
}

// first returns the lowest-address chunk of the smallest non-empty class
// holding chunks of at least size bytes (a multiple of 1<<shift), or
// bfcNone if there is none.
func (sc *sizeClasses) first(size int64) int32 {
	k := sc.firstClass(size)
	if k < 0 {
		return bfcNone
	}
	s := &sc.slots[k]
	if s.n < 0 {
		return sc.heaps[s.head][0].h
	}
	return s.head
}

// take is first, taking the chunk out of its class.
func (sc *sizeClasses) take(chunks []bfcChunk, size int64) int32 {
	k := sc.firstClass(size)
	if k < 0 {
		return bfcNone
	}
	s := &sc.slots[k]
	if s.n < 0 {
		h := sc.heaps[s.head][0].h
		sc.popAt(chunks, s, k, 0)
		return h
	}
	h := s.head
	s.head = chunks[h].fnext
	if s.n--; s.n == 0 {
		sc.unmark(k)
	}
	return h
}

// firstClass returns the smallest non-empty class holding chunks of at
// least size bytes (a multiple of 1<<shift), or -1 if there is none.
func (sc *sizeClasses) firstClass(size int64) int64 {
	k := size >> (sc.shift & 63)
	if k >= int64(len(sc.slots)) {
		return -1
	}
	w := k >> 6
	m := sc.l0[w] & (^uint64(0) << (k & 63))
	if m == 0 {
		w++
		i := w >> 6
		var m1 uint64
		if i < int64(len(sc.l1)) {
			m1 = sc.l1[i] & (^uint64(0) << (w & 63))
		}
		if m1 == 0 {
			m2 := sc.l2 & (^uint64(0) << (i + 1))
			if i+1 >= 64 || m2 == 0 {
				return -1
			}
			i = int64(bits.TrailingZeros64(m2))
			m1 = sc.l1[i]
		}
		w = i<<6 + int64(bits.TrailingZeros64(m1))
		m = sc.l0[w]
	}
	return w<<6 + int64(bits.TrailingZeros64(m))
}

// largest returns the size of the largest non-empty class, or 0.
func (sc *sizeClasses) largest() int64 {
	if sc.l2 == 0 {
		return 0
	}
	i := 63 - bits.LeadingZeros64(sc.l2)
	w := i<<6 + 63 - bits.LeadingZeros64(sc.l1[i])
	return int64(w<<6+63-bits.LeadingZeros64(sc.l0[w])) << (sc.shift & 63)
}

// insert puts free chunk h in its class and reports whether it did; if
// not, h is too big for the classes and belongs in the large set.
func (sc *sizeClasses) insert(chunks []bfcChunk, h int32) bool {
	c := &chunks[h]
	k := c.size >> (sc.shift & 63)
	if k >= int64(len(sc.slots)) {
		return false
	}
	s := &sc.slots[k]
	switch {
	case s.n == 0:
		sc.mark(k)
		c.fnext = bfcNone
		s.head, s.n = h, 1
		return true
	case s.n == classList:
		sc.toHeap(chunks, s)
		fallthrough
	case s.n < 0:
		sc.push(chunks, s.head, h)
		s.n--
		return true
	}
	p := &s.head
	for *p != bfcNone && chunks[*p].addr < c.addr {
		p = &chunks[*p].fnext
	}
	c.fnext = *p
	*p = h
	s.n++
	return true
}

// insertSparse is insert for tables whose chunks mostly land in empty
// classes (a caching allocator's, which has one table per stream): the
// bitmap, which stays in cache, tells an empty class, whose slot is then
// only written, so a cache miss on it does not stall.
func (sc *sizeClasses) insertSparse(chunks []bfcChunk, h int32) bool {
	k := chunks[h].size >> (sc.shift & 63)
	if k < int64(len(sc.slots)) && sc.l0[k>>6]&(1<<(k&63)) == 0 {
		sc.mark(k)
		chunks[h].fnext = bfcNone
		sc.slots[k] = classSlot{head: h, n: 1}
		return true
	}
	return sc.insert(chunks, h)
}

// remove takes free chunk h out of its class and reports whether it was
// there; if not, it is in the large set.
func (sc *sizeClasses) remove(chunks []bfcChunk, h int32) bool {
	k := chunks[h].size >> (sc.shift & 63)
	if k >= int64(len(sc.slots)) {
		return false
	}
	s := &sc.slots[k]
	if s.n < 0 {
		sc.popAt(chunks, s, k, int(chunks[h].fnext))
		return true
	}
	p := &s.head
	for *p != h {
		p = &chunks[*p].fnext
	}
	*p = chunks[h].fnext
	if s.n--; s.n == 0 {
		sc.unmark(k)
	}
	return true
}

// toHeap moves the list of class s into a heap. The list is in address
// order, which is a heap's order.
func (sc *sizeClasses) toHeap(chunks []bfcChunk, s *classSlot) {
	var id int32
	if n := len(sc.spare); n > 0 {
		id = sc.spare[n-1]
		sc.spare = sc.spare[:n-1]
	} else {
		id = int32(len(sc.heaps))
		sc.heaps = append(sc.heaps, nil)
	}
	hp := sc.heaps[id][:0]
	for x := s.head; x != bfcNone; {
		c := &chunks[x]
		next := c.fnext
		c.fnext = int32(len(hp))
		hp = append(hp, classEnt{addr: c.addr, h: x})
		x = next
	}
	sc.heaps[id] = hp
	s.head, s.n = id, -int32(len(hp))
}

// popAt removes the chunk at position i of the heap of class k (slot s).
func (sc *sizeClasses) popAt(chunks []bfcChunk, s *classSlot, k int64, i int) {
	sc.pop(chunks, s.head, i)
	if s.n++; s.n == 0 {
		sc.unmark(k)
		sc.spare = append(sc.spare, s.head)
	}
}

// push adds chunk h to heap id.
func (sc *sizeClasses) push(chunks []bfcChunk, id, h int32) {
	hp := append(sc.heaps[id], classEnt{addr: chunks[h].addr, h: h})
	sc.heaps[id] = hp
	siftUp(hp, chunks, len(hp)-1)
}

// pop removes the chunk at position i of heap id.
func (sc *sizeClasses) pop(chunks []bfcChunk, id int32, i int) {
	hp := sc.heaps[id]
	last := len(hp) - 1
	if i != last {
		hp[i] = hp[last]
		chunks[hp[i].h].fnext = int32(i)
	}
	hp = hp[:last]
	sc.heaps[id] = hp
	if i < last {
		siftDown(hp, chunks, i)
		siftUp(hp, chunks, i)
	}
}

// siftUp and siftDown restore the order of heap hp around position i,
// keeping every moved chunk's fnext at its position.
func siftUp(hp []classEnt, chunks []bfcChunk, i int) {
	e := hp[i]
	for i > 0 {
		p := (i - 1) / 2
		if hp[p].addr < e.addr {
			break
		}
		hp[i] = hp[p]
		chunks[hp[i].h].fnext = int32(i)
		i = p
	}
	hp[i] = e
	chunks[e.h].fnext = int32(i)
}

func siftDown(hp []classEnt, chunks []bfcChunk, i int) {
	e := hp[i]
	for {
		c := 2*i + 1
		if c >= len(hp) {
			break
		}
		if c+1 < len(hp) && hp[c+1].addr < hp[c].addr {
			c++
		}
		if e.addr < hp[c].addr {
			break
		}
		hp[i] = hp[c]
		chunks[hp[i].h].fnext = int32(i)
		i = c
	}
	hp[i] = e
	chunks[e.h].fnext = int32(i)
}
