package strategies

import (
	"context"
	"fmt"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name:    "greedy-best",
		Runtime: "tflite-gpu",
		Kind:    Objects,
		Doc: "TFLite's GREEDY_BEST: greedy-by-size, replaced by greedy-by-breadth only where " +
			"breadth's total object size is strictly smaller",
		New: Simple(func() Strategy { return greedyBest{} }),
	})
}

type greedyBest struct{}

func (greedyBest) Name() string { return "greedy-best" }

func (greedyBest) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	// Looked up at plan time: greedy-by-size registers itself from its own file.
	bySize, err := Lookup("greedy-by-size")
	if err != nil {
		return nil, fmt.Errorf("greedy-best: %w", err)
	}
	sized, err := bySize.Plan(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("greedy-best: %w", err)
	}
	breadth, err := greedyByBreadthObjects(ctx, p.Buffers)
	if err != nil {
		return nil, fmt.Errorf("greedy-best: %w", err)
	}
	// TFLite compares totals (sums of object sizes); ties keep greedy-by-size.
	if objectsTotal(breadth.ObjectSizes) < objectsTotal(sized.ObjectSizes) {
		ObjectsToOffsets(breadth, p.Buffers, p.Alignment)
		return breadth, nil
	}
	return sized, nil
}

// objectsTotal is the sum of object sizes: TFLite's total for an object plan.
func objectsTotal(sizes []int64) int64 {
	var t int64
	for _, s := range sizes {
		t += s
	}
	return t
}
