package strategies

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"membench/strategies/internal/kernel"
	"membench/strategies/internal/search"
)

// TestRandomTrialsDispatch runs randomTrials over a fake decoder whose
// trials have set peaks (several lowest ties among them) and take turns
// set by the test, and requires: a free worker starts the next trial
// while an earlier one still runs (trial 0 runs until trial 2 has
// started, and would wait forever for a worker that waited for it to be
// judged); every trial's bound is no lower than the best peak of the
// trials before it, so that no trial the loop would keep is stopped; and
// the plan is the first trial of the lowest peak, with its offsets,
// whatever the workers.
func TestRandomTrialsDispatch(t *testing.T) {
	const n, trials, seed = 24, 12, 7
	peaks := []int64{50, 40, 45, 30, 60, 30, 35, 20, 25, 20, 70, 20}
	// The trials' orders: the successive shuffles randomTrials draws.
	rng := search.NewPyRandom(seed)
	order := kernel.InOrder(n)
	var orders [][]int32
	for range trials {
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, o := range orders {
			if slices.Equal(o, order) {
				t.Fatal("two shuffles agree: pick another seed")
			}
		}
		orders = append(orders, slices.Clone(order))
	}
	trialOf := func(o []int32) int {
		for k, w := range orders {
			if slices.Equal(o, w) {
				return k
			}
		}
		t.Fatalf("order %v is none of the shuffles", o)
		return -1
	}
	for _, workers := range []int{1, 2, 3, 5} {
		var mu sync.Mutex
		bounds := make([]int64, trials)
		started2 := make(chan struct{})
		newDecoder := func() decodeFunc {
			return func(ctx context.Context, order []int32, offsets []int64, bound int64) (int64, error) {
				k := trialOf(order)
				mu.Lock()
				bounds[k] = bound
				mu.Unlock()
				switch {
				case k == 2:
					close(started2)
				case k == 0 && workers > 1:
					select {
					case <-started2:
					case <-time.After(30 * time.Second):
						t.Errorf("%d workers: trial 2 did not start while trial 0 ran", workers)
					}
				}
				for i := range offsets {
					offsets[i] = int64(k)
				}
				if peaks[k] >= bound {
					return bound, nil // stopped there, as PlaceBelow may
				}
				return peaks[k], nil
			}
		}
		best, peak, err := randomTrials(context.Background(), n, newDecoder, trials, seed, search.NewDeadline(0), workers)
		if err != nil {
			t.Fatal(err)
		}
		// Trial 7 is the first of the lowest (20).
		if peak != 20 || best[0] != 7 || best[n-1] != 7 {
			t.Errorf("%d workers: peak %d, offsets of trial %d; want 20 and trial 7", workers, peak, best[0])
		}
		for k := 1; k < trials; k++ {
			if before := slices.Min(peaks[:k]); bounds[k] < before {
				t.Errorf("%d workers: trial %d bounded at %d, below %d, the best before it", workers, k, bounds[k], before)
			}
		}
	}
}
