package strategies

import (
	"context"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

func init() {
	Register(Info{
		Name:    "offset-greedy-by-size",
		Runtime: "tflite-gpu",
		Kind:    Offsets,
		Doc: "TFLite's GreedyBySizeAssignment: tensors by size descending, each into the " +
			"smallest fitting gap among time-overlapping tensors (ties: lowest address), " +
			"else above them; honours the problem's alignment",
		New: Simple(func() Strategy { return offsetGreedyBySize{} }),
	})
}

type offsetGreedyBySize struct{}

func (offsetGreedyBySize) Name() string { return "offset-greedy-by-size" }

func (offsetGreedyBySize) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	offsets, fp, err := offsetGreedyBySizeOffsets(ctx, p.Buffers, p.Alignment)
	if err != nil {
		return nil, err
	}
	return &Plan{Offsets: offsets, Footprint: fp}, nil
}

// offsetGreedyBySizeOffsets places the buffers like TFLite's
// GreedyBySizeAssignment. TFLite walks an offset-ordered list of every
// placed tensor for each tensor (O(n^2)) and takes the smallest gap that
// fits (ties: the lowest), else the highest end.
//
// For a tensor of positive size, only gaps of positive length matter, and
// those are the gaps between the connected components of the placed
// tensors' closed address ranges [offset, aligned end]. So an index over
// time (kernel.CompIndex) keeps, per segment-tree node, the components of
// the tensors it holds, and a tensor's gap walk runs over the components
// of a few nodes instead of every overlapping tensor (or, when a tensor
// overlaps every placed one, over the components of them all). Zero-size
// tensors, which come last in TFLite's order, can also take zero-length
// gaps, which components hide: they take the tensor-by-tensor walk
// (kernel.TimeIndex).
func offsetGreedyBySizeOffsets(ctx context.Context, bufs []workloads.Buffer, align int64) ([]int64, int64, error) {
	return offsetGreedyBySizeRun(ctx, bufs, align, true)
}

// offsetGreedyBySizeRun is offsetGreedyBySizeOffsets; without byID, the
// buffers starting inside a lifetime are gathered one by one (as the
// other planners sharing kernel.CompIndex do), which the tests time
// against.
func offsetGreedyBySizeRun(ctx context.Context, bufs []workloads.Buffer, align int64, byID bool) ([]int64, int64, error) {
	if err := kernel.RecordError("offset-greedy-by-size", bufs); err != nil {
		return nil, 0, err
	}
	align = max(align, 1)
	n := len(bufs)
	offsets := make([]int64, n)
	if n == 0 {
		return offsets, 0, nil
	}
	// TFLite stable-sorts by size descending: ties keep record order.
	order := kernel.BySizeDescending(bufs)

	spans := kernel.NewTaskSpans(bufs, false)
	ix := kernel.NewCompIndex(spans)
	if byID {
		ix.GatherByID()
	}
	// What the loop needs of each tensor, gathered in its order: the
	// loads are independent here, and the loop then reads in sequence.
	tasks := make([]kernel.Task, n)
	for k, i := range order {
		id := spans.ID[i]
		sp := spans.Span[id]
		tasks[k] = kernel.Task{Size: bufs[i].Size, ID: id, A: sp[0], B: sp[1], RLo: spans.StartPtr[sp[0]+1], RHi: spans.StartPtr[sp[1]+1]}
	}
	var comps []kernel.Comp
	var total int64
	k := 0
	for ; k < n; k++ {
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		t := &tasks[k]
		if t.Size == 0 {
			break
		}
		comps = ix.Overlapping(comps[:0], t)
		best := kernel.BestGap(comps, t.Size, 1)
		ix.Place(t, kernel.Comp{Lo: best, Hi: AlignUp(best+t.Size, align)})
		total = max(total, best+t.Size)
		t.Size = best // the offset, from here on
	}
	for j, t := range tasks[:k] {
		offsets[order[j]] = t.Size
	}
	if k == n {
		return offsets, total, nil
	}
	// The zero-size tensors: replay the placed ones into the
	// tensor-by-tensor index, in placement order.
	tix := kernel.NewTimeIndex(spans)
	for j, i := range order[:k] {
		tix.Place(spans.ID[i], kernel.Placed{Off: offsets[i], End: AlignUp(offsets[i]+bufs[i].Size, align), Seq: int32(j + 1)})
	}
	var items []kernel.Placed
	var spans0 []kernel.Comp // items' ranges, for kernel.BestGap
	for ; k < n; k++ {
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		i := order[k]
		id := spans.ID[i]
		items = tix.Overlapping(items[:0], id)
		kernel.SortPlaced(items)
		spans0 = spans0[:0]
		for _, it := range items {
			spans0 = append(spans0, kernel.Comp{Lo: it.Off, Hi: it.End})
		}
		best := kernel.BestGap(spans0, 0, 1)
		tix.Place(id, kernel.Placed{Off: best, End: AlignUp(best, align), Seq: int32(k + 1)})
		offsets[i] = best
		total = max(total, best)
	}
	return offsets, total, nil
}
