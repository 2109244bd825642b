package strategies

import (
	"context"
	"slices"
	"time"

	"membench/strategies/internal/kernel"
	"membench/strategies/internal/search"
	"membench/workloads"
)

// genetic is OmniMalloc's GeneticAllocator (fpedd/omnimalloc, revision
// 2e9cf4ede72f: src/python/omnimalloc/allocators/genetic.py), which runs
// DEAP's eaSimple (DEAP/deap, revision 8a96fd3a7502: algorithms.varAnd,
// tools.cxOrdered, mutShuffleIndexes, selTournament, HallOfFame) over
// permutations of the buffers, each scored by the peak of its first-fit
// decoding (search.Placer). The first individuals are the six greedy
// orders (size, duration, area, conflict, conflict-size, start; see
// greedy.go), the rest random.sample permutations, population_size in
// all. Each generation picks population_size parents by tournaments of
// tournament_size (random.choice with replacement; the lowest peak wins,
// the first drawn among equals), copies them, mates consecutive pairs
// with probability crossover_prob by ordered crossover, mutates each copy
// with probability mutation_prob by swapping each position with
// probability 0.05 with another, scores the changed ones and replaces the
// population. The plan decodes the best individual ever scored (the first
// found among equals). It stops after max_generations generations or when
// timeout has passed, checked before each generation and before each
// scoring after the first; a generation cut short is dropped but its
// scored individuals count. Fewer than two buffers are placed in problem
// order.
//
// Drawing from search.PyRandom as DEAP's operators draw from CPython's
// random module, it returns OmniMalloc's plan bit for bit for the same
// seed and budget. The decoder's rules for fixed offsets and alignments
// are search.Placer's.
func init() {
	Register(Info{
		Name:    "genetic",
		Runtime: "omnimalloc",
		Kind:    Offsets,
		Doc: "OmniMalloc's genetic algorithm (DEAP eaSimple) over first-fit orders: greedy-seeded population, " +
			"tournament selection, ordered crossover, shuffle mutation",
		Params: []workloads.ParamDoc{
			search.SeedDoc,
			{Name: "population_size", Default: "100", Doc: "individuals per generation"},
			{Name: "max_generations", Default: "50", Doc: "generation budget"},
			{Name: "crossover_prob", Default: "0.7", Doc: "probability of mating a pair"},
			{Name: "mutation_prob", Default: "0.2", Doc: "probability of mutating an individual"},
			{Name: "tournament_size", Default: "3", Doc: "individuals per tournament"},
			search.TimeoutDoc,
		},
		Forms: workloads.FormAlign | workloads.FormFixed,
		New:   newGenetic,
	})
}

type genetic struct {
	seed                         uint64
	population, generations, tsz int
	cxProb, mutProb              float64
	timeout                      time.Duration
}

func newGenetic(args *workloads.Args) (Strategy, error) {
	ps := search.NewParams("genetic", args)
	g := genetic{
		seed:        ps.Seed(),
		population:  ps.Int("population_size", 100, 1),
		generations: ps.Int("max_generations", 50, 0),
		cxProb:      ps.Float("crossover_prob", 0.7, 0, 1, false),
		mutProb:     ps.Float("mutation_prob", 0.2, 0, 1, false),
		tsz:         ps.Int("tournament_size", 3, 1),
		timeout:     ps.Timeout(search.DefaultTimeout),
	}
	return g, ps.Err()
}

func (genetic) Name() string { return "genetic" }

// individual is a DEAP individual: a permutation and its fitness (the
// peak of its decoding), valid or not.
type individual struct {
	perm  []int32
	peak  int64
	valid bool
}

func (ind *individual) clone() *individual {
	c := *ind
	c.perm = slices.Clone(ind.perm)
	return &c
}

