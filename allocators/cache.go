package allocators

import (
	"fmt"

	"membench/workloads"
)

// emptyCache empties a's cache where it can.
func emptyCache(a Allocator) {
	if e, ok := a.(CacheEmptier); ok {
		e.EmptyCache()
	}
}

// EmptyCache passes the call on to the wrapped allocator, if it takes it.
func (v *Verifier) EmptyCache() { emptyCache(v.a) }

// EmptyCache implements CacheEmptier as torch.cuda.empty_cache() does
// (DeviceCachingAllocator::emptyCache, release_cached_blocks): every
// cached whole segment of every pool goes back to the device and the
// wholly free pages of expandable segments are unmapped, as on the last
// retry of an out-of-memory request (releaseAll). Upstream first waits
// for the events of frees that other streams hold; a simulation cannot
// make streams finish early, so those frees keep waiting for their
// streams' sync points and their segments stay.
func (a *torchCaching) EmptyCache() { a.releaseAll() }

// EmptyCache implements CacheEmptier as OneFlow's empty_cache does
// (VirtualMachine::ShrinkAllMem): every stream's allocator gives its
// wholly free blocks back (shrink).
func (a *oneflowBin) EmptyCache() { a.shrink() }

// seededBlock is a block seedCache allocated, with its handle
// (blockHandles).
type seededBlock struct {
	Block
	h int32
}

// seedCache passes the cache on to the wrapped allocator, if it takes
// one, and checks and stamps its blocks as allocations.
func (v *Verifier) seedCache(cache []workloads.CacheSegment) ([]seededBlock, bool, error) {
	s, ok := v.a.(cacheSeeder)
	if !ok {
		return nil, false, nil
	}
	bs, ok, err := s.seedCache(cache)
	if !ok || err != nil {
		return nil, ok, err
	}
	k := 0
	for _, seg := range cache {
		for range seg.Blocks {
			if _, err := v.admit(bs[k].Block, bs[k].Size, seg.Stream); err != nil {
				return nil, false, err
			}
			k++
		}
	}
	return bs, true, nil
}

// seedCache implements cacheSeeder: each segment is obtained from the
// device for its stream's small or large pool, its allocated blocks are
// handed out and the space between them cached, as one free block per
// gap. With expandable segments, whose pages a recording of cudaMalloc
// segments does not describe, it declines.
func (a *torchCaching) seedCache(cache []workloads.CacheSegment) ([]seededBlock, bool, error) {
	if a.conf.expandable {
		return nil, false, nil
	}
	var out []seededBlock
	for i, s := range cache {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("torch-caching: recorded cache, segment %d: "+format, append([]any{i}, args...)...)
		}
		switch {
		case s.Size <= 0 || s.Size > maxRequest || s.Size%tcMinBlockSize != 0:
			return nil, false, fail("%d bytes: want a positive multiple of %d, at most %d", s.Size, tcMinBlockSize, int64(maxRequest))
		case s.Stream < 0 || s.Stream >= tcMaxStreams:
			return nil, false, fail("stream %d: want 0 to %d", s.Stream, tcMaxStreams-1)
		case a.limit > 0 && a.stats.st.Reserved+s.Size > a.limit:
			return nil, false, fail("%d bytes past memory_limit %d: %w", a.stats.st.Reserved+s.Size, a.limit, ErrOOM)
		}
		sp := a.streamPools(int(s.Stream))
		p := &sp.large
		if s.Small {
			p = &sp.small
		}
		base := a.device.alloc(s.Size)
		a.reserve(p.kind, s.Size)
		prev := int32(bfcNone)
		add := func(off, size int64) int32 {
			h := a.newBlock(base+off, size, prev, bfcNone, p, nil)
			if prev != bfcNone {
				a.blocks[prev].next = h
			}
			a.index(h)
			prev = h
			return h
		}
		var pos int64
		for j, b := range s.Blocks {
			if b.Offset < pos || b.Size <= 0 || b.Size > s.Size || b.Offset > s.Size-b.Size || b.Offset%tcMinBlockSize != 0 || b.Size%tcMinBlockSize != 0 {
				return nil, false, fail("block %d of %d bytes at %d: want blocks of multiples of %d bytes, in order, inside the segment", j, b.Size, b.Offset, tcMinBlockSize)
			}
			if b.Offset > pos {
				a.insert(p, add(pos, b.Offset-pos))
			}
			h := add(b.Offset, b.Size)
			a.blocks[h].inUse = true
			a.stats.allocated(b.Size)
			a.used[p.kind] += b.Size
			out = append(out, seededBlock{Block{Offset: base + b.Offset, Size: b.Size}, h})
			pos = b.Offset + b.Size
		}
		if pos < s.Size {
			a.insert(p, add(pos, s.Size-pos))
		}
	}
	return out, true, nil
}

func (a *torchCaching) logSegments(f func(free bool, size int64)) { a.onSegment = f }

// logSegments passes f on to the wrapped allocator, if it logs segments.
func (v *Verifier) logSegments(f func(free bool, size int64)) {
	if l, ok := v.a.(segmentLogger); ok {
		l.logSegments(f)
	}
}
