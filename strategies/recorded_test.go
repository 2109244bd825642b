package strategies_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
	_ "membench/workloads/recorded"
)

// TestRecordedGraphs plans every recorded static graph with every
// registered strategy (min-cost-flow only where the default suite runs it,
// n <= 600) and validates each plan; one whose solver is not installed
// (milp without cbc) is left out.
func TestRecordedGraphs(t *testing.T) {
	n := 0
	for _, w := range workloads.All() {
		if !strings.HasPrefix(w.Name, "recorded/") || !strings.HasSuffix(w.Name, "/graph") {
			continue
		}
		n++
		wl, err := workloads.Load(w.Name)
		if err != nil {
			t.Fatal(err)
		}
		p := wl.Problem
		for _, name := range strategies.Names() {
			if name == "min-cost-flow" && p.Len() > 600 {
				continue
			}
			s, err := strategies.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := s.Plan(context.Background(), p)
			if errors.Is(err, strategies.ErrSolverMissing) {
				// README's test command runs where no solver is installed.
				t.Logf("%s with %s: skipped: %v", w.Name, name, err)
				continue
			}
			if err != nil {
				t.Errorf("%s with %s: %v", w.Name, name, err)
				continue
			}
			if err := strategies.Validate(p, plan); err != nil {
				t.Errorf("%s with %s: invalid plan: %v", w.Name, name, err)
			}
		}
	}
	if n < 9 {
		t.Errorf("%d recorded graphs, want 9", n)
	}
}
