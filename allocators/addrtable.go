package allocators

import "math/bits"

// The address table: start address -> handle of every chunk, block or
// piece of bfc, torch-caching and oneflow-bin, for the frees that name them
// by offset.

// addrTable maps the start address of every chunk to its handle: open
// addressing with linear probing and backward-shift deletion, so Free
// finds its chunk without a per-256-byte index over the whole region, and
// several times faster than a Go map on the free path. Free chunks stay
// in it, so it changes only on splits and merges, not on every Alloc and
// Free. BFC's empty chunks (a split with maxFrag 0 of an exact fit) share
// their successor's address and are left out.
// A slot holds only the handle and the low 32 bits of addr>>grain (8
// bytes, so the table stays cache resident); a tag match is confirmed on
// the chunk itself, which Free reads next anyway. Every address in the
// table is a multiple of 1<<grain (the allocator's alignment: 256 bytes
// for bfc and torch-caching, oneflow-bin's own); the zero value takes any
// address.
type addrTable struct {
	slots []addrSlot
	n     int
	shift uint8
	grain uint8 // log2 of the unit every address is a multiple of
}

type addrSlot struct {
	tag uint32
	h   int32 // bfcNone marks an empty slot
}

func (t *addrTable) clear() {
	for i := range t.slots {
		t.slots[i].h = bfcNone
	}
	t.n = 0
}

func (t *addrTable) home(tag uint32) int {
	return int((tag * 0x9E3779B1) >> (t.shift & 31)) // the mask spares a shift-range check
}

func (t *addrTable) grow() {
	old := t.slots
	size := max(64, 2*len(old))
	t.slots = make([]addrSlot, size)
	t.shift = uint8(32 - bits.TrailingZeros(uint(size)))
	for i := range t.slots {
		t.slots[i].h = bfcNone
	}
	mask := size - 1
	for _, sl := range old {
		if sl.h != bfcNone {
			i := t.home(sl.tag)
			for t.slots[i].h != bfcNone {
				i = (i + 1) & mask
			}
			t.slots[i] = sl
		}
	}
}

// put adds the chunk h starting at addr, which must not be in the table.
func (t *addrTable) put(addr int64, h int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	tag := uint32(addr >> (t.grain & 63))
	mask := len(t.slots) - 1
	i := t.home(tag)
	for t.slots[i].h != bfcNone {
		i = (i + 1) & mask
	}
	t.slots[i] = addrSlot{tag, h}
	t.n++
}

// find returns the slot of the chunk starting at addr, or -1.
func (t *addrTable) find(addr int64, chunks []bfcChunk) int {
	if len(t.slots) == 0 || addr < 0 || addr&(1<<(t.grain&63)-1) != 0 {
		return -1
	}
	tag := uint32(addr >> (t.grain & 63))
	mask := len(t.slots) - 1
	for i := t.home(tag); ; i = (i + 1) & mask {
		sl := t.slots[i]
		if sl.h == bfcNone {
			return -1
		}
		if sl.tag == tag && chunks[sl.h].addr == addr {
			return i
		}
	}
}

// get returns the handle of the chunk starting at addr.
func (t *addrTable) get(addr int64, chunks []bfcChunk) (int32, bool) {
	i := t.find(addr, chunks)
	if i < 0 {
		return 0, false
	}
	return t.slots[i].h, true
}

// del removes the chunk starting at addr, which must be in the table.
func (t *addrTable) del(addr int64, chunks []bfcChunk) {
	i := t.find(addr, chunks)
	mask := len(t.slots) - 1
	// Shift later entries of the probe run back into the hole.
	for j := (i + 1) & mask; t.slots[j].h != bfcNone; j = (j + 1) & mask {
		if k := t.home(t.slots[j].tag); (j-k)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i].h = bfcNone
	t.n--
}
