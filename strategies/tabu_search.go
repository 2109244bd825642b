package strategies

import (
	"context"
	"slices"
	"time"

	"membench/strategies/internal/kernel"
	"membench/strategies/internal/search"
	"membench/workloads"
)

// tabu-search is OmniMalloc's TabuSearchAllocator (fpedd/omnimalloc,
// revision 2e9cf4ede72f: src/cpp/allocators/tabu_search.cpp,
// local_search.cpp and first_fit.cpp; defaults from
// src/python/omnimalloc/allocators/tabu_search.py). It searches over
// permutations of the buffers, each decoded by first fit (search.Placer),
// starting from the buffers by size, largest first. Each iteration draws
// neighborhood_size peak swaps (simulated_annealing.go's move), decodes
// each, and moves to the one with the lowest peak (the first drawn among
// equals) that is not tabu, or is tabu but beats the best peak seen
// (aspiration); if every draw was tabu it stays. Taking a swap that was
// not tabu makes swapping the same two buffers tabu until tabu_tenure
// iterations later. It returns the best placement seen. The run stops
// after max_iterations iterations or when timeout has passed (checked
// before each iteration and each draw).
//
// With search.MT64 for std::mt19937_64, the plan for the same seed and
// iterations is the C++'s bit for bit. The decoder's rules for fixed
// offsets and alignments are search.Placer's.
func init() {
	Register(Info{
		Name:    "tabu-search",
		Runtime: "omnimalloc",
		Kind:    Offsets,
		Doc: "OmniMalloc's tabu search over first-fit orders: the best of a sampled neighbourhood of peak swaps, " +
			"reversals tabu for a tenure, aspiration by the best peak",
		Params: []workloads.ParamDoc{
			search.SeedDoc,
			{Name: "max_iterations", Default: "500", Doc: "iteration budget"},
			{Name: "neighborhood_size", Default: "20", Doc: "peak swaps drawn and decoded per iteration"},
			{Name: "tabu_tenure", Default: "15", Doc: "iterations a taken swap stays tabu"},
			search.TimeoutDoc,
		},
		Forms: workloads.FormAlign | workloads.FormFixed,
		New:   newTabuSearch,
	})
}

type tabuSearch struct {
	seed                     uint64
	iterations, hood, tenure int
	timeout                  time.Duration
}

func newTabuSearch(args *workloads.Args) (Strategy, error) {
	ps := search.NewParams("tabu-search", args)
	t := tabuSearch{
		seed:       ps.Seed(),
		iterations: ps.Int("max_iterations", 500, 1),
		hood:       ps.Int("neighborhood_size", 20, 1),
		tenure:     ps.Int("tabu_tenure", 15, 1),
		timeout:    ps.Timeout(search.DefaultTimeout),
	}
	return t, ps.Err()
}

func (tabuSearch) Name() string { return "tabu-search" }

func (t tabuSearch) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	pl, err := search.NewPlacer(ctx, "tabu-search", p)
	if err != nil {
		return nil, err
	}
	deadline := search.NewDeadline(t.timeout)
	n := pl.Len()
	order := kernel.BySizeDescending(p.Buffers)
	cur := make([]int64, n)
	peak, err := pl.Place(ctx, order, cur)
	if err != nil {
		return nil, err
	}
	if n < 2 {
		return &Plan{Offsets: cur, Footprint: peak}, nil
	}
	best, bestPeak := slices.Clone(cur), peak
	cand, pick := make([]int64, n), make([]int64, n)
	mover := search.NewMover(pl, search.NewMT64(t.seed))
	// tabuUntil maps the unordered pair of buffers a swap exchanges to
	// the iteration up to which swapping them is tabu.
	tabuUntil := map[[2]int32]int{}
	key := func(a, b int32) [2]int32 { return [2]int32{min(a, b), max(a, b)} }
	var peaks []int
	for it := range t.iterations {
		if deadline.Expired() {
			break
		}
		peaks = pl.PeakPositions(order, cur, peak, peaks)
		var p1, p2 int
		pickPeak := int64(-1)
		pickTabu := false
		for range t.hood {
			if deadline.Expired() {
				break
			}
			a, b, ok := mover.Propose(peaks, order)
			if !ok {
				continue
			}
			until, seen := tabuUntil[key(order[a], order[b])]
			tabu := seen && until > it
			order[a], order[b] = order[b], order[a]
			cp, err := pl.PlaceFrom(ctx, order, b, cur, cand)
			if err != nil {
				return nil, err
			}
			order[a], order[b] = order[b], order[a]
			if (!tabu || cp < bestPeak) && (pickPeak < 0 || cp < pickPeak) {
				pickPeak, p1, p2, pickTabu = cp, a, b, tabu
				cand, pick = pick, cand
			}
		}
		if pickPeak < 0 {
			continue // every draw was tabu without aspiration
		}
		order[p1], order[p2] = order[p2], order[p1]
		cur, pick = pick, cur
		peak = pickPeak
		if !pickTabu {
			tabuUntil[key(order[p1], order[p2])] = it + t.tenure
		}
		if peak < bestPeak {
			copy(best, cur)
			bestPeak = peak
		}
	}
	return &Plan{Offsets: best, Footprint: bestPeak}, nil
}
