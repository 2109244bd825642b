package workloads

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/nlpodyssey/gopickle/types"
)

// PyTorch's sizes that tell a block's pool (CUDACachingAllocator.cpp).
const (
	pyMinBlockSize = 512     // kMinBlockSize: every block a multiple of it
	pySmallSize    = 1 << 20 // kSmallSize: a large-pool block's rest is split only above it
	pySmallBuffer  = 2 << 20 // kSmallBuffer: the small pool's segments
)

// pyCache is what a snapshot says of the allocator's segments: its
// segment_* entries, the segments at the snapshot, and from them the
// cache the trace started from (Trace.Cache) and the Recording.
//
// The cache the trace started from is rebuilt as follows, where the
// recording has a trace, no expandable segments and no PyTorch 1.13
// block histories:
//
//   - Segments: those at the snapshot, less every segment_alloc of the
//     trace and plus every segment_free, undone from the last entry back
//     (a segment freed in the trace existed before it unless the trace
//     allocated it). A segment is in the small pool when its
//     segment_type says so, or, for one known only from a segment_free,
//     when it is 2 MiB (kSmallBuffer; large segments never are); its
//     stream is the one recorded with it.
//   - Allocated blocks: those the reader allocates at the trace's start.
//     A block still allocated at the snapshot that the trace never
//     allocated keeps its recorded address and size. A block the trace
//     frees without allocating has its recorded address; its size is not
//     recorded: it is the request rounded up to 512 bytes, or, in the
//     large pool, up to the next allocated block (or the segment's end)
//     where less than 1 MiB more would be left, since PyTorch splits a
//     large block only when more than 1 MiB is left. Everything else in
//     the segments is free (free neighbours are always merged).
//
// A block that lies in no rebuilt segment, or overlaps another, leaves
// the cache empty, with a warning.
type pyCache struct {
	entries    int     // trace entries read
	release    int     // segment_free/segment_unmap entries in the run being read
	segs       []pySeg // the segment_* entries
	expandable bool    // segment_map/segment_unmap entries, or expandable segments
	history113 bool    // blocks with PyTorch 1.13 histories
	emptyCache int     // EmptyCache events made
	// preAddr and preSize are, for each event of pre, its block's address
	// (-1: none) and size where recorded (0: not).
	preAddr, preSize []int64
	final            []pySeg // the segments at the snapshot (event, entry unused)
	finalBytes       int64
	cache            []CacheSegment
	cacheWarning     string
	pos              []int // index in the trace of each event of events, and of the end
}

// pySeg is a segment_* entry, or a segment: its address, size and stream
// handle; event is the index in events of the next event, entry the
// entry's index.
type pySeg struct {
	free, small bool
	addr, size  int64
	stream      int64
	event       int
	entry       int
}

// addPre adds e, allocated at the trace's start, at addr with a block of
// size bytes where known (else 0).
func (c *pyConv) addPre(e Event, addr, size int64) {
	for len(c.preAddr) < len(c.pre) {
		c.preAddr, c.preSize = append(c.preAddr, -1), append(c.preSize, 0)
	}
	c.pre = append(c.pre, e)
	c.preAddr, c.preSize = append(c.preAddr, addr), append(c.preSize, size)
}

// endRelease ends a run of segment_free (segment_unmap) entries. PyTorch
// records one for each segment it gives back, at an empty_cache() call
// and when a cudaMalloc fails, before it retries; the oom entry of a
// request still refused comes after them. So a run that an oom follows
// is that request's own release: no event (the request is not replayed,
// Trace.OOMs). Any other run is an EmptyCache event: an empty_cache(), or
// the release before a retry that succeeded, which the entries do not
// tell apart and which gives back the same segments (release_cached_blocks;
// with max_split_size or garbage_collection_threshold set, PyTorch may
// first give back fewer, the oversize or the oldest ones).
func (c *pyConv) endRelease(oom bool) {
	if !oom {
		c.events = append(c.events, Event{Kind: EmptyCache})
		c.emptyCache++
	}
	c.release = 0
}

