package exact_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"

	"membench/strategies"
	"membench/strategies/strategytest"
)

// TestMILPProvesExactOptimum compares milp with exact on the first 12
// random problems of at most 30 buffers whose greedy plan (milp's start)
// is above LB_load, so that CBC has the optimum to prove, and that exact
// proves: where milp proves optimality it has exact's footprint, and
// always its footprint is at least exact's optimum and its bound at most
// that. Big-M programs are weak: CBC's bound stays at LB_load on the
// others, so it closes the gap in its 10 s on 6 to 8 of these (measured on
// a loaded machine), 6 of them in well under a second; it must on half.
// Clique rows, mirror symmetry breaking and a better-than-greedy row did
// not raise the bound on the rest (tried; see docs/DESIGN.md).
func TestMILPProvesExactOptimum(t *testing.T) {
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc is not installed (apt-get install coinor-cbc)")
	}
	ex := lookup(t, "exact?timeout=20s")
	mi := lookup(t, "milp?timeout=10s")
	greedy := lookup(t, "greedy?order=all")
	compared, proved := 0, 0
	for seed := uint64(0); seed < 200 && compared < 12; seed++ {
		p := strategytest.RandomProblem(seed, 30)
		if g, err := greedy.Plan(context.Background(), p); err != nil || g.Footprint == p.LoadBound() {
			continue // proved by LB_load without CBC
		}
		t.Run(fmt.Sprintf("seed%d-n%d", seed, len(p.Buffers)), func(t *testing.T) {
			want, err := ex.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if !want.Optimal {
				t.Skipf("exact did not prove its footprint %d optimal", want.Footprint)
			}
			got, err := mi.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if err := strategies.Validate(p, got); err != nil {
				t.Fatal(err)
			}
			compared++
			switch {
			case got.Optimal && (got.Footprint != want.Footprint || got.Bound != want.Footprint):
				t.Errorf("milp proved footprint %d (bound %d) optimal; exact proved %d", got.Footprint, got.Bound, want.Footprint)
			case got.Footprint < want.Footprint || got.Bound > want.Footprint:
				t.Errorf("milp: footprint %d, bound %d; exact proved %d optimal", got.Footprint, got.Bound, want.Footprint)
			case got.Optimal:
				proved++
			default:
				t.Logf("milp did not close the gap: footprint %d, bound %d, optimum %d", got.Footprint, got.Bound, want.Footprint)
			}
		})
	}
	if compared < 12 || proved < compared/2 {
		t.Errorf("milp proved %d of %d optima, want at least half of 12", proved, compared)
	}
}
