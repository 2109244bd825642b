package strategies

import (
	"context"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// TFLite's EQUALITY on textures and BHWC shapes (LiteRT
// tflite/delegates/gpu/common/memory_management/equality_assignment.h and
// memory_management.cc, revision f67457790c9c). memory_management.cc
// dispatches two versions:
//
//   - BHWC shapes take EqualityAssignmentWithHash, the byte version's
//     rules with the shape (all four extents) as the key: released
//     objects are stacked per shape in the order the queue of objects in
//     use releases them (by last task, then object id) and a tensor takes
//     the top of its shape's stack, else a new object.
//   - 2D and 3D textures take EqualityAssignment, "by comparison": a
//     tensor takes the lowest-numbered object of exactly its extents whose
//     last tensor's last task is before its first task, else a new object.
//
// Objects keep the extents of their tensors: they never grow.

// equalityShapes plans a problem of textures or BHWC shapes as equality
// does.
func equalityShapes(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	assign := equalityCompare
	if p.SizeType == workloads.SizeBHWC {
		assign = equalityHashShapes
	}
	return planSortedShapes(ctx, "equality", p, assign)
}

// equalityHashShapes is EqualityAssignmentWithHash on shapes: each
// distinct shape becomes a key (its first tensor's index) and the byte
// version (equalityAssign) runs on the keys as sizes.
func equalityHashShapes(ctx context.Context, bufs []workloads.Buffer, shapes []workloads.Shape) ([]int, []workloads.Shape, error) {
	keyOf := make(map[workloads.Shape]int64, len(shapes))
	keyed := make([]workloads.Buffer, len(bufs))
	for i, b := range bufs {
		k, ok := keyOf[shapes[i]]
		if !ok {
			k = int64(i)
			keyOf[shapes[i]] = k
		}
		b.Size = k
		keyed[i] = b
	}
	ids, keys, err := equalityAssign(ctx, keyed)
	if err != nil {
		return nil, nil, err
	}
	objs := make([]workloads.Shape, len(keys))
	for k, key := range keys {
		objs[k] = shapes[key]
	}
	return ids, objs, nil
}

// equalityCompare is EqualityAssignment, for buffers sorted by First.
func equalityCompare(ctx context.Context, bufs []workloads.Buffer, shapes []workloads.Shape) ([]int, []workloads.Shape, error) {
	ids := make([]int, len(bufs))
	var objs []workloads.Shape
	var dealloc []int // the last task of each object's latest tensor
	for i, b := range bufs {
		if i%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		best := -1
		for k, o := range objs {
			if dealloc[k] < b.First && o == shapes[i] {
				best = k
				break
			}
		}
		if best < 0 {
			best = len(objs)
			objs = append(objs, shapes[i])
			dealloc = append(dealloc, 0)
		}
		ids[i] = best
		dealloc[best] = b.Last
	}
	return ids, objs, nil
}
