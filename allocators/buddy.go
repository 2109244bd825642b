package allocators

import (
	"math/bits"
)

// buddy is a binary buddy system. Blocks are buddyMin (256) bytes times a
// power of two; a request takes the smallest such block that holds it, at
// the lowest free address of the smallest order that has one, split in
// halves down to the size needed. A freed block merges with its buddy (the
// other half of the block it was split from) while that buddy is free.
//
// The arena starts empty and doubles when no free block fits: the old arena
// becomes the left half of the new one (so Reserved is always 256 bytes
// times a power of two), and it may not exceed memory_limit. The arena
// never shrinks.
type buddy struct {
	arena int64 // reserved bytes: 0 or buddyMin << k
	limit int64
	free  [64]ordset      // per order: offsets of free blocks (key only)
	live  map[int64]uint8 // offset -> order
	stats statTracker
}

// buddyMin is the smallest block and the buddy system's alignment.
const buddyMin = 256

func init() {
	registerLimited("buddy", "baseline: binary buddy system with blocks of 256 bytes times a power of two, "+
		"lowest address first; the arena doubles up to memory_limit",
		func(limit int64) Allocator { return &buddy{limit: limit, live: map[int64]uint8{}} })
}

// buddyOrder returns the order k of the block of buddyMin << k bytes that
// serves size.
func buddyOrder(size int64) int {
	return bits.Len64(uint64((max(size, buddyMin) - 1) / buddyMin))
}

// growTo returns the arena size needed to serve a block of bsize bytes when
// no free block fits: the arena doubles until the new right half holds the
// block, or until the whole arena does where it is entirely free.
func (b *buddy) growTo(bsize int64) int64 {
	if b.arena == 0 {
		return bsize
	}
	whole := b.free[buddyOrder(b.arena)].has(0, 0)
	s := b.arena
	for {
		s *= 2
		if s/2 >= bsize || (whole && s >= bsize) {
			return s
		}
	}
}

func (b *buddy) Alloc(size int64) (Block, error) {
	if size <= 0 {
		return Block{}, badSize("buddy", size)
	}
	if size > maxRequest {
		return Block{}, b.stats.oom("buddy", size)
	}
	k := buddyOrder(size)
	bsize := int64(buddyMin) << k
	j := k
	for j < len(b.free) && b.free[j].len == 0 {
		j++
	}
	if j == len(b.free) {
		target := b.growTo(bsize)
		if b.limit > 0 && target > b.limit {
			return Block{}, b.stats.oom("buddy", size)
		}
		b.grow(target)
		for j = k; b.free[j].len == 0; j++ {
		}
	}
	off := b.free[j].first().key
	b.free[j].remove(off, 0)
	for j > k {
		j--
		b.free[j].insert(off+int64(buddyMin)<<j, 0, 0)
	}
	b.live[off] = uint8(k)
	b.stats.allocated(bsize)
	return Block{Offset: off, Size: bsize}, nil
}

// grow doubles the arena up to target, each new right half becoming free.
func (b *buddy) grow(target int64) {
	if b.arena == 0 {
		b.arena = target
		b.stats.reserve(target)
		b.free[buddyOrder(target)].insert(0, 0, 0)
		return
	}
	for b.arena < target {
		half := b.arena
		b.arena *= 2
		b.stats.reserve(half)
		b.release(half, buddyOrder(half))
	}
}

// release frees the block at off of order k, merging it with free buddies.
func (b *buddy) release(off int64, k int) {
	for {
		size := int64(buddyMin) << k
		if size >= b.arena {
			break
		}
		bud := off ^ size
		if !b.free[k].remove(bud, 0) {
			break
		}
		off = min(off, bud)
		k++
	}
	b.free[k].insert(off, 0, 0)
}

func (b *buddy) Free(off int64) error {
	k, ok := b.live[off]
	if !ok {
		return badFree("buddy", off)
	}
	delete(b.live, off)
	b.release(off, int(k))
	b.stats.freed(int64(buddyMin) << k)
	return nil
}

func (b *buddy) Stats() Stats {
	s := b.stats.st
	for k := len(b.free) - 1; k >= 0; k-- {
		if b.free[k].len > 0 {
			s.LargestFreeChunk = int64(buddyMin) << k
			break
		}
	}
	return s
}

// Alignment implements Aligner.
func (b *buddy) Alignment() int64 { return buddyMin }