// finalSegment records a segment of the snapshot.
func (c *pyConv) finalSegment(seg *types.Dict, addr int64, blocks *types.List, where string) error {
	var size int64
	if _, ok := dictGet(seg, "total_size"); ok {
		n, err := c.intKey(seg, "total_size", where)
		if err != nil {
			return err
		}
		size = n
	} else {
		for _, bv := range *blocks {
			if b, ok := bv.(*types.Dict); ok {
				n, _ := dictGet(b, "size")
				v, _ := pyInt(n)
				size += v
			}
		}
	}
	small := size == pySmallBuffer
	if t, ok := dictGet(seg, "segment_type"); ok {
		small = t == "small"
	}
	if e, ok := dictGet(seg, "is_expandable"); ok && e == true {
		c.expandable = true
	}
	h, _ := dictGet(seg, "stream")
	handle, _ := pyInt(h)
	c.final = append(c.final, pySeg{addr: addr, size: size, small: small, stream: handle})
	c.finalBytes += size
	return nil
}

// rebuildCache sets cache to the cache the trace started from (pyCache).
func (c *pyConv) rebuildCache() {
	if c.expandable || c.history113 {
		return
	}
	at := map[int64]pySeg{}
	for _, s := range c.final {
		at[s.addr] = s
	}
	for i := len(c.segs) - 1; i >= 0; i-- {
		e := c.segs[i]
		if e.free {
			e.small = e.size == pySmallBuffer
			at[e.addr] = e
		} else {
			delete(at, e.addr)
		}
	}
	if len(at) == 0 && len(c.pre) == 0 {
		return // an empty cache
	}
	segs := make([]pySeg, 0, len(at))
	for _, s := range at {
		segs = append(segs, s)
	}
	slices.SortFunc(segs, func(a, b pySeg) int { return cmp.Compare(a.addr, b.addr) })
	type pyBlock struct {
		addr, size, req int64
		id              int
	}
	blocks := make([][]pyBlock, len(segs))
	for j, e := range c.pre {
		addr := int64(-1)
		if j < len(c.preAddr) {
			addr = c.preAddr[j]
		}
		i := sort.Search(len(segs), func(i int) bool { return segs[i].addr+segs[i].size > addr })
		if addr < 0 || i == len(segs) || segs[i].addr > addr {
			c.cacheWarning = fmt.Sprintf("the cache the recording started from is not rebuilt (the block at 0x%x allocated before it lies in no segment): the replay starts from an empty cache", max(addr, 0))
			return
		}
		blocks[i] = append(blocks[i], pyBlock{addr: addr, size: c.preSize[j], req: e.Size, id: e.ID})
	}
	c.cache = make([]CacheSegment, len(segs))
	for i, s := range segs {
		bs := blocks[i]
		slices.SortFunc(bs, func(a, b pyBlock) int { return cmp.Compare(a.addr, b.addr) })
		cs := CacheSegment{Size: s.size, Stream: c.number(s.stream), Small: s.small, Blocks: make([]CacheBlock, len(bs))}
		for k, b := range bs {
			bound := s.addr + s.size
			if k+1 < len(bs) {
				bound = bs[k+1].addr
			}
			if b.size == 0 {
				b.size = max(pyMinBlockSize, (b.req+pyMinBlockSize-1)/pyMinBlockSize*pyMinBlockSize)
				if !s.small && bound-b.addr-b.size <= pySmallSize {
					b.size = bound - b.addr
				}
			}
			if b.addr+b.size > bound {
				c.cache = nil
				c.cacheWarning = fmt.Sprintf("the cache the recording started from is not rebuilt (the block at 0x%x allocated before it overlaps the next one, or its segment's end): the replay starts from an empty cache", b.addr)
				return
			}
			cs.Blocks[k] = CacheBlock{Offset: b.addr - s.addr, Size: b.size, ID: b.id}
		}
		c.cache[i] = cs
	}
}

// recording returns what the snapshot says of the allocator's segments,
// with positions in the trace (pos, which trace sets); nil where it has
// neither segments nor segment entries.
func (c *pyConv) recording() *Recording {
	if len(c.final) == 0 && len(c.segs) == 0 {
		return nil
	}
	r := &Recording{Reserved: c.finalBytes, EmptyCaches: c.emptyCache}
	for _, e := range c.segs {
		if e.free {
			r.Reserved += e.size
		} else {
			r.Reserved -= e.size
		}
	}
	cur := r.Reserved
	r.PeakReserved = cur
	r.Segments = make([]SegmentEvent, len(c.segs))
	for i, e := range c.segs {
		if e.free {
			cur -= e.size
		} else {
			cur += e.size
			r.PeakReserved = max(r.PeakReserved, cur)
		}
		r.Segments[i] = SegmentEvent{Free: e.free, Size: e.size, Event: c.pos[e.event], Entry: e.entry}
	}
	return r
}
