package strategies

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
	"membench/workloads/synthetic"
)

func planOrFatal(t *testing.T, spec string, p *workloads.Problem) *Plan {
	t.Helper()
	s, err := Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return plan
}

// TestGreedyBestPicks checks GREEDY_BEST's rule on random problems:
// greedy-by-breadth's plan only where its total is strictly smaller.
func TestGreedyBestPicks(t *testing.T) {
	var picked, tiesDiffering int
	for k, p := range randomTieProblems(200) {
		p.Alignment = []int64{0, 128}[k%2]
		bySize := planOrFatal(t, "greedy-by-size", p)
		breadth := planOrFatal(t, "greedy-by-breadth", p)
		best := planOrFatal(t, "greedy-best", p)
		want := bySize
		sizeTotal, breadthTotal := objectsTotal(bySize.ObjectSizes), objectsTotal(breadth.ObjectSizes)
		if breadthTotal < sizeTotal {
			want = breadth
			picked++
		} else if breadthTotal == sizeTotal && !slices.Equal(bySize.ObjectIDs, breadth.ObjectIDs) {
			tiesDiffering++
		}
		if !slices.Equal(best.ObjectIDs, want.ObjectIDs) || !slices.Equal(best.ObjectSizes, want.ObjectSizes) ||
			!slices.Equal(best.Offsets, want.Offsets) || best.Footprint != want.Footprint {
			t.Fatalf("problem %d (%s): greedy-best differs from the plan it should pick (breadth total %d, size total %d)",
				k, p.Name, breadthTotal, sizeTotal)
		}
		if err := Validate(p, best); err != nil {
			t.Fatalf("problem %d: %v", k, err)
		}
	}
	// The corpus must exercise both branches and the tie rule.
	if picked == 0 || picked == 200 || tiesDiffering == 0 {
		t.Errorf("corpus too narrow: breadth picked %d times, %d ties with different plans", picked, tiesDiffering)
	}
}

func TestGreedyBestErrors(t *testing.T) {
	s, err := Lookup("greedy-best")
	if err != nil {
		t.Fatal(err)
	}
	p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 4, First: 0, Last: 1}, {ID: 1, Size: 4, First: 3, Last: 2}}}
	if _, err := s.Plan(context.Background(), p); err == nil || !strings.HasPrefix(err.Error(), "greedy-best: ") {
		t.Errorf("first > last: err = %v, want a greedy-best error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Plan(ctx, synthetic.RandomDAG(synthetic.DefaultDAG(100_000, 1))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
}
