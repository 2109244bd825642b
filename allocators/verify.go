package allocators

import (
	"errors"
	"fmt"
)

// ErrIntegrity is wrapped by every error a Verifier reports: the allocator
// under it broke its contract (overlapping or undersized blocks, memory of
// a live allocation overwritten, a bad free accepted or a good one refused,
// InUse that disagrees with the live chunks).
var ErrIntegrity = errors.New("allocator integrity violation")

// Verifier wraps an Allocator and backs its simulated device with real
// memory, sparsely: each live allocation gets a distinct id (1, 2, ...)
// written into the first and the last 8 bytes of its chunk (half the chunk
// each for chunks under 16 bytes). Free checks
// both stamps before passing the free on, and Check checks every live one.
// A block that overlaps a live one is reported as soon as it is handed out,
// naming both allocations. The first violation is sticky: every later call
// returns it.
//
// Only the stamped words are stored, so the memory held is proportional to
// the live allocations, not to the device size. A Verifier is itself an
// Allocator, so a replay can run through it unchanged.
type Verifier struct {
	a     Allocator
	words map[int64]uint64    // 8-byte word index -> contents; absent is zero
	live  ordset              // key offset, value chunk bytes
	ids   map[int64]liveStamp // offset -> its allocation
	next  uint64
	inUse int64
	err   error
	n     VerifyCounts
}

// VerifyCounts is what a Verifier checked and found intact.
type VerifyCounts struct {
	// Allocs counts the blocks checked for size and overlap, Frees the
	// frees checked (of live blocks, and of others that had to be
	// refused), Stamps the guard stamps read back intact (two per check of
	// a block).
	Allocs, Frees, Stamps int64
}

// Counts returns what the Verifier has checked so far.
func (v *Verifier) Counts() VerifyCounts { return v.n }

type liveStamp struct {
	id          uint64
	size, chunk int64
}

// Verify returns a Verifier over a.
func Verify(a Allocator) *Verifier {
	return &Verifier{a: a, words: map[int64]uint64{}, ids: map[int64]liveStamp{}}
}

// Unwrap returns the allocator under the Verifier.
func (v *Verifier) Unwrap() Allocator { return v.a }

// Alignment implements Aligner with the wrapped allocator's alignment.
func (v *Verifier) Alignment() int64 { return AlignmentOf(v.a) }

// Stats returns the wrapped allocator's counters.
func (v *Verifier) Stats() Stats { return v.a.Stats() }

func (v *Verifier) fail(format string, args ...any) error {
	v.err = fmt.Errorf("verify: "+format+": %w", append(args, ErrIntegrity)...)
	return v.err
}

// Alloc allocates through the wrapped allocator, checks that the block is
// large enough and overlaps no live one, and stamps it. Errors of the
// wrapped allocator (ErrOOM) are passed on.
func (v *Verifier) Alloc(size int64) (Block, error) {
	if v.err != nil {
		return Block{}, v.err
	}
	b, err := v.a.Alloc(size)
	if err != nil {
		return b, err
	}
	id := v.next + 1
	end := b.Offset + b.Size
	switch {
	case b.Offset < 0:
		return b, v.fail("allocation #%d of %d bytes at negative offset %d", id, size, b.Offset)
	case b.Size < size:
		return b, v.fail("allocation #%d of %d bytes got a chunk of only %d bytes at %#x", id, size, b.Size, b.Offset)
	}
	if p := v.live.floor(b.Offset, 0); p != nil && p.key+p.val > b.Offset {
		return b, v.overlap(id, b, p)
	}
	if n := v.live.ceil(b.Offset, 0); n != nil && n.key < end {
		return b, v.overlap(id, b, n)
	}
	v.next = id
	v.live.insert(b.Offset, 0, b.Size)
	v.ids[b.Offset] = liveStamp{id: id, size: size, chunk: b.Size}
	v.inUse += b.Size
	v.stamp(b.Offset, b.Size, id)
	v.n.Allocs++
	return b, nil
}

