// Package allocatortest is the conformance suite every registered
// allocator must pass, in the style of testing/fstest: Run drives an
// allocator through random alloc/free sequences and checks that
//
//   - no two live blocks overlap, every offset is a non-negative multiple of
//     the allocator's alignment (allocators.AlignmentOf) and every chunk
//     holds its request;
//   - the stats are consistent after every call: InUse is the sum of the
//     live chunks, PeakInUse its maximum so far, Reserved >= InUse,
//     PeakReserved >= Reserved and never decreasing, 0 <= LargestFreeChunk
//     <= Reserved - InUse, NumAllocs and OOMs count the successes and the
//     failures, and under a memory limit PeakReserved stays within it;
//   - a double free and a free of an offset that is not a live block's
//     start return errors wrapping allocators.ErrBadFree and change nothing;
//   - an OOM returns an error wrapping allocators.ErrOOM and changes no
//     stats but OOMs, except that Reserved (and with it LargestFreeChunk)
//     may shrink where the allocator gives cached memory back to the
//     device; every live block stays valid and freeable;
//   - two fresh allocators given the same calls return the same blocks;
//   - random traces on four streams, with record_stream uses, views and
//     sync points, replay behind the Verifier (allocators.Replay): no
//     block takes memory whose free still waits for another stream's
//     sync, and requested bytes count until their free completes.
package allocatortest

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"membench/allocators"
)

// TB is the part of testing.TB the suite reports through (the suite's own
// tests record failures with a fake).
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Config describes the allocator under test.
type Config struct {
	// New returns a fresh allocator with no memory limit (or a large one).
	New func() allocators.Allocator
	// NewLimited returns a fresh allocator that may reserve at most limit
	// bytes from the device.
	NewLimited func(limit int64) allocators.Allocator
	// MaxSize bounds the random request sizes; 0 means 4 MiB.
	MaxSize int64
	// Ops is the length of each random sequence; 0 means 3000.
	Ops int
}

// Limit is the memory limit the OOM checks use.
const Limit = 64 << 20

func (c Config) maxSize() int64 {
	if c.MaxSize > 0 {
		return c.MaxSize
	}
	return 4 << 20
}

func (c Config) ops() int {
	if c.Ops > 0 {
		return c.Ops
	}
	return 3000
}

type check struct {
	name string
	fn   func(tb TB, c Config)
}

var checks = []check{
	{"random", checkRandom},
	{"deterministic", checkDeterministic},
	{"bad-free", checkBadFree},
	{"oom", checkOOM},
	{"streams", checkStreams},
}

// Run runs every check as a subtest of t.
func Run(t *testing.T, c Config) {
	t.Helper()
	if c.New == nil || c.NewLimited == nil {
		t.Fatal("allocatortest: Config needs New and NewLimited")
	}
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) { ch.fn(t, c) })
	}
}

// session drives one allocator and keeps the model the checks compare the
// allocator against. After the first reported failure it stops checking,
// so one defect gives one message.
type session struct {
	tb     TB
	a      allocators.Allocator
	align  int64
	limit  int64 // 0: none
	rng    *rand.Rand
	live   []allocators.Block
	freed  []int64 // offsets freed and not handed out again
	allocs int64
	ooms   int64
	peakIn int64
	last   allocators.Stats
	failed bool
	log    []allocators.Block // every call's result, for determinism
}