func (g genetic) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	deadline := search.NewDeadline(g.timeout)
	pl, err := search.NewPlacer(ctx, "genetic", p)
	if err != nil {
		return nil, err
	}
	n := pl.Len()
	offsets := make([]int64, n)
	if n < 2 {
		peak, err := pl.Place(ctx, kernel.InOrder(n), offsets)
		if err != nil {
			return nil, err
		}
		return &Plan{Offsets: offsets, Footprint: peak}, nil
	}
	rng := search.NewPyRandom(g.seed)
	var pop []*individual
	for _, name := range []string{search.OrderSize, search.OrderDuration, search.OrderArea,
		search.OrderConflict, search.OrderConflictSize, search.OrderStart} {
		if len(pop) == g.population {
			break
		}
		order, err := search.Order(name, p, pl)
		if err != nil {
			return nil, err
		}
		pop = append(pop, &individual{perm: order})
	}
	for len(pop) < g.population {
		perm := make([]int32, n)
		for i, v := range rng.SampleRange(n, n) {
			perm[i] = int32(v)
		}
		pop = append(pop, &individual{perm: perm})
	}
	var best *individual // the hall of fame of one
	// score evaluates the individuals without a fitness until the budget
	// runs out (the first always runs) and returns how many it got to.
	score := func(inds []*individual) (int, error) {
		for k, ind := range inds {
			if !ind.valid {
				if k > 0 && deadline.Expired() {
					return k, nil
				}
				peak, err := pl.Place(ctx, ind.perm, offsets)
				if err != nil {
					return 0, err
				}
				ind.peak, ind.valid = peak, true
			}
			if best == nil || ind.peak < best.peak {
				best = ind.clone()
			}
		}
		return len(inds), nil
	}
	if _, err := score(pop); err != nil {
		return nil, err
	}
	for range g.generations {
		if deadline.Expired() {
			break
		}
		off := make([]*individual, len(pop))
		for k := range off {
			winner := pop[rng.Below(len(pop))]
			for range g.tsz - 1 {
				if c := pop[rng.Below(len(pop))]; c.peak < winner.peak {
					winner = c
				}
			}
			off[k] = winner.clone()
		}
		for i := 1; i < len(off); i += 2 {
			if rng.Random() < g.cxProb {
				cxOrdered(rng, off[i-1].perm, off[i].perm)
				off[i-1].valid, off[i].valid = false, false
			}
		}
		for _, ind := range off {
			if rng.Random() < g.mutProb {
				mutShuffleIndexes(rng, ind.perm, 0.05)
				ind.valid = false
			}
		}
		done, err := score(off)
		if err != nil {
			return nil, err
		}
		if done < len(off) {
			break // the budget ran out mid-generation
		}
		pop = off
	}
	peak, err := pl.Place(ctx, best.perm, offsets)
	if err != nil {
		return nil, err
	}
	return &Plan{Offsets: offsets, Footprint: peak}, nil
}

// cxOrdered is DEAP's tools.cxOrdered on two permutations of the same
// length, in place, including its reading of each parent while it
// overwrites it.
func cxOrdered(rng *search.PyRandom, ind1, ind2 []int32) {
	size := len(ind1)
	ab := rng.SampleRange(size, 2)
	a, b := ab[0], ab[1]
	if a > b {
		a, b = b, a
	}
	holes1, holes2 := make([]bool, size), make([]bool, size)
	for i := range size {
		holes1[i], holes2[i] = true, true
	}
	for i := range size {
		if i < a || i > b {
			holes1[ind2[i]] = false
			holes2[ind1[i]] = false
		}
	}
	k1, k2 := b+1, b+1
	for i := range size {
		if v := ind1[(i+b+1)%size]; !holes1[v] {
			ind1[k1%size] = v
			k1++
		}
		if v := ind2[(i+b+1)%size]; !holes2[v] {
			ind2[k2%size] = v
			k2++
		}
	}
	for i := a; i <= b; i++ {
		ind1[i], ind2[i] = ind2[i], ind1[i]
	}
}

// mutShuffleIndexes is DEAP's tools.mutShuffleIndexes: each position is
// swapped, with probability indpb, with another drawn uniformly.
func mutShuffleIndexes(rng *search.PyRandom, ind []int32, indpb float64) {
	size := len(ind)
	for i := range size {
		if rng.Random() < indpb {
			j := rng.Randint(0, size-2)
			if j >= i {
				j++
			}
			ind[i], ind[j] = ind[j], ind[i]
		}
	}
}
