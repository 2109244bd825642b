package strategies

import (
	"context"
	"slices"
	"time"

	"membench/strategies/internal/kernel"
	"membench/strategies/internal/search"
	"membench/workloads"
)

// random-search is OmniMalloc's RandomAllocator (fpedd/omnimalloc,
// revision 2e9cf4ede72f: src/python/omnimalloc/allocators/random.py): it
// shuffles the problem order num_trials times in succession (each
// shuffle starts from the last) with CPython's random.shuffle, decodes
// each order by first fit (search.Placer) and keeps the first order with
// the lowest peak. With search.PyRandom for random.Random(seed), the
// plan for the same seed and trials is OmniMalloc's bit for bit.
// OmniMalloc gives it no wall-time budget; membench's timeout (none by
// default) stops it between trials. A decode stops once its peak reaches
// the best (search.Placer.PlaceBelow): that order could not be kept. The decoder's rules for fixed offsets
// and alignments are search.Placer's.
func init() {
	Register(Info{
		Name:    "random-search",
		Runtime: "omnimalloc",
		Kind:    Offsets,
		Doc:     "OmniMalloc's random search: the best first-fit decoding of num_trials successive random shuffles",
		Params: []workloads.ParamDoc{
			{Name: "num_trials", Default: "100", Doc: "shuffles decoded"},
			search.SeedDoc,
			{Name: "timeout", Default: "0", Doc: "wall-time budget, 0 for none (OmniMalloc has none)"},
		},
		Forms: workloads.FormAlign | workloads.FormFixed,
		New: func(args *workloads.Args) (Strategy, error) {
			ps := search.NewParams("random-search", args)
			r := randomSearch{trials: ps.Int("num_trials", 100, 1), seed: ps.Seed(), timeout: ps.Timeout("0")}
			return r, ps.Err()
		},
	})
}

type randomSearch struct {
	trials  int
	seed    uint64
	timeout time.Duration
}

func (randomSearch) Name() string { return "random-search" }

func (r randomSearch) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	pl, err := search.NewPlacer(ctx, "random-search", p)
	if err != nil {
		return nil, err
	}
	deadline := search.NewDeadline(r.timeout)
	n := pl.Len()
	rng := search.NewPyRandom(r.seed)
	order := kernel.InOrder(n)
	swap := func(i, j int) { order[i], order[j] = order[j], order[i] }
	offsets := make([]int64, n)
	rng.Shuffle(n, swap)
	bestPeak, err := pl.Place(ctx, order, offsets)
	if err != nil {
		return nil, err
	}
	best := slices.Clone(offsets)
	for range r.trials - 1 {
		if deadline.Expired() {
			break
		}
		rng.Shuffle(n, swap)
		// Only a lower peak is kept: a decode stops once it reaches the best.
		peak, err := pl.PlaceBelow(ctx, order, offsets, bestPeak)
		if err != nil {
			return nil, err
		}
		if peak < bestPeak {
			bestPeak = peak
			copy(best, offsets)
		}
	}
	return &Plan{Offsets: best, Footprint: bestPeak}, nil
}
