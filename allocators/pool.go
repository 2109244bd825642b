package allocators

import (
	"fmt"
	"math/bits"
)

// pool is a simple caching pool. A request is rounded up to its size
// class, the next power of two and at least poolMinClass (256) bytes, so
// internal fragmentation is below 50%. Each class keeps a LIFO free list of
// its chunks; a miss carves a new chunk from a bump pointer over the
// simulated device. Memory is never given back nor moved between classes,
// so Reserved only grows and an OOM happens when the bump pointer would
// pass memory_limit even if other classes hold free chunks.
type pool struct {
	next  int64
	limit int64
	free  [64][]int64     // per class (log2 of the chunk size): free offsets
	carve [64]int64       // per class: bytes carved for it
	live  map[int64]int64 // offset -> chunk bytes
	stats statTracker
}

// poolMinClass is the smallest size class and the pool's alignment.
const poolMinClass = 256

func init() {
	registerLimited("pool", "simple caching pool: sizes rounded up to a power of two (at least 256 bytes), "+
		"one LIFO free list per size class, misses carved from a bump pointer; memory is never given back",
		func(limit int64) Allocator { return &pool{limit: limit, live: map[int64]int64{}} })
}

// poolClass returns the class (log2 of the chunk size) serving size.
func poolClass(size int64) int {
	return bits.Len64(uint64(max(size, poolMinClass) - 1))
}

func (p *pool) Alloc(size int64) (Block, error) {
	if size <= 0 {
		return Block{}, badSize("pool", size)
	}
	if size > maxRequest {
		return Block{}, p.stats.oom("pool", size)
	}
	c := poolClass(size)
	n := int64(1) << c
	var off int64
	if fl := p.free[c]; len(fl) > 0 {
		off = fl[len(fl)-1]
		p.free[c] = fl[:len(fl)-1]
	} else {
		if p.limit > 0 && p.next+n > p.limit {
			return Block{}, p.stats.oom("pool", size)
		}
		off = p.next
		p.next += n
		p.carve[c] += n
		p.stats.reserve(n)
	}
	return p.stats.handOut(p.live, off, n), nil
}

func (p *pool) Free(off int64) error {
	n, err := p.stats.takeBack(p.live, "pool", off)
	if err != nil {
		return err
	}
	c := bits.TrailingZeros64(uint64(n))
	p.free[c] = append(p.free[c], off)
	return nil
}

func (p *pool) Stats() Stats {
	s := p.stats.st
	for c := len(p.free) - 1; c >= 0; c-- {
		if len(p.free[c]) > 0 {
			s.LargestFreeChunk = int64(1) << c
			break
		}
	}
	return s
}

// Pools implements PoolReporter: the size classes that hold memory.
func (p *pool) Pools() []PoolBytes {
	var ps []PoolBytes
	for c, n := range p.carve {
		if n > 0 {
			ps = append(ps, PoolBytes{Name: fmt.Sprintf("class %d", int64(1)<<c), Reserved: n, Allocated: n - int64(len(p.free[c]))<<c})
		}
	}
	return ps
}

// Alignment implements Aligner.
func (p *pool) Alignment() int64 { return poolMinClass }