func newSession(tb TB, a allocators.Allocator, limit int64, seed uint64) *session {
	return &session{tb: tb, a: a, align: allocators.AlignmentOf(a), limit: limit, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

func (s *session) errorf(format string, args ...any) {
	s.tb.Helper()
	if !s.failed {
		s.failed = true
		s.tb.Errorf(format, args...)
	}
}

// size draws a request size: log-uniform up to max, a quarter of them
// multiples of 256.
func (s *session) size(maxSize int64) int64 {
	e := s.rng.IntN(bits.Len64(uint64(maxSize)))
	n := 1 + s.rng.Int64N(min(int64(2)<<e, maxSize))
	if s.rng.IntN(4) == 0 {
		n = (n + 255) &^ 255
	}
	return min(n, maxSize)
}

// alloc requests size bytes and checks the result; ok is false on OOM.
func (s *session) alloc(size int64) (allocators.Block, bool) {
	s.tb.Helper()
	before := s.a.Stats()
	b, err := s.a.Alloc(size)
	if err != nil {
		s.log = append(s.log, allocators.Block{Offset: -1})
		if !errors.Is(err, allocators.ErrOOM) {
			s.errorf("Alloc(%d): error %v does not wrap ErrOOM", size, err)
			return b, false
		}
		s.ooms++
		s.checkOOMStats(size, before)
		s.checkStats(fmt.Sprintf("after the OOM of Alloc(%d)", size))
		return b, false
	}
	s.log = append(s.log, b)
	s.allocs++
	switch {
	case b.Size < size:
		s.errorf("Alloc(%d) = %+v: chunk smaller than the request", size, b)
	case b.Offset < 0:
		s.errorf("Alloc(%d) = %+v: negative offset", size, b)
	case b.Offset%s.align != 0:
		s.errorf("Alloc(%d) = %+v: offset not a multiple of the alignment %d", size, b, s.align)
	}
	for _, o := range s.live {
		if b.Offset < o.Offset+o.Size && o.Offset < b.Offset+b.Size {
			s.errorf("Alloc(%d) = [%#x, %#x) overlaps live block [%#x, %#x)", size, b.Offset, b.Offset+b.Size, o.Offset, o.Offset+o.Size)
			break
		}
	}
	s.live = append(s.live, b)
	s.forget(b.Offset)
	s.checkStats(fmt.Sprintf("after Alloc(%d) = %+v", size, b))
	return b, true
}

// forget drops off from the freed offsets once it is live again.
func (s *session) forget(off int64) {
	for i, f := range s.freed {
		if f == off {
			s.freed[i] = s.freed[len(s.freed)-1]
			s.freed = s.freed[:len(s.freed)-1]
			return
		}
	}
}

// free releases live block i.
func (s *session) free(i int) {
	s.tb.Helper()
	b := s.live[i]
	s.live[i] = s.live[len(s.live)-1]
	s.live = s.live[:len(s.live)-1]
	if err := s.a.Free(b.Offset); err != nil {
		s.errorf("Free(%#x) of a live block: %v", b.Offset, err)
		return
	}
	s.freed = append(s.freed, b.Offset)
	s.checkStats(fmt.Sprintf("after Free(%#x)", b.Offset))
}

func (s *session) freeAll() {
	s.tb.Helper()
	for len(s.live) > 0 && !s.failed {
		s.free(s.rng.IntN(len(s.live)))
	}
	if st := s.a.Stats(); !s.failed && st.InUse != 0 {
		s.errorf("InUse = %d after every block was freed", st.InUse)
	}
}

// checkStats checks the counters against the model.
func (s *session) checkStats(when string) {
	s.tb.Helper()
	if s.failed {
		return
	}
	st := s.a.Stats()
	var inUse int64
	for _, b := range s.live {
		inUse += b.Size
	}
	s.peakIn = max(s.peakIn, inUse)
	switch {
	case st.InUse != inUse:
		s.errorf("%s: InUse = %d, but the %d live chunks hold %d bytes", when, st.InUse, len(s.live), inUse)
	case st.PeakInUse != s.peakIn:
		s.errorf("%s: PeakInUse = %d, want %d (the largest InUse so far)", when, st.PeakInUse, s.peakIn)
	case st.Reserved < st.InUse:
		s.errorf("%s: Reserved = %d < InUse = %d", when, st.Reserved, st.InUse)
	case st.PeakReserved < st.Reserved:
		s.errorf("%s: PeakReserved = %d < Reserved = %d", when, st.PeakReserved, st.Reserved)
	case st.PeakReserved < s.last.PeakReserved:
		s.errorf("%s: PeakReserved fell from %d to %d", when, s.last.PeakReserved, st.PeakReserved)
	case st.LargestFreeChunk < 0 || st.LargestFreeChunk > st.Reserved-st.InUse:
		s.errorf("%s: LargestFreeChunk = %d outside [0, Reserved - InUse = %d]", when, st.LargestFreeChunk, st.Reserved-st.InUse)
	case st.NumAllocs != s.allocs:
		s.errorf("%s: NumAllocs = %d, want %d", when, st.NumAllocs, s.allocs)
	case st.OOMs != s.ooms:
		s.errorf("%s: OOMs = %d, want %d", when, st.OOMs, s.ooms)
	case s.limit > 0 && st.PeakReserved > s.limit:
		s.errorf("%s: PeakReserved = %d exceeds the memory limit %d", when, st.PeakReserved, s.limit)
	}
	s.last = st
}

// checkOOMStats checks that a failed Alloc changed nothing but OOMs, and
// at most gave cached memory back.
func (s *session) checkOOMStats(size int64, before allocators.Stats) {
	s.tb.Helper()
	after := s.a.Stats()
	want := before
	want.OOMs++
	if after.Reserved <= before.Reserved && after.LargestFreeChunk <= before.LargestFreeChunk {
		want.Reserved, want.LargestFreeChunk = after.Reserved, after.LargestFreeChunk
	}
	if after != want {
		s.errorf("the OOM of Alloc(%d) changed the stats from %+v to %+v (only OOMs may grow, Reserved and LargestFreeChunk shrink)", size, before, after)
	}
}

// randomOps runs n random calls, biased towards frees as the live set grows.
func (s *session) randomOps(n int, maxSize int64) {
	s.tb.Helper()
	for range n {
		if s.failed {
			return
		}
		if len(s.live) > 0 && s.rng.IntN(100) < 20+len(s.live)/4 {
			s.free(s.rng.IntN(len(s.live)))
		} else {
			s.alloc(s.size(maxSize))
		}
	}
}

// checkRandom runs random sequences on unlimited allocators.
func checkRandom(tb TB, c Config) {
	tb.Helper()
	for seed := uint64(1); seed <= 3; seed++ {
		s := newSession(tb, c.New(), 0, seed)
		s.randomOps(c.ops(), c.maxSize())
		s.freeAll()
		if s.failed {
			return
		}
	}
}

// checkDeterministic replays one sequence on two fresh allocators.
func checkDeterministic(tb TB, c Config) {
	tb.Helper()
	a := newSession(tb, c.New(), 0, 7)
	a.randomOps(c.ops()/3, c.maxSize())
	b := newSession(tb, c.New(), 0, 7)
	b.randomOps(c.ops()/3, c.maxSize())
	if a.failed || b.failed {
		return
	}
	for i := range min(len(a.log), len(b.log)) {
		if a.log[i] != b.log[i] {
			tb.Errorf("two fresh allocators differ at call %d of the same sequence: %+v, then %+v", i, a.log[i], b.log[i])
			return
		}
	}
	if sa, sb := a.a.Stats(), b.a.Stats(); sa != sb {
		tb.Errorf("two fresh allocators end the same sequence with different stats: %+v and %+v", sa, sb)
	}
}

// badFree frees off, which is not live, and checks it is refused with
// ErrBadFree and changes nothing.
func (s *session) badFree(off int64, what string) {
	s.tb.Helper()
	if s.failed {
		return
	}
	before := s.a.Stats()
	err := s.a.Free(off)
	switch {
	case err == nil:
		s.errorf("Free(%#x), %s: no error", off, what)
	case !errors.Is(err, allocators.ErrBadFree):
		s.errorf("Free(%#x), %s: error %v does not wrap ErrBadFree", off, what, err)
	}
	if after := s.a.Stats(); !s.failed && after != before {
		s.errorf("Free(%#x), %s, changed the stats from %+v to %+v", off, what, before, after)
	}
}

// isLiveStart reports whether off starts a live block.
func (s *session) isLiveStart(off int64) bool {
	for _, b := range s.live {
		if b.Offset == off {
			return true
		}
	}
	return false
}

// checkBadFree frees offsets that are not live in the middle of random
// sequences, then carries on.
func checkBadFree(tb TB, c Config) {
	tb.Helper()
	s := newSession(tb, c.New(), 0, 11)
	for round := range 20 {
		s.randomOps(c.ops()/20, c.maxSize())
		if len(s.freed) > 0 {
			s.badFree(s.freed[s.rng.IntN(len(s.freed))], "a double free")
		}
		if len(s.live) > 0 {
			b := s.live[s.rng.IntN(len(s.live))]
			if in := b.Offset + b.Size/2; b.Size > 1 && !s.isLiveStart(in) {
				s.badFree(in, "inside a live block")
			}
		}
		s.badFree(1<<60+int64(round), "beyond anything handed out")
		s.badFree(-1, "a negative offset")
	}
	s.freeAll()
}

// checkOOM fills allocators limited to Limit bytes until requests fail,
// checking each failure changes nothing, and keeps going.
func checkOOM(tb TB, c Config) {
	tb.Helper()
	for seed := uint64(1); seed <= 3; seed++ {
		s := newSession(tb, c.NewLimited(Limit), Limit, seed)
		if _, ok := s.alloc(Limit + 1); ok && !s.failed {
			s.errorf("Alloc(%d) succeeded under memory_limit=%d", Limit+1, Limit)
		}
		maxSize := min(c.maxSize()*4, Limit/4)
		for range c.ops() {
			if s.failed {
				return
			}
			if len(s.live) > 0 && s.rng.IntN(100) < 10 {
				s.free(s.rng.IntN(len(s.live)))
			} else {
				s.alloc(s.size(maxSize))
			}
		}
		if s.ooms < 2 && !s.failed {
			s.errorf("%d calls under memory_limit=%d with requests up to %d bytes gave only %d OOMs",
				c.ops(), Limit, maxSize, s.ooms)
		}
		s.freeAll()
		if s.failed {
			return
		}
	}
}
