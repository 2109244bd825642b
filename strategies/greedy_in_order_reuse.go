package strategies

import (
	"context"
	"slices"

	"membench/workloads"
)

// greedyInOrderReuse is TFLite's GreedyInOrderAssignment with a
// reallocation graph (LiteRT
// tflite/delegates/gpu/common/memory_management/greedy_in_order_assignment.h,
// revision f67457790c9c), for buffers sorted by First; perm[k] is sorted
// buffer k's index in the problem (nil: the identity) and reuse is
// Problem.Reuse, by problem index. Its rules differ from the plain
// version's (greedyInOrderAssign):
//
//   - Objects are freed as there (queue order by last task, then id) into
//     a pool ordered by (size, id).
//   - A tensor scans the whole pool in that order and takes the object
//     whose size differs least from its own, in either direction, among
//     those whose latest tensor's reallocation list names it; ties go to
//     the first in pool order, so the smaller object.
//   - With none, it gets a new object; a reused object grows to the
//     tensor's size if smaller.
//
// An object's latest tensor is the last one assigned to it.
func greedyInOrderReuse(ctx context.Context, bufs []workloads.Buffer, perm []int32, reuse [][]int) ([]int, []int64, error) {
	orig := func(k int) int {
		if perm == nil {
			return k
		}
		return int(perm[k])
	}
	ids := make([]int, len(bufs))
	var sizes []int64
	var latest []int // the problem index of each object's latest tensor
	var pool []int32 // free objects by (size, id)
	byPool := func(a, b int32) int {
		if c := compareInt64(sizes[a], sizes[b]); c != 0 {
			return c
		}
		return compareInt64(int64(a), int64(b))
	}
	queue := newObjectQueue(bufs)
	for i, b := range bufs {
		me := orig(i)
		freed, err := queue.before(ctx, i)
		if err != nil {
			return nil, nil, err
		}
		// The pool is a set: the order objects join it does not matter.
		for _, t := range freed {
			at, _ := slices.BinarySearchFunc(pool, int32(ids[t]), byPool)
			pool = slices.Insert(pool, at, int32(ids[t]))
		}
		best, bestDiff := -1, uint64(0)
		for k, o := range pool {
			d := absDiff(uint64(sizes[o]), uint64(b.Size))
			if best >= 0 && d >= bestDiff {
				continue
			}
			if _, ok := slices.BinarySearch(reuse[latest[o]], me); ok {
				best, bestDiff = k, d
			}
		}
		if best < 0 {
			ids[i] = len(sizes)
			sizes = append(sizes, b.Size)
			latest = append(latest, me)
			continue
		}
		o := pool[best]
		pool = slices.Delete(pool, best, best+1)
		ids[i] = int(o)
		sizes[o] = max(sizes[o], b.Size)
		latest[o] = me
	}
	return ids, sizes, nil
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
