package strategies_test

import (
	"context"
	"slices"

	"membench/strategies"
	"membench/workloads"
)

// The README's worked example: a new heuristic in one file. Registered
// here in a test file, it runs through the conformance suite and the fuzz
// target like the built-in planners; in strategies/ it would also appear
// in `membench list` and in sweeps.

func init() {
	strategies.Register(strategies.Info{
		Name:    "example-first-fit",
		Runtime: "membench",
		Kind:    strategies.Offsets,
		Doc:     "first fit in order of first use (the README's example)",
		New:     strategies.Simple(func() strategies.Strategy { return firstFit{} }),
	})
}

type firstFit struct{}

func (firstFit) Name() string { return "example-first-fit" }

// Plan places buffers in order of first use, each at the lowest aligned
// offset that no live placed buffer covers.
func (firstFit) Plan(ctx context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	bufs := p.Buffers
	order := make([]int, len(bufs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return bufs[a].First - bufs[b].First })
	offsets := make([]int64, len(bufs))
	var live []int // placed buffers still live, by offset
	for k, i := range order {
		if k%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		b := bufs[i]
		live = slices.DeleteFunc(live, func(j int) bool { return bufs[j].Last < b.First })
		at, pos := int64(0), 0
		for ; pos < len(live); pos++ {
			j := live[pos]
			if offsets[j]-at >= b.Size {
				break
			}
			at = max(at, strategies.AlignUp(offsets[j]+bufs[j].Size, p.Alignment))
		}
		offsets[i] = at
		live = slices.Insert(live, pos, i)
	}
	return &strategies.Plan{Offsets: offsets, Footprint: strategies.Footprint(bufs, offsets)}, nil
}
