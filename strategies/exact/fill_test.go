package exact_test

import (
	"math/rand/v2"
	"testing"

	"membench/strategies"
	"membench/strategies/exact"
	"membench/strategies/strategytest"
	"membench/workloads"
	"membench/workloads/synthetic"
)

// zeroSlackProblem returns a random problem whose every task holds
// exactly c bytes: random intervals, topped up in each task by buffers of
// few buffers. Some have a perfect packing, some do not.
func zeroSlackProblem(rng *rand.Rand, n int) (*workloads.Problem, int64) {
	p := &workloads.Problem{Name: "zero-slack"}
	tasks := 3 + rng.IntN(4)
	sizes := []int64{1, 2, 3, 5, 8, 13}
	load := make([]int64, tasks)
	for i := range n {
		first := rng.IntN(tasks)
		last := min(tasks-1, first+1+rng.IntN(4))
		s := sizes[rng.IntN(len(sizes))]
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: s, First: first, Last: last})
		for t := first; t <= last; t++ {
			load[t] += s
		}
	}
	c := int64(0)
	for _, l := range load {
		c = max(c, l)
	}
	// Top up with buffers that span runs of tasks short of c: long
	// ones are rigid, so some problems have no perfect packing.
	for {
		t := 0
		for t < tasks && load[t] == c {
			t++
		}
		if t == tasks {
			break
		}
		// A random run of tasks short of c from t, by its least
		// shortfall, or by less.
		e := t
		for e+1 < tasks && load[e+1] < c && rng.IntN(3) > 0 {
			e++
		}
		short := c - load[t]
		for x := t; x <= e; x++ {
			short = min(short, c-load[x])
		}
		if short > 1 && rng.IntN(2) == 0 {
			short = 1 + rng.Int64N(short-1)
		}
		if len(p.Buffers) == max(13, n+4) {
			return nil, 0 // too many buffers: draw again
		}
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: len(p.Buffers), Size: short, First: t, Last: e})
		for x := t; x <= e; x++ {
			load[x] += short
		}
	}
	return p, c
}

// TestFillSmall checks the filler, each way, on thousands of small
// problems with no slack: a packing it finds must be valid and within the
// capacity, and where it proves that none exists the brute force must
// agree. The brute force also confirms that it finds one wherever one
// exists on the first few hundred.
func TestFillSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	impossible := 0
	for i := 0; i < 12000; {
		p, c := zeroSlackProblem(rng, 2+rng.IntN(9))
		if p == nil {
			continue
		}
		i++
		var want *bool
		truth := func() bool {
			if want == nil {
				w := bruteForce(p) == c
				want = &w
			}
			return *want
		}
		for _, rev := range []bool{false, true} {
			offs, ok, err := exact.FillPlan(p, c, rev)
			if err != nil {
				t.Fatalf("problem %d %s: %v", i, strategytest.Describe(p), err)
			}
			if ok {
				plan := &strategies.Plan{Offsets: offs, Footprint: strategies.Footprint(p.Buffers, offs)}
				if err := strategies.Validate(p, plan); err != nil || plan.Footprint != c {
					t.Fatalf("problem %d %s: footprint %d, want %d: %v", i, strategytest.Describe(p), plan.Footprint, c, err)
				}
			}
			if (!ok || i <= 300) && ok != truth() {
				t.Fatalf("problem %d %s (rev %v): packed %v, but a perfect packing exists: %v",
					i, strategytest.Describe(p), rev, ok, truth())
			}
		}
		if want != nil && !*want {
			impossible++
		}
	}
	// The test means little unless some have no perfect packing.
	if impossible < 20 {
		t.Fatalf("only %d of the problems have no perfect packing: want 20 or more", impossible)
	}
	t.Logf("%d problems had no perfect packing", impossible)
}

// TestFillPlanted packs small planted packings, which always have one.
func TestFillPlanted(t *testing.T) {
	for seed := range int64(200) {
		c := synthetic.DefaultAdversarial(5+int(seed%60), seed)
		c.Tasks, c.Capacity = 12, 64
		p, _ := synthetic.AdversarialGreedy(c)
		for _, rev := range []bool{false, true} {
			offs, ok, err := exact.FillPlan(p, c.Capacity, rev)
			if err != nil || !ok {
				t.Fatalf("seed %d (rev %v): packed %v, err %v; it has a perfect packing", seed, rev, ok, err)
			}
			plan := &strategies.Plan{Offsets: offs, Footprint: strategies.Footprint(p.Buffers, offs)}
			if err := strategies.Validate(p, plan); err != nil || plan.Footprint != c.Capacity {
				t.Fatalf("seed %d: footprint %d: %v", seed, plan.Footprint, err)
			}
		}
	}
}
