package synthetic

import (
	"context"
	"testing"

	"membench/strategies"
)

// Greedy planners on the planted packing need notably more than the
// optimum (= LB_load = capacity), while the planted plan reaches it.
func TestAdversarialDefeatsGreedy(t *testing.T) {
	for _, tc := range []struct {
		name string
		min  float64
	}{{"offset-greedy-by-size", 1.2}, {"greedy-by-size", 1.5}} {
		name := tc.name
		s, err := strategies.Lookup(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for seed := int64(1); seed <= 3; seed++ {
			p, _ := AdversarialGreedy(DefaultAdversarial(1000, seed))
			plan, err := s.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			ratio := float64(plan.Footprint) / float64(p.LoadBound())
			t.Logf("%s seed %d: footprint / LB_load = %.3f", name, seed, ratio)
			if ratio < tc.min {
				t.Errorf("%s seed %d: footprint / LB_load = %.3f, want >= %.2f", name, seed, ratio, tc.min)
			}
		}
	}
}
