package allocators

import (
	"cmp"
	"math"
	"slices"
)

// torch-caching giving cached memory back to the device: upstream's
// release_cached_blocks, release_available_cached_blocks and
// garbage_collect_cached_blocks.

// eachCached calls f on every cached block of p in (size, offset) order.
func (a *torchCaching) eachCached(p *tcPool, f func(h int32)) {
	var cached []int32
	for h := range a.blocks {
		if a.blocks[h].bin == tcCached && a.aux[h].pool == p {
			cached = append(cached, int32(h))
		}
	}
	slices.SortFunc(cached, func(x, y int32) int {
		return cmp.Or(cmp.Compare(a.blocks[x].size, a.blocks[y].size), cmp.Compare(a.blocks[x].addr, a.blocks[y].addr))
	})
	for _, h := range cached {
		f(h)
	}
}

// releaseSegment gives a cached whole cudaMalloc segment back to the device.
func (a *torchCaching) releaseSegment(h int32) {
	p := a.aux[h].pool
	a.remove(p, h)
	a.unindex(h)
	a.device.free.put(a.blocks[h].addr, a.blocks[h].size)
	a.unreserve(p.kind, a.blocks[h].size)
	a.dropBlock(h)
}

// releaseOversize gives back p's cached segments of max_split_size or
// more: the smallest one that covers the request, or else the largest ones
// until as many bytes as the request (at least max_split_size) are back.
// It reports whether it freed enough. Oversize cached blocks are whole
// segments, since oversize blocks are never split.
func (a *torchCaching) releaseOversize(p *tcPool, size int64) bool {
	if a.conf.maxSplit == math.MaxInt64 {
		return false
	}
	want := max(size, a.conf.maxSplit)
	if bi, i, ok := p.free.lowerBound(want); ok {
		h := a.cachedAt(p, bi, i)
		if a.isSplit(h) {
			return false
		}
		a.releaseSegment(h)
		return true
	}
	var released int64
	for p.free.n > 0 && released < want && p.free.last().size >= a.conf.maxSplit {
		h := p.free.last().h
		if a.isSplit(h) {
			break
		}
		released += a.blocks[h].size
		a.releaseSegment(h)
	}
	return released >= want
}

// releaseAll gives back every cached whole segment of every pool, large
// then small, stream by stream, and unmaps the free pages of expandable
// segments.
func (a *torchCaching) releaseAll() {
	for kind := tcLarge; kind >= tcSmall; kind-- {
		for _, sp := range a.pools {
			if sp == nil {
				continue
			}
			p := &sp.small
			if kind == tcLarge {
				p = &sp.large
			}
			var whole, exp []int32
			a.eachCached(p, func(h int32) {
				if a.aux[h].seg != nil {
					exp = append(exp, h)
				} else if !a.isSplit(h) {
					whole = append(whole, h)
				}
			})
			for _, h := range whole {
				a.releaseSegment(h)
			}
			for _, h := range exp {
				a.unmapFree(h)
			}
		}
	}
}

// collectGarbage gives back old cached whole segments of the large pools
// while the reserved bytes exceed the threshold.
func (a *torchCaching) collectGarbage() {
	threshold := int64(a.conf.gcThreshold * float64(a.limit))
	if a.stats.st.Reserved <= threshold {
		return
	}
	target := a.stats.st.Reserved - threshold
	var candidates []int32
	var totalAge float64
	clock := a.lookups[tcLarge]
	for _, sp := range a.pools {
		if sp == nil {
			continue
		}
		a.eachCached(&sp.large, func(h int32) {
			if !a.isSplit(h) && a.aux[h].seg == nil {
				candidates = append(candidates, h)
				totalAge += float64(clock - a.since[h])
			}
		})
	}
	count := len(candidates)
	var reclaimed int64
	for freed := true; reclaimed < target && freed && count > 0; {
		ageThreshold := totalAge / float64(count)
		freed = false
		kept := candidates[:0]
		for _, h := range candidates {
			age := float64(clock - a.since[h])
			if age < ageThreshold {
				kept = append(kept, h)
				continue
			}
			freed = true
			reclaimed += a.blocks[h].size
			totalAge -= age
			count--
			a.releaseSegment(h)
		}
		candidates = kept
	}
}
