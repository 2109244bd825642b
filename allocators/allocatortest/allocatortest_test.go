package allocatortest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"membench/allocators"
)

// recorder is a TB that keeps the failures instead of failing.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// defect is one way the fake allocator breaks its contract.
type defect int

const (
	correct defect = iota
	overlapping
	misaligned
	undersized
	inUseNotFreed
	peakNotKept
	reservedTooLow
	largestTooBig
	numAllocsWrong
	doubleFreeAccepted
	unknownFreeAccepted
	badFreeWrongError
	badFreeCorrupts
	oomWrongError
	oomCorrupts
	ignoresLimit
	nondeterministic
	streamUnsafe
)

// fakeBases makes each nondeterministic fake start somewhere else.
var fakeBases int64

// fake is a first-fit-free bump allocator with 256-byte chunks that
// reuses a freed chunk of the same size (so double frees can be caught),
// and that breaks one rule on demand.
type fake struct {
	bug   defect
	base  int64
	next  int64
	limit int64
	live  map[int64]int64
	free  map[int64][]int64 // chunk size -> freed offsets
	st    allocators.Stats
}

func newFake(bug defect, limit int64) *fake {
	f := &fake{bug: bug, limit: limit, live: map[int64]int64{}, free: map[int64][]int64{}}
	if bug == nondeterministic {
		fakeBases += 1 << 20
		f.base = fakeBases
	}
	return f
}

func (f *fake) Alloc(size int64) (allocators.Block, error) {
	n := (size + 255) &^ 255
	if f.bug == undersized && size > 1 {
		n = size - 1
	}
	var off int64
	if l := f.free[n]; len(l) > 0 {
		off = l[len(l)-1]
		f.free[n] = l[:len(l)-1]
	} else {
		if f.limit > 0 && f.next+n > f.limit && f.bug != ignoresLimit {
			f.st.OOMs++
			switch f.bug {
			case oomWrongError:
				return allocators.Block{}, errors.New("no memory")
			case oomCorrupts:
				f.st.InUse += 256
			}
			return allocators.Block{}, fmt.Errorf("fake: %w", allocators.ErrOOM)
		}
		off = f.base + f.next
		f.next += n
		if f.bug != reservedTooLow {
			f.st.Reserved += n
			f.st.PeakReserved = max(f.st.PeakReserved, f.st.Reserved)
		}
	}
	switch f.bug {
	case overlapping:
		if len(f.live) > 0 {
			off = f.base
		}
	case misaligned:
		off += 8
	}
	f.live[off] = n
	f.st.InUse += n
	if f.bug != peakNotKept {
		f.st.PeakInUse = max(f.st.PeakInUse, f.st.InUse)
	}
	f.st.NumAllocs++
	if f.bug == numAllocsWrong && f.st.NumAllocs == 5 {
		f.st.NumAllocs++
	}
	return allocators.Block{Offset: off, Size: n}, nil
}

func (f *fake) Free(off int64) error {
	n, ok := f.live[off]
	if !ok {
		switch f.bug {
		case doubleFreeAccepted:
			for _, l := range f.free {
				for _, o := range l {
					if o == off {
						return nil
					}
				}
			}
		case unknownFreeAccepted:
			return nil
		case badFreeWrongError:
			return errors.New("not allocated")
		case badFreeCorrupts:
			f.st.InUse--
		}
		return fmt.Errorf("fake: %w", allocators.ErrBadFree)
	}
	delete(f.live, off)
	if f.bug != inUseNotFreed {
		f.st.InUse -= n
	}
	f.free[n] = append(f.free[n], off)
	return nil
}

func (f *fake) Stats() allocators.Stats {
	s := f.st
	if f.bug == largestTooBig {
		s.LargestFreeChunk = s.Reserved + 1
	}
	return s
}

// eagerStreams is a DeferredFreer that completes every free at its
// request, whoever still uses the block: it breaks stream safety.
type eagerStreams struct{ *fake }

func (e eagerStreams) AllocOn(size int64, _ int) (allocators.Block, error) { return e.Alloc(size) }
func (e eagerStreams) RequestFree(off int64, _ int) error                  { return e.Free(off) }
func (e eagerStreams) Sync(int)                                            {}
func (e eagerStreams) RecordStream(off int64, _ int) error {
	if _, ok := e.live[off]; !ok {
		return fmt.Errorf("fake: %w", allocators.ErrBadFree)
	}
	return nil
}

func config(bug defect) Config {
	if bug == streamUnsafe {
		return Config{
			New:        func() allocators.Allocator { return eagerStreams{newFake(bug, 0)} },
			NewLimited: func(limit int64) allocators.Allocator { return eagerStreams{newFake(bug, limit)} },
			Ops:        600,
		}
	}
	return Config{
		New:        func() allocators.Allocator { return newFake(bug, 0) },
		NewLimited: func(limit int64) allocators.Allocator { return newFake(bug, limit) },
		Ops:        600,
	}
}

func TestCorrectFakePasses(t *testing.T) {
	for _, ch := range checks {
		r := &recorder{}
		ch.fn(r, config(correct))
		if len(r.errs) > 0 {
			t.Errorf("%s: the correct fake failed: %q", ch.name, r.errs)
		}
	}
}

func TestSuiteCatchesDefects(t *testing.T) {
	tests := []struct {
		bug   defect
		check string
		want  string
	}{
		{overlapping, "random", "overlaps live block"},
		{misaligned, "random", "not a multiple of the alignment 256"},
		{undersized, "random", "chunk smaller than the request"},
		{inUseNotFreed, "random", "InUse ="},
		{peakNotKept, "random", "PeakInUse = 0"},
		{reservedTooLow, "random", "Reserved = 0 < InUse"},
		{largestTooBig, "random", "LargestFreeChunk ="},
		{numAllocsWrong, "random", "NumAllocs = 6, want 5"},
		{nondeterministic, "deterministic", "two fresh allocators differ"},
		{doubleFreeAccepted, "bad-free", "a double free: no error"},
		{unknownFreeAccepted, "bad-free", "no error"},
		{badFreeWrongError, "bad-free", "does not wrap ErrBadFree"},
		{badFreeCorrupts, "bad-free", "changed the stats"},
		{oomWrongError, "oom", "does not wrap ErrOOM"},
		{oomCorrupts, "oom", "changed the stats"},
		{ignoresLimit, "oom", "exceeds the memory limit"},
		{streamUnsafe, "streams", "whose free waits for stream"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			var fn func(TB, Config)
			for _, ch := range checks {
				if ch.name == tt.check {
					fn = ch.fn
				}
			}
			r := &recorder{}
			fn(r, config(tt.bug))
			if len(r.errs) != 1 {
				t.Fatalf("check %s on defect %d: %d failures %q, want exactly 1", tt.check, tt.bug, len(r.errs), r.errs)
			}
			if !strings.Contains(r.errs[0], tt.want) {
				t.Errorf("check %s on defect %d: failure %q does not mention %q", tt.check, tt.bug, r.errs[0], tt.want)
			}
		})
	}
}

func TestRunOnCorrectFake(t *testing.T) {
	// Run itself on a correct allocator, through the real testing.T.
	Run(t, config(correct))
}
