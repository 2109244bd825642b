package allocators

import (
	"fmt"
	"strings"
)

// Fragmentation that explains memory (issue 11): where the reserved bytes
// went at one moment of a replay. Reserved = requested + internal +
// external, where
//
//   - requested is the bytes the live tensors asked for,
//   - internal fragmentation is what rounding added to them (chunk bytes
//     handed out minus requested),
//   - external fragmentation is the reserved bytes not handed out (free
//     inside the allocator's segments, pools or arena), of which LargestFree
//     is the largest single free block.
//
// Replay computes these for every allocator from its own counts and Stats;
// an allocator that implements PoolReporter adds the split of its reserved
// bytes over its pools or bins.

// PoolBytes is the memory of one pool or bin of an allocator.
type PoolBytes struct {
	Name string `json:"name"`
	// Reserved is the bytes of reserved memory that belong to the pool.
	Reserved int64 `json:"reserved"`
	// Allocated is the chunk bytes handed out from it.
	Allocated int64 `json:"allocated"`
}

// Breakdown is the state of memory after one allocator call.
type Breakdown struct {
	// Event is the trace event that made the call, counted from 1 as
	// replay errors count them.
	Event int `json:"event"`
	// Reserved = Requested + Internal + External.
	Reserved  int64 `json:"reserved"`
	Requested int64 `json:"requested"`
	Internal  int64 `json:"internal"`
	External  int64 `json:"external"`
	// LargestFree is the largest free block inside Reserved.
	LargestFree int64 `json:"largest_free"`
	// Pools splits Reserved over the allocator's pools or bins.
	Pools []PoolBytes `json:"pools"`
}

// OOMBreakdown is the state of memory when a request failed.
type OOMBreakdown struct {
	Breakdown
	// ID is the tensor, Size its request and Stream the stream it was made on.
	ID     int   `json:"id"`
	Size   int64 `json:"size"`
	Stream int   `json:"stream"`
}

// breakdown takes the state of a after a call: requested and allocated are
// Replay's live requested and chunk bytes.
func breakdown(a Allocator, st Stats, event int, requested, allocated int64) Breakdown {
	b := Breakdown{Event: event, Reserved: st.Reserved, Requested: requested,
		Internal: allocated - requested, External: st.Reserved - allocated, LargestFree: st.LargestFreeChunk}
	if v, ok := a.(*Verifier); ok {
		a = v.a
	}
	if pr, ok := a.(PoolReporter); ok {
		b.Pools = pr.Pools()
	} else {
		b.Pools = []PoolBytes{{Name: "all", Reserved: st.Reserved, Allocated: allocated}}
	}
	return b
}

// String is the one-line form replay prints.
func (b *Breakdown) String() string {
	return fmt.Sprintf("reserved %d, in use %d, internal %d, external %d, largest free %d; pools: %s",
		b.Reserved, b.Requested+b.Internal, b.Internal, b.External, b.LargestFree, PoolsString(b.Pools))
}

// PoolsString lists pools as `name reserved/allocated`, leaving out empty
// ones (all of them empty: "none").
func PoolsString(ps []PoolBytes) string {
	var parts []string
	for _, p := range ps {
		if p.Reserved != 0 || p.Allocated != 0 {
			parts = append(parts, fmt.Sprintf("%s %d reserved, %d allocated", p.Name, p.Reserved, p.Allocated))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
