package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// The greedy orders of OmniMalloc's greedy.py (order_by_*), by the names
// membench gives them. Every sort is stable (Python's sorted with
// reverse=True keeps ties in input order).
const (
	OrderInput        = "input"         // GreedyAllocator: the problem's order
	OrderSize         = "size"          // order_by_size: largest first
	OrderDuration     = "duration"      // order_by_duration: longest lifetime first
	OrderArea         = "area"          // order_by_area: size x duration, largest first
	OrderConflict     = "conflict"      // order_by_conflict: most conflicts first, then largest
	OrderConflictSize = "conflict-size" // order_by_conflict_size: conflicts x size, then size
	OrderStart        = "start"         // order_by_start: earliest first, then largest, then id
)

// Orders lists the greedy orders in greedy.py's GreedyByAllAllocator
// sequence (which breaks ties between equal peaks by this order).
var Orders = []string{OrderInput, OrderSize, OrderDuration, OrderArea, OrderConflict, OrderConflictSize, OrderStart}

// duration is an OmniMalloc allocation's end - start for a buffer live
// over tasks [First, Last] (its half-open [First, Last+1)).
func duration(b workloads.Buffer) int64 { return int64(b.Last) - int64(b.First) + 1 }

// satMul is a*b held at math.MaxInt64, as Allocation::area and the
// conflict x size key saturate.
func satMul(a, b int64) int64 {
	if a > 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// Order returns the buffers of p in the named greedy order, the conflict
// degrees taken from pl.
func Order(name string, p *workloads.Problem, pl *Placer) ([]int32, error) {
	bufs := p.Buffers
	n := len(bufs)
	desc := func(keys ...func(i int32) int64) []int32 {
		neg := make([]func(int32) int64, len(keys))
		for k, key := range keys {
			neg[k] = func(i int32) int64 { return ^key(i) }
		}
		return kernel.StableOrder(n, neg...)
	}
	size := func(i int32) int64 { return bufs[i].Size }
	deg := func(i int32) int64 { return int64(pl.Degree(int(i))) }
	switch name {
	case OrderInput:
		return kernel.InOrder(n), nil
	case OrderSize:
		return kernel.BySizeDescending(bufs), nil
	case OrderDuration:
		return desc(func(i int32) int64 { return duration(bufs[i]) }), nil
	case OrderArea:
		return desc(func(i int32) int64 { return satMul(bufs[i].Size, duration(bufs[i])) }), nil
	case OrderConflict:
		return desc(deg, size), nil
	case OrderConflictSize:
		return desc(func(i int32) int64 { return satMul(deg(i), bufs[i].Size) }, size), nil
	case OrderStart:
		ids := IDs(p)
		order := kernel.InOrder(n)
		slices.SortStableFunc(order, func(a, b int32) int {
			return cmp.Or(cmp.Compare(bufs[a].First, bufs[b].First),
				cmp.Compare(bufs[b].Size, bufs[a].Size),
				strings.Compare(ids[a], ids[b]))
		})
		return order, nil
	}
	return nil, fmt.Errorf("unknown order %q (valid: %s)", name, strings.Join(Orders, ", "))
}
