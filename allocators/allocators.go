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

// Register makes an allocator factory available by name. It panics on a
// duplicate or invalid name.
func Register(info Info) {
	if info.New == nil {
		panic(fmt.Sprintf("allocators: %s registered without New", info.Name))
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
