package allocators

import (
	"fmt"

	"membench/workloads"
)

// DefaultAlignment is the alignment assumed of an allocator that does not
// implement Aligner: 256 bytes, the alignment TensorFlow's BFC allocator and
// cudaMalloc guarantee.
const DefaultAlignment = 256

// AlignmentOf returns a's documented alignment, or DefaultAlignment.
func AlignmentOf(a Allocator) int64 {
	if al, ok := a.(Aligner); ok {
		return al.Alignment()
	}
	return DefaultAlignment
}

// maxRequest bounds the requests the allocators in this package serve; a
// larger one is an OOM, which keeps all size arithmetic clear of overflow.
const maxRequest = int64(1) << 52

// roundPow2 rounds x up to a multiple of align, a power of two.
func roundPow2(x, align int64) int64 { return (x + align - 1) &^ (align - 1) }

// memoryLimitDoc documents the memory_limit parameter every allocator in
// this package takes.
var memoryLimitDoc = workloads.ParamDoc{
	Name:    "memory_limit",
	Default: "0",
	Doc:     "bytes the allocator may reserve from the device (K/M/G suffixes); 0 means unlimited",
}

// statTracker keeps an allocator's Stats and its peaks up to date.
type statTracker struct{ st Stats }

func (t *statTracker) allocated(chunk int64) {
	t.st.InUse += chunk
	t.st.PeakInUse = max(t.st.PeakInUse, t.st.InUse)
	t.st.NumAllocs++
}

func (t *statTracker) freed(chunk int64) { t.st.InUse -= chunk }

func (t *statTracker) reserve(n int64) {
	t.st.Reserved += n
	t.st.PeakReserved = max(t.st.PeakReserved, t.st.Reserved)
}

// oom counts a failed request and returns the error for it.
func (t *statTracker) oom(name string, size int64) error {
	t.st.OOMs++
	return fmt.Errorf("%s: %d bytes: %w", name, size, ErrOOM)
}

// badFree returns the error for a free of an offset that is not live.
func badFree(name string, off int64) error {
	return fmt.Errorf("%s: offset %d: %w", name, off, ErrBadFree)
}

// badSize returns the error for a request of size <= 0.
func badSize(name string, size int64) error {
	return fmt.Errorf("%s: request of %d bytes: the size must be positive", name, size)
}

// registerLimited registers a baseline whose one parameter is
// memory_limit; build makes one for a limit (0: unlimited).
func registerLimited(name, doc string, build func(limit int64) Allocator) {
	Register(Info{
		Name:   name,
		Doc:    doc,
		Params: []workloads.ParamDoc{memoryLimitDoc},
		New: func(args *workloads.Args) (Allocator, error) {
			return build(args.Bytes("memory_limit", 0)), nil
		},
	})
}

// handOut records the chunk of n bytes at off in live (offset -> chunk
// bytes), counts it and returns it.
func (t *statTracker) handOut(live map[int64]int64, off, n int64) Block {
	live[off] = n
	t.allocated(n)
	return Block{Offset: off, Size: n}
}

// takeBack takes the live chunk at off out of live, counts its free and
// returns its bytes; an offset that is not live is allocator name's
// ErrBadFree.
func (t *statTracker) takeBack(live map[int64]int64, name string, off int64) (int64, error) {
	n, ok := live[off]
	if !ok {
		return 0, badFree(name, off)
	}
	delete(live, off)
	t.freed(n)
	return n, nil
}
