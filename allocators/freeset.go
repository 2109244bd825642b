package allocators

import "math"

// The ordered set of free chunks by (size, address): the best-fit index of
// the chunks no size class holds, in bfc, torch-caching and oneflow-bin.

// fentry is a free chunk in the large set, ordered by (size, addr).
type fentry struct {
	size, addr int64
	h          int32
}

func (e fentry) less(size, addr int64) bool {
	return e.size < size || e.size == size && e.addr < addr
}

// freeSet is an ordered set of free chunks: a list of sorted blocks of at
// most setBlock entries (a two-level B-tree), with the last key of every
// block mirrored in one array so finding a block touches no block. Blocks
// are small enough to scan linearly, which beats a binary search's
// mispredicted branches.
type freeSet struct {
	blocks [][]fentry
	lasts  []fentry   // lasts[i] is the last entry of blocks[i]
	spare  [][]fentry // emptied blocks kept for reuse
	n      int
}

const setBlock = 32

func (s *freeSet) clear() {
	for _, bl := range s.blocks {
		s.spare = append(s.spare, bl[:0])
	}
	s.blocks = s.blocks[:0]
	s.lasts = s.lasts[:0]
	s.n = 0
}

// blockFor returns the first block whose last entry is not less than
// (size, addr), or len(blocks).
func (s *freeSet) blockFor(size, addr int64) int {
	lo, hi := 0, len(s.lasts)
	for hi-lo > 8 {
		m := int(uint(lo+hi) >> 1)
		if s.lasts[m].less(size, addr) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for lo < hi && s.lasts[lo].less(size, addr) {
		lo++
	}
	return lo
}

// searchBlock returns the index of the first entry not less than (size,
// addr).
func searchBlock(bl []fentry, size, addr int64) int {
	i := 0
	for i < len(bl) && bl[i].size < size {
		i++
	}
	for i < len(bl) && bl[i].size == size && bl[i].addr < addr {
		i++
	}
	return i
}

func (s *freeSet) newBlock() []fentry {
	if n := len(s.spare); n > 0 {
		bl := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return bl
	}
	return make([]fentry, 0, setBlock+1)
}

func (s *freeSet) insert(e fentry) {
	s.n++
	if len(s.blocks) == 0 {
		s.blocks = append(s.blocks, append(s.newBlock(), e))
		s.lasts = append(s.lasts, e)
		return
	}
	bi := s.blockFor(e.size, e.addr)
	if bi == len(s.blocks) {
		bi--
	}
	bl := s.blocks[bi]
	i := searchBlock(bl, e.size, e.addr)
	// Shift by hand: blocks are short, and this skips a memmove call.
	bl = bl[:len(bl)+1]
	for j := len(bl) - 1; j > i; j-- {
		bl[j] = bl[j-1]
	}
	bl[i] = e
	if len(bl) <= setBlock {
		s.blocks[bi] = bl
		s.lasts[bi] = bl[len(bl)-1]
		return
	}
	// Split a full block in two halves.
	hi := append(s.newBlock(), bl[setBlock/2:]...)
	lo := bl[:setBlock/2]
	s.blocks[bi] = lo
	s.lasts[bi] = lo[len(lo)-1]
	s.blocks = append(s.blocks, nil)
	copy(s.blocks[bi+2:], s.blocks[bi+1:])
	s.blocks[bi+1] = hi
	s.lasts = append(s.lasts, fentry{})
	copy(s.lasts[bi+2:], s.lasts[bi+1:])
	s.lasts[bi+1] = hi[len(hi)-1]
}

func (s *freeSet) remove(size, addr int64) {
	bi := s.blockFor(size, addr)
	s.removeAt(bi, searchBlock(s.blocks[bi], size, addr))
}

// removeAt removes entry i of block bi and returns its handle.
func (s *freeSet) removeAt(bi, i int) int32 {
	bl := s.blocks[bi]
	h := bl[i].h
	for j := i + 1; j < len(bl); j++ {
		bl[j-1] = bl[j]
	}
	bl = bl[:len(bl)-1]
	s.n--
	if len(bl) > 0 {
		s.blocks[bi] = bl
		s.lasts[bi] = bl[len(bl)-1]
		return h
	}
	s.spare = append(s.spare, bl)
	copy(s.blocks[bi:], s.blocks[bi+1:])
	s.blocks[len(s.blocks)-1] = nil
	s.blocks = s.blocks[:len(s.blocks)-1]
	copy(s.lasts[bi:], s.lasts[bi+1:])
	s.lasts = s.lasts[:len(s.lasts)-1]
	return h
}

// lowerBound returns the position of the first entry with size >= size.
func (s *freeSet) lowerBound(size int64) (bi, i int, ok bool) {
	bi = s.blockFor(size, math.MinInt64)
	if bi == len(s.blocks) {
		return 0, 0, false
	}
	return bi, searchBlock(s.blocks[bi], size, math.MinInt64), true
}

// scanFrom returns the handle of the first entry with size >= size that
// ok accepts, in set order, or bfcNone.
func (s *freeSet) scanFrom(size int64, ok func(fentry) bool) int32 {
	bi := s.blockFor(size, math.MinInt64)
	for ; bi < len(s.blocks); bi++ {
		bl := s.blocks[bi]
		for _, e := range bl[searchBlock(bl, size, math.MinInt64):] {
			if ok(e) {
				return e.h
			}
		}
	}
	return bfcNone
}

func (s *freeSet) last() fentry { return s.lasts[len(s.lasts)-1] }
