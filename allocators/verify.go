package allocators

import (
	"errors"
	"fmt"
	"slices"
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
//
// It is also a DeferredFreer, whatever the allocator under it, and checks
// stream safety (streams.go): it keeps every block whose free was
// requested, with the streams that used it and have not synced since,
// and reports an allocation on a stream that overlaps such a block while
// a stream other than its own is still pending. It passes AllocOn on to a
// StreamAllocator (Alloc to others), and RecordStream, RequestFree and
// Sync to a DeferredFreer only; for other allocators a requested block
// waits for the Free that completes it.
type Verifier struct {
	a     Allocator
	level streamLevel
	words map[int64]uint64    // 8-byte word index -> contents; absent is zero
	live  ordset              // key offset, value chunk bytes
	ids   map[int64]liveStamp // offset -> its allocation
	next  uint64
	inUse int64
	err   error
	n     VerifyCounts

	// pending holds the blocks whose free was requested and some user
	// has not synced since: key offset, sub allocation id, value chunk.
	pending    ordset
	waiting    map[uint64]*pendingFree // allocation id -> what it waits for
	byStream   map[int32][]uint64      // stream -> allocation ids waiting for it
	maxPending int64                   // the largest chunk ever pending
	// requested holds blocks whose free was requested of an allocator
	// that is not a DeferredFreer: it still holds them until Free.
	requested map[int64]liveStamp
	reqBytes  int64
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

// pendingFree is a requested free some stream has not synced since.
type pendingFree struct {
	off     int64
	streams []int32 // the users yet to sync
}

type liveStamp struct {
	id          uint64
	size, chunk int64
	// users are the streams that used the block, its producer first.
	users []int32
}

// Verify returns a Verifier over a.
func Verify(a Allocator) *Verifier {
	return &Verifier{a: a, level: levelOf(a), words: map[int64]uint64{}, ids: map[int64]liveStamp{},
		waiting: map[uint64]*pendingFree{}, byStream: map[int32][]uint64{}, requested: map[int64]liveStamp{}}
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
func (v *Verifier) Alloc(size int64) (Block, error) { return v.alloc(size, 0, false) }

// AllocOn is Alloc on stream: through the wrapped allocator's AllocOn
// where it has one. The block must also not take memory whose free waits
// for a stream other than this one.
func (v *Verifier) AllocOn(size int64, stream int) (Block, error) {
	return v.alloc(size, int32(stream), v.level != plainLevel)
}

func (v *Verifier) alloc(size int64, stream int32, on bool) (Block, error) {
	if v.err != nil {
		return Block{}, v.err
	}
	var b Block
	var err error
	if on {
		b, err = v.a.(StreamAllocator).AllocOn(size, int(stream))
	} else {
		b, err = v.a.Alloc(size)
	}
	if err != nil {
		return b, err
	}
	return v.admit(b, size, stream)
}

// admit checks block b, allocated for size bytes on stream, against the
// live ones and stamps it.
func (v *Verifier) admit(b Block, size int64, stream int32) (Block, error) {
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
	if err := v.streamSafe(id, b, stream); err != nil {
		return b, err
	}
	v.next = id
	v.live.insert(b.Offset, 0, b.Size)
	v.ids[b.Offset] = liveStamp{id: id, size: size, chunk: b.Size, users: []int32{stream}}
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
	if r, ok := v.requested[off]; ok {
		// The completion of a request RequestFree has checked.
		if err := v.a.Free(off); err != nil {
			return v.fail("allocator refused to complete the free of allocation #%d at %#x: %v", r.id, off, err)
		}
		delete(v.requested, off)
		v.reqBytes -= r.chunk
		return nil
	}
	_, _, err := v.release(off, func() error { return v.a.Free(off) })
	return err
}

// release checks the stamps of the allocation at off, makes the
// allocator's call (nil: none, where the allocator does not take it),
// checks that the allocator accepted it exactly when off is live, and
// erases the allocation. It returns the allocation and whether off was
// live.
func (v *Verifier) release(off int64, call func() error) (liveStamp, bool, error) {
	s, known := v.ids[off]
	if known {
		if err := v.checkStamps(off, s); err != nil {
			return s, known, err
		}
	}
	var err error
	switch {
	case call != nil:
		err = call()
	case !known:
		err = badFree("verify", off)
	}
	switch {
	case known && err != nil:
		return s, known, v.fail("allocator refused the free of live allocation #%d at %#x: %v", s.id, off, err)
	case !known && err == nil:
		return s, known, v.fail("allocator accepted a free of %#x, which is not a live allocation", off)
	}
	v.n.Frees++
	if !known {
		return s, known, err
	}
	v.stamp(off, s.chunk, 0)
	v.live.remove(off, 0)
	delete(v.ids, off)
	v.inUse -= s.chunk
	return s, true, nil
}

// streamSafe checks that block b, the allocation id on stream, takes no
// memory whose free still waits for another stream's sync.
func (v *Verifier) streamSafe(id uint64, b Block, stream int32) error {
	if len(v.waiting) == 0 {
		return nil
	}
	end := b.Offset + b.Size
	for n := v.pending.ceil(b.Offset-v.maxPending+1, 0); n != nil && n.key < end; n = v.pending.ceil(n.key, n.sub+1) {
		if n.key+n.val <= b.Offset {
			continue
		}
		for _, s := range v.waiting[uint64(n.sub)].streams {
			if s != stream {
				return v.fail("allocation #%d on stream %d at [%#x, %#x) takes memory of allocation #%d at [%#x, %#x), whose free waits for stream %d to sync",
					id, stream, b.Offset, end, n.sub, n.key, n.key+n.val, s)
			}
		}
	}
	return nil
}

// RecordStream notes that stream uses the live block at off and passes
// the record on to a DeferredFreer.
func (v *Verifier) RecordStream(off int64, stream int) error {
	if v.err != nil {
		return v.err
	}
	s, known := v.ids[off]
	if err := v.passOn(known, off, func(d DeferredFreer) error { return d.RecordStream(off, stream) }); err != nil || !known {
		return err
	}
	if !slices.Contains(s.users, int32(stream)) {
		s.users = append(s.users, int32(stream))
		v.ids[off] = s
	}
	return nil
}

// passOn makes a DeferredFreer's call about off, known saying whether off
// is live, and checks that the allocator accepts it exactly when it is.
// For other allocators it refuses an unknown offset.
func (v *Verifier) passOn(known bool, off int64, call func(DeferredFreer) error) error {
	if v.level != deferredLevel {
		if !known {
			return badFree("verify", off)
		}
		return nil
	}
	err := call(v.a.(DeferredFreer))
	switch {
	case known && err != nil:
		return v.fail("allocator refused a call on live allocation #%d at %#x: %v", v.ids[off].id, off, err)
	case !known && err == nil:
		return v.fail("allocator accepted a call on %#x, which is not a live allocation", off)
	}
	return err
}

// RequestFree checks the stamps of the allocation at off and requests its
// free: the block waits for every stream that used it to sync before
// another stream may take its memory. A DeferredFreer gets the request;
// another allocator keeps the block until Free completes it.
func (v *Verifier) RequestFree(off int64, stream int) error {
	if v.err != nil {
		return v.err
	}
	var call func() error
	if v.level == deferredLevel {
		call = func() error { return v.a.(DeferredFreer).RequestFree(off, stream) }
	}
	s, known, err := v.release(off, call)
	if err != nil || !known {
		return err
	}
	if v.level != deferredLevel {
		v.requested[off] = s
		v.reqBytes += s.chunk
	}
	users := s.users
	if !slices.Contains(users, int32(stream)) {
		users = append(users, int32(stream))
	}
	v.pending.insert(off, int64(s.id), s.chunk)
	v.maxPending = max(v.maxPending, s.chunk)
	v.waiting[s.id] = &pendingFree{off: off, streams: users}
	for _, u := range users {
		v.byStream[u] = append(v.byStream[u], s.id)
	}
	return nil
}

// Sync says that stream has finished its work: the requested frees stop
// waiting for it. A DeferredFreer gets the sync.
func (v *Verifier) Sync(stream int) {
	if v.level == deferredLevel {
		v.a.(DeferredFreer).Sync(stream)
	}
	for _, id := range v.byStream[int32(stream)] {
		p := v.waiting[id]
		if p == nil {
			continue
		}
		if k := slices.Index(p.streams, int32(stream)); k >= 0 {
			p.streams = slices.Delete(p.streams, k, k+1)
		}
		if len(p.streams) == 0 {
			delete(v.waiting, id)
			v.pending.remove(p.off, int64(id))
		}
	}
	delete(v.byStream, int32(stream))
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
	st := v.a.Stats()
	switch {
	case v.level == deferredLevel && st.InUse < v.inUse:
		// Requested frees count until the allocator completes them.
		return v.fail("stats report %d bytes in use, the %d live chunks hold %d", st.InUse, len(v.ids), v.inUse)
	case v.level != deferredLevel && st.InUse != v.inUse+v.reqBytes:
		return v.fail("stats report %d bytes in use, the %d live chunks hold %d", st.InUse, len(v.ids)+len(v.requested), v.inUse+v.reqBytes)
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
