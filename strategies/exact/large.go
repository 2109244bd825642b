package exact

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"membench/strategies"
	_ "membench/strategies/minimalloc" // one of largeHeuristics
	"membench/workloads"
)

// The search keeps, per buffer, the buffers it overlaps and, per section
// of time, the buffers live there: 8 bytes a conflicting pair and 4 a
// buffer-section. Problems past these caps are not searched (plain ones:
// with forms the search is the only planner that honours them): at the
// caps the lists take about 128 MB each, where idealloc's Y_1 (62,185
// buffers, 180 million conflicting pairs) would take 3 GB and minutes to
// build.
const (
	maxPairs       = 1 << 24
	maxSectionBufs = 1 << 25
)

// largeHeuristics are the heuristics a problem too large to search is
// planned by, in order, each while the deadline allows (all of them stop
// when their context ends): best-of's members that do, then MiniMalloc's
// canonical search, whose first descent at the problem's capacity (the
// sum of the sizes where it has none) is a greedy of its own: on
// idealloc's Y_1 it reaches LB_load (18 s, 0.73 GB) where the others
// stop 0.34% above.
var largeHeuristics = []string{"offset-greedy-by-size", "xla-heap", "tflm-greedy", "minimalloc"}

// tooLarge reports whether p, which has no forms, has more conflicting
// pairs or buffer-sections than the search can hold (maxPairs,
// maxSectionBufs).
func tooLarge(p *workloads.Problem) bool {
	pairs, secBufs := sizeOf(p)
	return pairs > maxPairs || secBufs > maxSectionBufs
}

// sizeOf counts, in O(n log n) without listing them, the pairs of
// buffers of p (of non-zero size, without forms) whose lifetimes meet,
// and the buffer-sections: the sum over buffers of the sections of time
// they live in.
func sizeOf(p *workloads.Problem) (pairs, secBufs int64) {
	n := len(p.Buffers)
	firsts := make([]int, 0, n)
	points := make([]int, 0, 2*n)
	for _, b := range p.Buffers {
		if b.Size > 0 {
			firsts = append(firsts, b.First)
			points = append(points, b.First, b.Last+1)
		}
	}
	slices.Sort(firsts)
	slices.Sort(points)
	points = slices.Compact(points)
	for _, b := range p.Buffers {
		if b.Size == 0 {
			continue
		}
		// Each pair is counted once, by the buffer that starts first
		// (the later index among equal starts): the buffers starting in
		// [First, Last] less those starting with it counted by them.
		lo, _ := slices.BinarySearch(firsts, b.First)
		hi, _ := slices.BinarySearch(firsts, b.Last+1)
		pairs += int64(hi - lo - 1)
		s0, _ := slices.BinarySearch(points, b.First)
		s1, _ := slices.BinarySearch(points, b.Last+1)
		secBufs += int64(s1 - s0)
	}
	// Equal starts were counted both ways: each such pair once too many.
	for i := 0; i < len(firsts); {
		j := i
		for j < len(firsts) && firsts[j] == firsts[i] {
			j++
		}
		pairs -= int64(j-i) * int64(j-i-1) / 2
		i = j
	}
	return pairs, secBufs
}

// planLarge plans a problem too large to search: the best plan of
// largeHeuristics found before the deadline (the first one runs to the
// end whatever the deadline, so that there is a plan), bounded by
// LB_load. In feasibility mode it fails unless that plan fits.
func (e exact) planLarge(ctx context.Context, p *workloads.Problem, deadline time.Time) (*strategies.Plan, error) {
	lb := p.LoadBound()
	if e.capacity > 0 && lb > e.capacity {
		return nil, fmt.Errorf("exact: %w in capacity %d (proved: LB_load is %d)", ErrInfeasible, e.capacity, lb)
	}
	var best *strategies.Plan
	for i, spec := range largeHeuristics {
		s, err := strategies.Lookup(spec)
		if err != nil {
			return nil, fmt.Errorf("exact: %w", err)
		}
		hctx, cancel := ctx, context.CancelFunc(func() {})
		if i > 0 && !deadline.IsZero() {
			hctx, cancel = context.WithDeadline(ctx, deadline)
		}
		plan, err := s.Plan(hctx, p)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) {
				break
			}
			return nil, fmt.Errorf("exact: %s: %w", spec, err)
		}
		fp := strategies.Footprint(p.Buffers, plan.Offsets)
		if best == nil || fp < best.Footprint {
			best = &strategies.Plan{Offsets: slices.Clone(plan.Offsets), Footprint: fp}
		}
		if best.Footprint <= lb || !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
	}
	if e.capacity > 0 && best.Footprint > e.capacity {
		return nil, fmt.Errorf("exact: found no plan in capacity %d within the budget (none proved impossible either; the problem is too large to search)", e.capacity)
	}
	best.Bound = lb
	best.Optimal = best.Footprint <= lb
	if best.Optimal {
		best.Bound = best.Footprint
	}
	if err := strategies.Validate(p, best); err != nil {
		return nil, fmt.Errorf("exact: internal error, the plan found is invalid: %w", err)
	}
	return best, nil
}
