package strategies

import (
	"context"
	"math"
	"slices"
	"strings"

	"membench/strategies/internal/search"
	"membench/workloads"
)

// greedy is OmniMalloc's family of greedy allocators (fpedd/omnimalloc,
// revision 2e9cf4ede72f: src/python/omnimalloc/allocators/greedy.py,
// placing by first_fit_place in src/cpp/allocators/first_fit.cpp): the
// buffers are taken in one order and each goes at the lowest offset where
// it fits among the buffers already placed that are live with it
// (search.Placer). The order parameter picks the allocator:
//
//	input          GreedyAllocator: the problem's order
//	size           GreedyBySizeAllocator: largest first
//	duration       GreedyByDurationAllocator: longest lifetime first
//	area           GreedyByAreaAllocator: size x lifetime, largest first
//	conflict       GreedyByConflictAllocator: most conflicting buffers first, then largest
//	conflict-size  GreedyByConflictSizeAllocator: conflicts x size, then size
//	start          GreedyByStartAllocator: earliest first, then largest, then id as text
//	all            GreedyByAllAllocator: the lowest peak of the seven, the first in this list among equals
//
// Ties keep problem order (stable sorts) except where the list says. A
// lifetime is Last-First+1 tasks (OmniMalloc's end - start over the
// half-open [First, Last+1)); an id is the buffer's label where the
// problem has labels, else its number. Fixed offsets are pins placed
// first; alignments align offsets up within the gaps (membench's; at
// alignment 1 the rule is OmniMalloc's).
func init() {
	Register(Info{
		Name:    "greedy",
		Runtime: "omnimalloc",
		Kind:    Offsets,
		Doc:     "OmniMalloc's greedy first fit in one order: input, size, duration, area, conflict, conflict-size, start, or the best of all",
		Params: []workloads.ParamDoc{
			{Name: "order", Default: "input", Doc: "input, size, duration, area, conflict, conflict-size, start or all"},
		},
		Forms: workloads.FormAlign | workloads.FormFixed,
		New: func(args *workloads.Args) (Strategy, error) {
			order := args.String("order", search.OrderInput)
			if order != "all" && !slices.Contains(search.Orders, order) {
				return nil, workloads.Usagef("greedy: parameter order=%s: want one of %s, all",
					workloads.Echo(order), strings.Join(search.Orders, ", "))
			}
			return greedy{order: order}, nil
		},
	})
}

type greedy struct{ order string }

func (g greedy) Name() string { return "greedy?order=" + g.order }

func (g greedy) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	pl, err := search.NewPlacer(ctx, "greedy", p)
	if err != nil {
		return nil, err
	}
	orders := search.Orders
	if g.order != "all" {
		orders = []string{g.order}
	}
	var best *Plan
	for _, name := range orders {
		order, err := search.Order(name, p, pl)
		if err != nil {
			return nil, err
		}
		offsets := make([]int64, pl.Len())
		bound := int64(math.MaxInt64)
		if best != nil {
			bound = best.Footprint // only a lower peak is kept
		}
		peak, err := pl.PlaceBelow(ctx, order, offsets, bound)
		if err != nil {
			return nil, err
		}
		if best == nil || peak < best.Footprint {
			best = &Plan{Offsets: offsets, Footprint: peak}
		}
	}
	return best, nil
}
