package strategies_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"membench/strategies"
	"membench/strategies/internal/kernel"
	"membench/strategies/internal/search"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// randomSearchOld is random search as one loop, before it decoded trials
// at once: the reference of TestRandomSearchWorkers.
func randomSearchOld(ctx context.Context, p *workloads.Problem, trials int, seed uint64) ([]int64, int64, error) {
	pl, err := search.NewPlacer(ctx, "random-search", p)
	if err != nil {
		return nil, 0, err
	}
	n := pl.Len()
	rng := search.NewPyRandom(seed)
	order := kernel.InOrder(n)
	swap := func(i, j int) { order[i], order[j] = order[j], order[i] }
	offsets := make([]int64, n)
	rng.Shuffle(n, swap)
	bestPeak, err := pl.Place(ctx, order, offsets)
	if err != nil {
		return nil, 0, err
	}
	best := slices.Clone(offsets)
	for range trials - 1 {
		rng.Shuffle(n, swap)
		peak, err := pl.PlaceBelow(ctx, order, offsets, bestPeak)
		if err != nil {
			return nil, 0, err
		}
		if peak < bestPeak {
			bestPeak = peak
			copy(best, offsets)
		}
	}
	return best, bestPeak, nil
}

// TestRandomSearchWorkers requires random search to return the plan of
// the loop it was (randomSearchOld), offsets and footprint, with any
// number of workers: on random problems of every flavour (dense and
// sparse lifetimes, zero and huge sizes), tiny ones whose trials often
// tie, and with alignments of their own and pins.
func TestRandomSearchWorkers(t *testing.T) {
	ctx := context.Background()
	var probs []*workloads.Problem
	for seed := range uint64(60) {
		p := strategytest.RandomProblem(seed, 120)
		if seed%3 == 0 {
			p = strategytest.WithForms(p, workloads.FormAlign|workloads.FormFixed, seed)
		}
		probs = append(probs, p)
	}
	for seed := range uint64(20) {
		probs = append(probs, strategytest.RandomProblem(1000+seed, 6)) // ties
	}
	for _, p := range probs {
		for _, trials := range []int{1, 2, 7, 40} {
			seed := uint64(len(p.Buffers) + trials)
			want, wantPeak, err := randomSearchOld(ctx, p, trials, seed)
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{0, 1, 2, 3, 8} {
				s, err := strategies.Lookup(fmt.Sprintf("random-search?num_trials=%d&seed=%d&workers=%d", trials, seed, workers))
				if err != nil {
					t.Fatal(err)
				}
				plan, err := s.Plan(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if plan.Footprint != wantPeak || !slices.Equal(plan.Offsets, want) {
					t.Fatalf("%s, %d trials, %d workers: footprint %d, offsets %v; want %d, %v",
						p.Name, trials, workers, plan.Footprint, plan.Offsets, wantPeak, want)
				}
			}
		}
	}
	if _, err := strategies.Lookup("random-search?workers=-1"); err == nil || err.Error() != "random-search: parameter workers=-1: want an integer of at least 0" {
		t.Errorf("workers=-1: error %v, want the parameter's", err)
	}
}