func (v *Verifier) overlap(id uint64, b Block, other *onode) error {
	o := v.ids[other.key]
	return v.fail("allocation #%d at [%#x, %#x) overlaps live allocation #%d at [%#x, %#x)",
		id, b.Offset, b.Offset+b.Size, o.id, other.key, other.key+other.val)
}

// Free checks the stamps of the allocation at off and frees it through
// the wrapped allocator. A free of an offset that is not live is passed on,
// and must be refused.
func (v *Verifier) Free(off int64) error {
	if v.err != nil {
		return v.err
	}
	s, known := v.ids[off]
	if known {
		if err := v.checkStamps(off, s); err != nil {
			return err
		}
	}
	err := v.a.Free(off)
	switch {
	case known && err != nil:
		return v.fail("allocator refused the free of live allocation #%d at %#x: %v", s.id, off, err)
	case !known && err == nil:
		return v.fail("allocator accepted a free of %#x, which is not a live allocation", off)
	case !known:
		v.n.Frees++
		return err
	}
	v.n.Frees++
	v.stamp(off, s.chunk, 0)
	v.live.remove(off, 0)
	delete(v.ids, off)
	v.inUse -= s.chunk
	return nil
}

// Check returns the first violation seen, or checks the stamps of every
// live allocation and that the wrapped allocator's InUse equals the sum of
// the live chunks.
func (v *Verifier) Check() error {
	if v.err != nil {
		return v.err
	}
	var err error
	v.live.each(func(n *onode) bool {
		err = v.checkStamps(n.key, v.ids[n.key])
		return err == nil
	})
	if err != nil {
		return err
	}
	if st := v.a.Stats(); st.InUse != v.inUse {
		return v.fail("stats report %d bytes in use, the %d live chunks hold %d", st.InUse, len(v.ids), v.inUse)
	}
	return nil
}

// stampBytes is how many bytes of the id are written at each end: 8, or
// half the chunk when it is smaller than 16 bytes, so that the two stamps
// never overlap (a 1-byte chunk has the same byte stamped twice).
func stampBytes(chunk int64) int { return int(min(8, max(1, chunk/2))) }

// stamp writes id into the first and last bytes of the chunk (0 erases).
func (v *Verifier) stamp(off, chunk int64, id uint64) {
	n := stampBytes(chunk)
	v.store(off, id, n)
	v.store(off+chunk-int64(n), id, n)
}

func (v *Verifier) checkStamps(off int64, s liveStamp) error {
	n := stampBytes(s.chunk)
	want := s.id & (1<<(8*n) - 1) // a shift by 64 gives 0, so n = 8 keeps all
	for _, at := range []int64{off, off + s.chunk - int64(n)} {
		if got := v.load(at, n); got != want {
			return v.fail("allocation #%d at [%#x, %#x): the bytes at %#x hold %#x, not its id (overwritten; by allocation #%d?)",
				s.id, off, off+s.chunk, at, got, got)
		}
	}
	v.n.Stamps += 2
	return nil
}

// store writes the n low bytes of x at addr, little-endian.
func (v *Verifier) store(addr int64, x uint64, n int) {
	if n == 8 && addr&7 == 0 {
		v.setWord(addr>>3, x)
		return
	}
	for i := range n {
		a := addr + int64(i)
		sh := uint(a&7) * 8
		w := v.words[a>>3]&^(0xff<<sh) | (x>>(8*uint(i))&0xff)<<sh
		v.setWord(a>>3, w)
	}
}

func (v *Verifier) setWord(i int64, w uint64) {
	if w == 0 {
		delete(v.words, i)
	} else {
		v.words[i] = w
	}
}

// load reads n bytes at addr, little-endian.
func (v *Verifier) load(addr int64, n int) uint64 {
	if n == 8 && addr&7 == 0 {
		return v.words[addr>>3]
	}
	var x uint64
	for i := range n {
		a := addr + int64(i)
		x |= (v.words[a>>3] >> (uint(a&7) * 8) & 0xff) << (8 * uint(i))
	}
	return x
}
