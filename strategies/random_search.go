package strategies

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"sync"
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
// default) stops it between trials. The decoder's rules for fixed offsets
// and alignments are search.Placer's.
//
// membench decodes up to workers shuffles at once (randomTrials); the
// plan does not depend on how many, nor on how their times fall: the
// shuffles are drawn in order, and the kept one is chosen in trial order
// by OmniMalloc's rule.
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
			{Name: "workers", Default: "0", Doc: "shuffles decoded at once, 0 for GOMAXPROCS (a membench extension; the plan is the same for any)"},
		},
		Forms: workloads.FormAlign | workloads.FormFixed,
		New: func(args *workloads.Args) (Strategy, error) {
			ps := search.NewParams("random-search", args)
			r := randomSearch{trials: ps.Int("num_trials", 100, 1), seed: ps.Seed(), timeout: ps.Timeout("0"),
				workers: ps.Int("workers", 0, 0)}
			return r, ps.Err()
		},
	})
}

type randomSearch struct {
	trials  int
	seed    uint64
	timeout time.Duration
	workers int
}

func (randomSearch) Name() string { return "random-search" }

func (r randomSearch) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	pl, err := search.NewPlacer(ctx, "random-search", p)
	if err != nil {
		return nil, err
	}
	workers := r.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	decoder := func() decodeFunc { return pl.NewDecoder().PlaceBelow }
	best, bestPeak, err := randomTrials(ctx, pl.Len(), decoder, r.trials, r.seed, search.NewDeadline(r.timeout), min(workers, r.trials))
	if err != nil {
		return nil, err
	}
	return &Plan{Offsets: best, Footprint: bestPeak}, nil
}

// decodeFunc decodes order into offsets by first fit, stopping once the
// peak reaches bound (search.Decoder.PlaceBelow).
type decodeFunc func(ctx context.Context, order []int32, offsets []int64, bound int64) (int64, error)

// trialsAhead is how many trials past the first not yet judged
// randomTrials starts, per worker: it bounds the finished trials whose
// offsets wait to be judged.
const trialsAhead = 4

// randomTrials is random search's loop: trial k decodes the k-th shuffle
// of n buffers and is kept when its peak is below that of every earlier
// trial, so the first of the lowest wins. A decode stops once its peak
// reaches a bound (search.Decoder.PlaceBelow), as such an order could not
// be kept. With one worker the bound is the best peak so far, as in a
// loop. With w workers (each with a decoder from newDecoder), a trial
// starts as soon as a worker is free (up to trialsAhead*w past the first
// not yet judged), bounded by the lowest peak any trial reported so far,
// all of them earlier ones. That bound is never below the best true peak
// of the trials before k: a trial that ran through reports its true
// peak, and one that stopped reports at least its own bound, which by
// the same argument was no lower than the best before it, hence than
// the best before k. So a trial stopped at its bound was not to be kept,
// and the others are judged in trial order on their full peaks: the plan
// is the loop's whatever the workers and however the trials' times fall
// (where a losing trial stops may differ). The shuffles come from the
// one generator, in order; the deadline is checked before each trial
// after the first.
func randomTrials(ctx context.Context, n int, newDecoder func() decodeFunc, trials int, seed uint64, deadline search.Deadline,
	workers int) ([]int64, int64, error) {
	type job struct {
		k       int
		bound   int64
		order   []int32
		offsets []int64
	}
	type result struct {
		job
		peak int64
		err  error
	}
	jobs := make(chan job)
	results := make(chan result, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			decode := newDecoder()
			for j := range jobs {
				peak, err := decode(ctx, j.order, j.offsets, j.bound)
				results <- result{job: j, peak: peak, err: err}
			}
		}()
	}
	defer func() {
		close(jobs)
		wg.Wait()
	}()

	rng := search.NewPyRandom(seed)
	order := kernel.InOrder(n)
	swap := func(i, j int) { order[i], order[j] = order[j], order[i] }
	var spare [][]int64 // offsets and orders free for reuse
	var spareOrders [][]int32
	done := map[int]result{} // finished trials not yet judged
	judged := 0              // trials 0..judged-1 are judged
	var best []int64
	bestPeak := int64(math.MaxInt64)
	reported := int64(math.MaxInt64) // the lowest peak any trial reported
	next, running := 0, 0
	var err error
	for {
		for running < workers && next < trials && err == nil && next-judged < trialsAhead*workers &&
			(next == 0 || !deadline.Expired()) {
			rng.Shuffle(n, swap)
			j := job{k: next, bound: reported}
			j.offsets, spare = reuse(spare, n)
			j.order, spareOrders = reuse(spareOrders, n)
			copy(j.order, order)
			jobs <- j
			next++
			running++
		}
		if running == 0 {
			break
		}
		res := <-results
		running--
		if res.err != nil {
			err = cmp.Or(err, res.err)
			continue
		}
		reported = min(reported, res.peak)
		done[res.k] = res
		// Judge the finished trials in trial order, as the loop would.
		for {
			d, ok := done[judged]
			if !ok {
				break
			}
			delete(done, d.k)
			free := d.offsets
			if d.peak < bestPeak {
				free, best, bestPeak = best, d.offsets, d.peak
			}
			if free != nil {
				spare = append(spare, free)
			}
			spareOrders = append(spareOrders, d.order)
			judged++
		}
	}
	if err != nil {
		return nil, 0, err
	}
	return best, bestPeak, nil
}

// reuse takes a slice of length n from free, or makes one.
func reuse[T any](free [][]T, n int) ([]T, [][]T) {
	if k := len(free); k > 0 {
		return free[k-1], free[:k-1]
	}
	return make([]T, n), free
}
