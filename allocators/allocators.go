// Package allocators holds the dynamic allocators: the Allocator interface,
// the registry of factories, and Replay, which runs a trace through one.
//
// A new allocator is one file that calls Register from init().
package allocators

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"membench/workloads"
)

// ErrOOM is returned (wrapped) by Alloc when the request cannot be served.
// The allocator's state is unchanged by a failed request (BFC's garbage
// collection of empty regions aside).
var ErrOOM = errors.New("out of memory")

// ErrBadFree is returned (wrapped) by Free for an offset that is not the
// start of a live allocation: a double free or an unknown offset.
var ErrBadFree = errors.New("free of an offset that is not allocated")

// Block is memory handed out by Alloc.
type Block struct {
	// Offset is the address relative to the base of the simulated device.
	Offset int64
	// Size is the chunk bytes handed out, after rounding; >= the request.
	Size int64
}

// Stats are an allocator's counters.
type Stats struct {
	// InUse and PeakInUse count chunk bytes handed out (after rounding).
	InUse, PeakInUse int64
	// Reserved and PeakReserved count bytes held from the device.
	Reserved, PeakReserved int64
	// LargestFreeChunk is the largest free block inside Reserved.
	LargestFreeChunk int64
	// NumAllocs counts successful allocations, OOMs failed ones.
	NumAllocs, OOMs int64
}

// Allocator serves one request at a time in a simulated device address
// space. Allocators are not safe for concurrent use.
type Allocator interface {
	// Alloc requests size bytes (size > 0). On failure it returns an error
	// wrapping ErrOOM and leaves the state as it was.
	Alloc(size int64) (Block, error)
	// Free releases the block starting at offset.
	Free(offset int64) error
	// Stats returns the current counters.
	Stats() Stats
}

// The optional interfaces: an allocator implements those that fit it, and
// Replay, the Verifier and the reports use what it implements.

// Aligner is implemented by allocators that document the alignment of the
// offsets they hand out. The conformance suite checks every offset against
// it.
type Aligner interface {
	// Alignment returns the power of two every offset is a multiple of.
	Alignment() int64
}

// Resetter is implemented by allocators that can return to their initial
// state while keeping the memory their tables have grown. Replay resets
// such an allocator between timed replays, so they run warm.
type Resetter interface {
	Reset()
}

// PoolReporter is implemented by allocators that hold their reserved memory
// in several pools or bins (torch-caching's small and large pools, bfc's
// bins, pool's size classes). Pools returns them in a fixed order; their
// Reserved bytes add up to Stats().Reserved. Allocators without it count
// as one pool.
type PoolReporter interface {
	Pools() []PoolBytes
}

// StreamAllocator is an Allocator that knows the stream of each request.
// Replay calls AllocOn in place of Alloc; frees arrive through Free when
// they complete.
type StreamAllocator interface {
	Allocator
	// AllocOn requests size bytes (size > 0) on stream (>= 0), with
	// Alloc's contract.
	AllocOn(size int64, stream int) (Block, error)
}

// DeferredFreer is a StreamAllocator that completes free requests itself,
// keeping stream safety (streams.go).
type DeferredFreer interface {
	StreamAllocator
	// RecordStream notes that stream uses the live block at off (PyTorch's
	// record_stream). An offset that is not a live block is an error
	// wrapping ErrBadFree.
	RecordStream(off int64, stream int) error
	// RequestFree requests the free of the live block at off, made on
	// stream. The block's bytes count as in use until the allocator
	// completes the free. An offset that is not a live block is an error
	// wrapping ErrBadFree.
	RequestFree(off int64, stream int) error
	// Sync says that stream has finished everything it queued before this
	// point.
	Sync(stream int)
}

// CacheEmptier is implemented by allocators whose runtime can give the
// memory they cache back to the device on request (PyTorch's
// torch.cuda.empty_cache(), OneFlow's flow.cuda.empty_cache()). Replay
// calls it at a trace's EmptyCache events; allocators without it (their
// runtimes have no such call) take those events as no-ops.
type CacheEmptier interface {
	// EmptyCache gives back what the allocator's runtime would.
	EmptyCache()
}

