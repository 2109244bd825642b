package strategies

import (
	"context"
	"slices"

	"membench/workloads"
)

// greedyInOrderShapes is TFLite's GreedyInOrderAssignmentMultidimensional,
// GREEDY_IN_ORDER for 2D and 3D textures (LiteRT
// tflite/delegates/gpu/common/memory_management/greedy_in_order_assignment.h,
// revision f67457790c9c), for buffers sorted by First. Its rules:
//
//   - Objects whose tensor's last task is before the current tensor's
//     first task join the free pool, a list kept in the order they join;
//     those released together join in the order of TFLite's queue of
//     objects in use (by last task, then object id).
//   - A tensor takes, among the free objects that cover it in every
//     dimension (IsCoveringObject), the one whose element count differs
//     least from its own; ties go to the earliest in the list. Element
//     counts are products in uint32 arithmetic (textureElements), as
//     AbsDiffInElements computes them.
//   - With none, it gets a new object of its own extents. Objects never
//     grow: a texture's extents cannot.
//
// The pool keeps its order when an object leaves it.
func greedyInOrderShapes(ctx context.Context, bufs []workloads.Buffer, shapes []workloads.Shape, dims int) ([]int, []workloads.Shape, error) {
	ids := make([]int, len(bufs))
	var objs []workloads.Shape
	var pool []int32
	queue := newObjectQueue(bufs)
	for i := range bufs {
		batch, err := queue.inOrder(ctx, i, bufs, ids)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range batch {
			pool = append(pool, r.id)
		}
		s := shapes[i]
		elems := textureElements(s, dims)
		best, bestDiff := -1, uint64(0)
		for k, o := range pool {
			if obj := objs[o]; obj.Covers(s, dims) {
				if d := absDiff(textureElements(obj, dims), elems); best < 0 || d < bestDiff {
					best, bestDiff = k, d
				}
			}
		}
		if best < 0 {
			ids[i] = len(objs)
			objs = append(objs, s)
			continue
		}
		ids[i] = int(pool[best])
		pool = slices.Delete(pool, best, best+1)
	}
	return ids, objs, nil
}
