package allocators

// bump is the no-reuse baseline: each request takes the next bytes after
// the previous one (sizes rounded up to 256), and Free only marks the chunk
// dead. Its footprint is the sum of all chunks ever handed out, the worst
// any allocator can do; LargestFreeChunk is always 0 because freed bytes
// are never handed out again.
type bump struct {
	next  int64
	limit int64
	live  map[int64]int64 // offset -> chunk bytes
	stats statTracker
}

// bumpAlign is bump's rounding and alignment.
const bumpAlign = 256

func init() {
	registerLimited("bump", "baseline: a bump pointer that never reuses memory (Free only marks); sizes rounded up to 256 bytes",
		func(limit int64) Allocator { return &bump{limit: limit, live: map[int64]int64{}} })
}

func (b *bump) Alloc(size int64) (Block, error) {
	if size <= 0 {
		return Block{}, badSize("bump", size)
	}
	if size > maxRequest {
		return Block{}, b.stats.oom("bump", size)
	}
	n := roundPow2(size, bumpAlign)
	if b.limit > 0 && b.next+n > b.limit {
		return Block{}, b.stats.oom("bump", size)
	}
	off := b.next
	b.next += n
	b.stats.reserve(n)
	return b.stats.handOut(b.live, off, n), nil
}

func (b *bump) Free(off int64) error {
	_, err := b.stats.takeBack(b.live, "bump", off)
	return err
}

func (b *bump) Stats() Stats { return b.stats.st }

// Alignment implements Aligner.
func (b *bump) Alignment() int64 { return bumpAlign }
