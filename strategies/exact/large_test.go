package exact_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"membench/strategies"
	"membench/strategies/exact"
	"membench/workloads"
)

// TestSizeOf checks the counts that decide whether a problem is searched
// against the lists the search builds, on random problems.
func TestSizeOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 20))
	for i := range 300 {
		p := smallProblem(rng, 1+rng.IntN(40), 0)
		pairs, secBufs, wantPairs, wantSecBufs := exact.SizeOf(p)
		if pairs != wantPairs || secBufs != wantSecBufs {
			t.Fatalf("problem %d: counted %d pairs, %d buffer-sections; the search lists %d, %d",
				i, pairs, secBufs, wantPairs, wantSecBufs)
		}
	}
}

// crowded returns n buffers all live at once, with distinct sizes: more
// than exact.MaxPairs conflicting pairs when n is large enough.
func crowded(n int) *workloads.Problem {
	p := &workloads.Problem{Name: "crowded"}
	for i := range n {
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: int64(1 + i%97), First: i % 3, Last: 3 + i%5})
	}
	return p
}

// TestTooLarge plans a problem with more conflicting pairs than the
// search holds: exact returns a validated heuristic plan at once, bounded
// by LB_load, with a node budget too (which, for a problem it searched,
// would be spent building its lists first), and fails in feasibility
// mode below LB_load or when the plan found does not fit.
func TestTooLarge(t *testing.T) {
	n := 6000
	p := crowded(n)
	if int64(n)*int64(n-1)/2 <= exact.MaxPairs {
		t.Fatalf("%d buffers are not too many", n)
	}
	lb := p.LoadBound()
	for _, spec := range []string{"exact?nodes=1000", "exact?timeout=1ms"} {
		plan, err := lookup(t, spec).Plan(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if err := strategies.Validate(p, plan); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if plan.Bound != min(lb, plan.Footprint) || plan.Optimal != (plan.Footprint == lb) {
			t.Fatalf("%s: footprint %d bound %d optimal %v, LB_load %d", spec, plan.Footprint, plan.Bound, plan.Optimal, lb)
		}
	}
	_, err := lookup(t, fmt.Sprintf("exact?nodes=1000&capacity=%d", lb-1)).Plan(context.Background(), p)
	if !errors.Is(err, exact.ErrInfeasible) {
		t.Fatalf("capacity below LB_load: %v, want ErrInfeasible", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lookup(t, "exact").Plan(ctx, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
}

// TestHeuristicDeadline checks that the heuristic plan exact starts from
// gives way to the deadline (exact then starts from its own first fit),
// and is best-of's plan without one.
func TestHeuristicDeadline(t *testing.T) {
	p := smallProblem(rand.New(rand.NewPCG(1, 2)), 12, 0)
	offs, err := exact.Heuristic(p, time.Now().Add(-time.Second))
	if err != nil || offs != nil {
		t.Fatalf("past the deadline: offsets %v, error %v; want none and no error", offs, err)
	}
	offs, err = exact.Heuristic(p, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := lookup(t, "best-of").Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(offs, want.Offsets) {
		t.Fatalf("offsets %v, want best-of's %v", offs, want.Offsets)
	}
	plan, err := lookup(t, "exact?timeout=1ns").Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := strategies.Validate(p, plan); err != nil {
		t.Fatal(err)
	}
}

// TestLargeIsBestOfHeuristics: under a deadline far beyond their run (the
// default 10 s is not, on a loaded machine), a problem too large to
// search gets the least footprint of every large-problem heuristic, each
// planned on its own; on this one minimalloc's descent is the only one to
// reach it, so leaving a heuristic out fails the test.
func TestLargeIsBestOfHeuristics(t *testing.T) {
	rng := rand.New(rand.NewPCG(0, 1))
	p := &workloads.Problem{Name: "random, crowded"}
	for i := range 8500 {
		f := rng.IntN(30)
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: 1 + rng.Int64N(1000), First: f, Last: f + rng.IntN(20)})
	}
	if pairs, _, _, _ := exact.SizeOf(p); pairs <= exact.MaxPairs {
		t.Fatalf("%d pairs: not too large to search", pairs)
	}
	plan, err := lookup(t, "exact?timeout=10m").Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	best, by := int64(-1), map[int64][]string{}
	for _, spec := range exact.LargeHeuristics {
		h, err := lookup(t, spec).Plan(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		by[h.Footprint] = append(by[h.Footprint], spec)
		if best < 0 || h.Footprint < best {
			best = h.Footprint
		}
	}
	t.Logf("footprints: %v", by)
	if plan.Footprint != best {
		t.Errorf("exact's footprint %d, want the heuristics' best %d (%v)", plan.Footprint, best, by[best])
	}
	if len(by[best]) != 1 {
		t.Errorf("the best footprint %d is reached by %v: the test no longer shows that each heuristic counts", best, by[best])
	}
}
