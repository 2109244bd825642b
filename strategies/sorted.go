package strategies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// byFirst returns the buffers stably sorted by First and perm, where
// perm[k] is the caller's index of sorted buffer k. Input that is already
// sorted is returned as is with a nil perm.
func byFirst(bufs []workloads.Buffer) ([]workloads.Buffer, []int32) {
	if slices.IsSortedFunc(bufs, func(a, b workloads.Buffer) int { return cmp.Compare(a.First, b.First) }) {
		return bufs, nil
	}
	perm := kernel.ByFirst(bufs)
	sorted := make([]workloads.Buffer, len(bufs))
	for k, i := range perm {
		sorted[k] = bufs[i]
	}
	return sorted, perm
}

// objectAssigner computes a shared-object assignment for buffers sorted by
// First: ids[i] is the object of buffer i, sizes[k] the size of object k.
type objectAssigner func(ctx context.Context, bufs []workloads.Buffer) (ids []int, sizes []int64, err error)

// permAssigner is an objectAssigner that is also told perm: perm[k] is the
// problem index of sorted buffer k (nil: the identity).
type permAssigner func(ctx context.Context, bufs []workloads.Buffer, perm []int32) (ids []int, sizes []int64, err error)

// planSortedObjects checks p's buffers, runs assign on them stably sorted
// by First (the order TFLite's queue-based planners assume), maps the
// object ids back to p's order and lays the objects out with
// ObjectsToOffsets.
func planSortedObjects(ctx context.Context, name string, p *workloads.Problem, assign objectAssigner) (*Plan, error) {
	return planSorted(ctx, name, p, func(ctx context.Context, bufs []workloads.Buffer, _ []int32) ([]int, []int64, error) {
		return assign(ctx, bufs)
	})
}

// planSorted is planSortedObjects for an assigner that needs the sorted
// buffers' problem indexes.
func planSorted(ctx context.Context, name string, p *workloads.Problem, assign permAssigner) (*Plan, error) {
	if err := kernel.RecordError(name, p.Buffers); err != nil {
		return nil, err
	}
	if len(p.Buffers) > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d buffers is too many", name, len(p.Buffers))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sorted, perm := byFirst(p.Buffers)
	ids, sizes, err := assign(ctx, sorted, perm)
	if err != nil {
		return nil, err
	}
	if perm != nil {
		back := make([]int, len(ids))
		for k, i := range perm {
			back[i] = ids[k]
		}
		ids = back
	}
	plan := &Plan{ObjectIDs: ids, ObjectSizes: sizes}
	ObjectsToOffsets(plan, p.Buffers, p.Alignment)
	return plan, nil
}

// releaseAt answers, for buffers sorted by First, when TFLite's queue of
// objects in use lets each buffer's object go: at[i] is the first record
// k with First > buffer i's Last (n if none). Records come in First
// order, so this is when "pop everything with last_task < first_task"
// pops buffer i.
func releaseAt(bufs []workloads.Buffer) []int32 {
	n := len(bufs)
	at := make([]int32, n)
	if n == 0 {
		return at
	}
	lo, hi := bufs[0].First, bufs[0].Last
	for _, b := range bufs {
		hi = max(hi, b.Last)
	}
	if span := uint64(hi) - uint64(lo); span < uint64(2*n+1024) {
		// Dense task ids: next[t-lo] = first record with First > t.
		next := make([]int32, span+1)
		k := 0
		for t := range next {
			for k < n && bufs[k].First <= lo+t {
				k++
			}
			next[t] = int32(k)
		}
		for i, b := range bufs {
			at[i] = next[b.Last-lo]
		}
		return at
	}
	for i, b := range bufs {
		rest := bufs[i:]
		at[i] = int32(i + sort.Search(len(rest), func(j int) bool { return rest[j].First > b.Last }))
	}
	return at
}

// releaseLists groups releaseAt by record: the buffers released just
// before record k are list[start[k]:start[k+1]], in index order.
func releaseLists(bufs []workloads.Buffer) (start, list []int32) {
	n := len(bufs)
	at := releaseAt(bufs)
	start = make([]int32, n+2)
	for _, k := range at {
		if int(k) < n {
			start[k+2]++
		}
	}
	for k := 2; k < len(start); k++ {
		start[k] += start[k-1]
	}
	list = make([]int32, start[n+1])
	for i, k := range at {
		if int(k) < n {
			list[start[k+1]] = int32(i)
			start[k+1]++
		}
	}
	return start[:n+1], list
}

// objectQueue replays TFLite's queue of objects in use for buffers sorted
// by First: each buffer's object leaves it before the first buffer whose
// First is after the buffer's Last (releaseLists).
type objectQueue struct {
	start, list []int32
	batch       []releasedObject
}

func newObjectQueue(bufs []workloads.Buffer) *objectQueue {
	start, list := releaseLists(bufs)
	return &objectQueue{start: start, list: list}
}

// before checks ctx every kernel.CtxCheckEvery buffers and returns the
// buffers whose objects leave the queue before buffer i, in no order.
func (q *objectQueue) before(ctx context.Context, i int) ([]int32, error) {
	if i%kernel.CtxCheckEvery == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return q.list[q.start[i]:q.start[i+1]], nil
}

// inOrder is before with the objects (ids[t] of buffer t) in the order the
// queue releases them: by last task, ties by object id. The slice is valid
// until the next call.
func (q *objectQueue) inOrder(ctx context.Context, i int, bufs []workloads.Buffer, ids []int) ([]releasedObject, error) {
	out, err := q.before(ctx, i)
	if err != nil {
		return nil, err
	}
	q.batch = q.batch[:0]
	for _, t := range out {
		q.batch = append(q.batch, releasedObject{bufs[t].Last, int32(ids[t])})
	}
	sortReleased(q.batch)
	return q.batch, nil
}
