package exact_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"

	"membench/strategies"
	"membench/strategies/strategytest"
)

// TestMILPProvesExactOptimum compares milp with exact on the first 21
// random problems of at most 30 buffers whose greedy plan (milp's start)
// is above LB_load, so that there is an optimum to prove, and that exact
// proves: milp must prove exact's optimum on every one, its footprint and
// bound both exact's. The first 12 are the problems of issue 21, on 4 of
// which CBC's bound stayed at LB_load; the stack bound (sizes rounded up
// to the alignment) meets the optimum on all 21, and the clique rows and
// the probe at that bound let CBC find a plan there. CBC runs on one
// thread under a node limit; the time limit is far above what any of
// them takes (a few seconds), so the limit that can bind is the node one.
func TestMILPProvesExactOptimum(t *testing.T) {
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc is not installed (apt-get install coinor-cbc)")
	}
	ex := lookup(t, "exact?timeout=60s")
	mi := lookup(t, "milp?timeout=300s&nodes=20000")
	greedy := lookup(t, "greedy?order=all")
	compared := 0
	for seed := uint64(0); seed < 200 && compared < 21; seed++ {
		p := strategytest.RandomProblem(seed, 30)
		if g, err := greedy.Plan(context.Background(), p); err != nil || g.Footprint == p.LoadBound() {
			continue // proved by LB_load without CBC
		}
		compared++
		t.Run(fmt.Sprintf("seed%d-n%d", seed, len(p.Buffers)), func(t *testing.T) {
			want, err := ex.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if !want.Optimal {
				t.Fatalf("exact did not prove its footprint %d optimal", want.Footprint)
			}
			got, err := mi.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if err := strategies.Validate(p, got); err != nil {
				t.Fatal(err)
			}
			if !got.Optimal || got.Footprint != want.Footprint || got.Bound != want.Footprint {
				t.Errorf("milp: footprint %d, bound %d, optimal %v; exact proved %d optimal", got.Footprint, got.Bound, got.Optimal, want.Footprint)
			}
		})
	}
	if compared < 21 {
		t.Errorf("compared %d problems, want 21", compared)
	}
}
