package allocators

// torch-caching's expandable segments (expandable_segments:True), upstream's
// ExpandableSegment and the DeviceCachingAllocator paths that map and unmap
// its pages.

// tcExpSeg is an expandable segment: its address range and page size.
type tcExpSeg struct{ base, size, page int64 }

func (a *torchCaching) expandableSize(h int32) int64 {
	b := &a.blocks[h]
	if b.next != bfcNone && a.aux[b.next].unmapped {
		return b.size + a.blocks[b.next].size
	}
	return b.size
}

// expandBlock finds the lowest place in p's expandable segments where free
// and unmapped blocks together hold size bytes (making a segment if none
// has room), maps what it needs and returns the block, taken out of the
// cache; bfcNone when the pages do not fit under memory_limit.
func (a *torchCaching) expandBlock(p *tcPool, size int64) int32 {
	c := a.findExpandable(p, size)
	if a.aux[c].unmapped {
		if c = a.mapBlock(c, min(a.blocks[c].size, size)); c == bfcNone {
			return bfcNone
		}
	}
	for a.blocks[c].size < size {
		next := a.blocks[c].next
		if c = a.mapBlock(next, min(size-a.blocks[c].size, a.blocks[next].size)); c == bfcNone {
			return bfcNone
		}
	}
	a.remove(p, c)
	return c
}

func (a *torchCaching) findExpandable(p *tcPool, size int64) int32 {
	room := func(h int32) bool {
		var n int64
		for ; n < size && h != bfcNone && a.free(h); h = a.blocks[h].next {
			n += a.blocks[h].size
		}
		return n >= size
	}
	for n := p.unmapped.first(); n != nil; n = p.unmapped.ceil(n.key+1, 0) {
		c := a.at(n.key)
		if prev := a.blocks[c].prev; prev != bfcNone && a.free(prev) {
			c = prev
		}
		if room(c) {
			return c
		}
	}
	page := int64(tcSmallBuffer)
	if p.kind == tcLarge {
		page = tcLargeBuffer
	}
	space := int64(tcAddressSpace)
	if a.limit > 0 {
		space = a.limit + a.limit/8
	}
	space = roundPow2(space, tcSmallBuffer)
	space = (space + page - 1) / page * page
	s := &tcExpSeg{base: a.device.alloc(space), size: space, page: page}
	c := a.newBlock(s.base, space, bfcNone, bfcNone, p, s)
	a.index(c)
	a.listUnmapped(p, c)
	return c
}

// listUnmapped marks block h of p unmapped and lists it in p's unmapped
// ranges.
func (a *torchCaching) listUnmapped(p *tcPool, h int32) {
	a.aux[h].unmapped = true
	a.blocks[h].bin = tcUnmapped
	p.unmapped.insert(a.blocks[h].addr, 0, 0)
}

// mapBlock maps the pages covering the first size bytes of the unmapped
// block h, which then merges with free neighbours and is cached; it
// returns the cached block that holds them (bfcNone when the pages would
// pass memory_limit).
func (a *torchCaching) mapBlock(h int32, size int64) int32 {
	s := a.aux[h].seg
	pages := (size + s.page - 1) / s.page * s.page
	if a.limit > 0 && a.stats.st.Reserved+pages > a.limit {
		return bfcNone
	}
	p := a.aux[h].pool
	a.unlist(p, h)
	a.aux[h].unmapped = false
	if pages < a.blocks[h].size {
		a.listUnmapped(p, a.splitAt(h, pages, p, s))
	}
	h = a.coalesce(p, h)
	a.insert(p, h)
	a.reserve(p.kind, pages)
	return h
}

// unmapFree unmaps the wholly free pages of the cached expandable block h,
// and gives the segment's address space back when nothing of it is left
// mapped.
func (a *torchCaching) unmapFree(h int32) {
	s, p := a.aux[h].seg, a.aux[h].pool
	off, size := a.blocks[h].addr, a.blocks[h].size
	lo := s.base + (off-s.base+s.page-1)/s.page*s.page
	hi := s.base + (off+size-s.base)/s.page*s.page
	if lo >= hi {
		return
	}
	a.remove(p, h)
	a.unindex(h) // before may take this offset
	if lo > off {
		prev := a.blocks[h].prev
		before := a.newBlock(off, lo-off, prev, h, p, s)
		if prev != bfcNone {
			a.blocks[prev].next = before
		}
		a.blocks[h].prev = before
		a.index(before)
		a.insert(p, before)
	}
	if hi < off+size {
		a.insert(p, a.splitAt(h, hi-off, p, s))
	}
	a.blocks[h].addr, a.blocks[h].size = lo, hi-lo
	a.aux[h].unmapped = true
	a.index(h)
	a.unreserve(p.kind, hi-lo)
	h = a.coalesce(p, h)
	if !a.isSplit(h) {
		a.unindex(h)
		a.device.free.put(s.base, s.size)
		a.dropBlock(h)
		return
	}
	a.listUnmapped(p, h)
}
