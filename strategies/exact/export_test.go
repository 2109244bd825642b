package exact

import (
	"context"
	"fmt"

	"membench/workloads"
)

// FillPlan runs the filler alone, sweeping one way, on every part of p
// at capacity c, each of which must have no slack at c. It returns the
// offsets (in p's order) and true when every part was packed, false when
// some part was proved impossible.
func FillPlan(p *workloads.Problem, c int64, rev bool) ([]int64, bool, error) {
	in, err := newInstance(context.Background(), p)
	if err != nil {
		return nil, false, err
	}
	offs := make([]int64, len(p.Buffers))
	for i := range in.parts {
		pt := &in.parts[i]
		if !in.zeroSlack(pt, c) {
			return nil, false, fmt.Errorf("part %d has slack at %d", i, c)
		}
		f := newFiller(in, rev)
		f.b = &budget{ctx: context.Background(), nodes: -1}
		switch f.solve(pt, c, 1<<62) {
		case infeasible:
			return nil, false, nil
		case aborted:
			return nil, false, fmt.Errorf("part %d: aborted", i)
		}
		for _, k := range pt.bufs {
			offs[in.idx[k]] = f.sol[k]
		}
	}
	return offs, true, nil
}
