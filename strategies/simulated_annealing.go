package strategies

import (
	"context"
	"math"
	"slices"
	"time"

	"membench/strategies/internal/kernel"
	"membench/strategies/internal/search"
	"membench/workloads"
)

// simulated-annealing is OmniMalloc's SimulatedAnnealingAllocator
// (fpedd/omnimalloc, revision 2e9cf4ede72f:
// src/cpp/allocators/simulated_annealing.cpp, local_search.cpp and
// first_fit.cpp; defaults from src/python/omnimalloc/allocators/
// simulated_annealing.py). It searches over permutations of the buffers,
// each decoded by first fit (search.Placer), starting from the buffers by
// size, largest first. Each iteration takes a buffer that tops out at the
// current peak (uniformly among them) and swaps it in the order with an
// earlier buffer live with it (uniformly; any earlier one when none is),
// then keeps the swap unless the peak grows, and then with probability
// exp(-w/T), w the growth in percent of the current peak. T starts at
// initial_temperature and is multiplied by cooling_rate every iteration.
// It returns the best placement seen. The run stops after max_iterations
// iterations or when timeout has passed (checked before each).
//
// It draws from search.MT64 as the C++ draws from std::mt19937_64, so for
// the same seed and iterations the plan is the C++'s bit for bit, except
// that the acceptance test compares against Go's math.Exp where the C++
// calls the C library's exp, which may differ in the last bit. The
// decoder's rules for fixed offsets and alignments are search.Placer's.
func init() {
	Register(Info{
		Name:    "simulated-annealing",
		Runtime: "omnimalloc",
		Kind:    Offsets,
		Doc: "OmniMalloc's simulated annealing over first-fit orders: swap a peak buffer with an earlier " +
			"neighbour, accept worsenings with Metropolis probability under geometric cooling",
		Params: []workloads.ParamDoc{
			search.SeedDoc,
			{Name: "max_iterations", Default: "3000", Doc: "iteration budget"},
			{Name: "initial_temperature", Default: "3.0", Doc: "temperature at iteration 0, in percent of the peak"},
			{Name: "cooling_rate", Default: "0.998", Doc: "factor applied to the temperature every iteration, in (0, 1]"},
			search.TimeoutDoc,
		},
		Forms: workloads.FormAlign | workloads.FormFixed,
		New: func(args *workloads.Args) (Strategy, error) {
			return newAnnealing("simulated-annealing", args, 3.0, 0.998)
		},
	})
}

// annealing is the simulated-annealing kernel; hill-climb is it at
// temperature 0.
type annealing struct {
	name        string
	seed        uint64
	iterations  int
	temperature float64
	cooling     float64
	timeout     time.Duration
}

// newAnnealing reads the kernel's parameters; the hill climb (t0 == 0)
// has its schedule fixed at temperature 0 and cooling rate 1.
func newAnnealing(name string, args *workloads.Args, t0, cooling float64) (Strategy, error) {
	ps := search.NewParams(name, args)
	a := annealing{name: name, seed: ps.Seed(), iterations: ps.Int("max_iterations", 3000, 1), temperature: t0, cooling: cooling}
	if t0 > 0 {
		a.temperature = ps.Float("initial_temperature", t0, 0, math.Inf(1), false)
		a.cooling = ps.Float("cooling_rate", cooling, 0, 1, true)
	}
	a.timeout = ps.Timeout(search.DefaultTimeout)
	return a, ps.Err()
}

func (a annealing) Name() string { return a.name }

func (a annealing) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	pl, err := search.NewPlacer(ctx, a.name, p)
	if err != nil {
		return nil, err
	}
	deadline := search.NewDeadline(a.timeout)
	n := pl.Len()
	order := kernel.BySizeDescending(p.Buffers)
	cur, cand := make([]int64, n), make([]int64, n)
	peak, err := pl.Place(ctx, order, cur)
	if err != nil {
		return nil, err
	}
	if n < 2 {
		return &Plan{Offsets: cur, Footprint: peak}, nil
	}
	best, bestPeak := slices.Clone(cur), peak
	rng := search.NewMT64(a.seed)
	mover := search.NewMover(pl, rng)
	temp := a.temperature
	var peaks []int
	for range a.iterations {
		if deadline.Expired() {
			break
		}
		peaks = pl.PeakPositions(order, cur, peak, peaks)
		t, o, ok := mover.Propose(peaks, order)
		if !ok {
			temp *= a.cooling
			continue
		}
		order[t], order[o] = order[o], order[t]
		cp, err := pl.PlaceFrom(ctx, order, o, cur, cand)
		if err != nil {
			return nil, err
		}
		accept := cp <= peak
		if !accept && peak > 0 && temp > 0 {
			worse := 100 * float64(cp-peak) / float64(peak)
			accept = rng.Unit() < math.Exp(-worse/temp)
		}
		if accept {
			cur, cand, peak = cand, cur, cp
			if peak < bestPeak {
				copy(best, cur)
				bestPeak = peak
			}
		} else {
			order[t], order[o] = order[o], order[t]
		}
		temp *= a.cooling
	}
	return &Plan{Offsets: best, Footprint: bestPeak}, nil
}
