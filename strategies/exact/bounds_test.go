package exact_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"membench/strategies/exact"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// TestQuantum: the quantum divides every size, alignment above 1, fixed
// offset and window end, and with it exact still proves the optimum the
// brute force finds, on problems whose sizes share a factor.
func TestQuantum(t *testing.T) {
	w := &workloads.Window{Lo: 6, Hi: 12}
	for _, c := range []struct {
		p    *workloads.Problem
		want int64
	}{
		{&workloads.Problem{Buffers: []workloads.Buffer{{Size: 1024}, {Size: 3072}}}, 1024},
		{&workloads.Problem{Alignment: 512, Buffers: []workloads.Buffer{{Size: 1024}, {Size: 3072}}}, 512},
		{&workloads.Problem{Alignment: 1, Buffers: []workloads.Buffer{{Size: 1024}, {Size: 3072}}}, 1024},
		{&workloads.Problem{Buffers: []workloads.Buffer{{Size: 12}, {Size: 24}}, Fixed: []int64{-1, 8}}, 4},
		{&workloads.Problem{Buffers: []workloads.Buffer{{Size: 12, Last: 4}, {Size: 24}},
			Gaps: [][]workloads.Gap{{{First: 1, Last: 2, Window: w}}, nil}}, 6},
		{&workloads.Problem{Buffers: []workloads.Buffer{{Size: 7}}}, 7},
	} {
		_, q, err := exact.WindowBound(c.p, 0)
		if err != nil || q != c.want {
			t.Errorf("%s: quantum %d (%v), want %d", strategytest.Describe(c.p), q, err, c.want)
		}
	}
	s := lookup(t, "exact?nodes=1000000")
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range 150 {
		p := smallProblem(rng, 1+rng.IntN(9), []int64{0, 4, 6, 32}[rng.IntN(4)])
		for k := range p.Buffers {
			p.Buffers[k].Size *= 12
		}
		want := bruteForce(p)
		plan, err := s.Plan(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Footprint != want || !plan.Optimal || plan.Bound != want {
			t.Fatalf("problem %d %s: footprint %d bound %d optimal %v, want the optimum %d proved",
				i, strategytest.Describe(p), plan.Footprint, plan.Bound, plan.Optimal, want)
		}
	}
}

// TestWindowBound: the window bound never passes the optimum (the brute
// force's), and on problems where sections interact it passes LB_load.
func TestWindowBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	above := 0
	for i := range 300 {
		p := smallProblem(rng, 1+rng.IntN(10), []int64{0, 0, 4}[rng.IntN(3)])
		want := bruteForce(p)
		got, _, err := exact.WindowBound(p, 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		if got > want {
			t.Fatalf("problem %d %s: window bound %d above the optimum %d", i, strategytest.Describe(p), got, want)
		}
		if got > p.LoadBound() {
			above++
		}
	}
	t.Logf("above LB_load: %d", above)
	if above < 20 {
		t.Fatalf("the window bound passed LB_load on %d problems of 300, want 20 or more", above)
	}
}