// cacheSeeder is implemented by allocators that can start from the cache
// a recording started from (workloads.Trace.Cache): its segments reserved,
// their blocks allocated, the rest cached.
type cacheSeeder interface {
	// seedCache sets up cache in a fresh allocator and returns its
	// allocated blocks in the cache's order (segment by segment), or
	// false where the allocator's configuration cannot hold it.
	seedCache(cache []workloads.CacheSegment) ([]seededBlock, bool, error)
}

// segmentLogger is implemented by allocators that can report each
// segment they reserve and give back (torch-caching's cudaMalloc and
// cudaFree calls, or its pages mapped and unmapped), for calibration.
type segmentLogger interface {
	// logSegments makes the allocator call f at each (nil: stop).
	logSegments(f func(free bool, size int64))
}

// blockHandles is an optional fast path for the timed loops: an allocator
// that names its blocks by handles hands one out for each allocation and
// takes it back in place of the offset, so it need not look blocks up by
// address. A handle is valid from its allocation until its free (or free
// request); the calls are otherwise those of the offset-taking methods,
// with their results and errors. Allocators need not implement it.
type blockHandles interface {
	DeferredFreer
	// allocHandle is AllocOn, returning the block's handle.
	allocHandle(size int64, stream int) (int32, error)
	// freeHandle, requestFreeHandle and recordStreamHandle are Free,
	// RequestFree and RecordStream of the block with handle h.
	freeHandle(h int32) error
	requestFreeHandle(h int32, stream int) error
	recordStreamHandle(h int32, stream int) error
}

// Info describes a registered allocator.
type Info struct {
	Name   string
	Doc    string
	Params []workloads.ParamDoc
	// New builds a fresh allocator; it reads its parameters from args.
	New func(args *workloads.Args) (Allocator, error)
}

var (
	registry = workloads.NewTable[Info]("allocators", regexp.MustCompile(`^[a-z0-9-]+$`))
)

// Register makes an allocator factory available by name. Like
// strategies.Register, it panics naming the allocator and the field when
// New or Doc is missing, and on a duplicate or invalid name.
func Register(info Info) {
	switch {
	case info.New == nil:
		panic(fmt.Sprintf("allocators: Register(%q): missing New", info.Name))
	case info.Doc == "":
		panic(fmt.Sprintf("allocators: Register(%q): missing Doc", info.Name))
	}
	registry.Add(info.Name, info)
}

// All returns every registered allocator, sorted by name.
func All() []Info { return registry.All() }

// Names returns the registered names, sorted.
func Names() []string { return registry.Names() }

// Factory builds fresh allocators of one spec.
type Factory struct {
	// Spec is the spec as given.
	Spec string
	// Settings are the recorded allocator settings LookupFor added to
	// Spec ("" for none).
	Settings string
	info     Info
	sp       workloads.Spec
}

// New returns a fresh allocator.
func (f *Factory) New() Allocator {
	a, err := f.info.New(workloads.NewArgs(f.sp))
	if err != nil {
		// Lookup already built one with the same arguments.
		panic(fmt.Sprintf("allocators: %s: %v", f.Spec, err))
	}
	return a
}

// Lookup parses spec (`NAME` or `NAME?key=value&...`) and checks its
// parameters by building one allocator. Unknown names and parameters are
// UsageErrors listing the valid ones.
func Lookup(spec string) (*Factory, error) {
	sp, err := workloads.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	info, ok := registry.Get(sp.Name)
	if !ok {
		return nil, workloads.Usagef("unknown allocator %q (valid: %s)", sp.Name, strings.Join(Names(), ", "))
	}
	args := workloads.NewArgs(sp)
	if _, err := info.New(args); err != nil {
		return nil, err
	}
	if err := args.Check(info.Params); err != nil {
		return nil, err
	}
	return &Factory{Spec: spec, info: info, sp: sp}, nil
}
