package strategies

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name: "greedy-by-breadth",
		Kind: Objects,
		Doc: "TFLite's GreedyByBreadthAssignment: tasks by breadth descending, their tensors by size " +
			"descending, each into the smallest free object that fits, else the largest free one (grown)",
		New: Simple(func() Strategy { return greedyByBreadth{} }),
	})
}

type greedyByBreadth struct{}

func (greedyByBreadth) Name() string { return "greedy-by-breadth" }

func (greedyByBreadth) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	plan, err := greedyByBreadthObjects(ctx, p.Buffers)
	if err != nil {
		return nil, err
	}
	ObjectsToOffsets(plan, p.Buffers, p.Alignment)
	return plan, nil
}

// breadthSpan is one tensor's lifetime in an object's schedule.
type breadthSpan struct{ first, last int }

// breadthObjects is the set of shared objects built so far.
type breadthObjects struct {
	sizes []int64
	// sched[o] is object o's tensors' lifetimes, disjoint and sorted by first.
	sched [][]breadthSpan
	// bySize lists the object ids ordered by (size, id), so the best
	// object is the first free one at or after the tensor's size.
	bySize []int32
}

// free reports whether object o has no tensor overlapping [f, l].
func (bo *breadthObjects) free(o int32, f, l int) bool {
	s := bo.sched[o]
	k, _ := slices.BinarySearchFunc(s, f, func(x breadthSpan, f int) int { return cmp.Compare(x.first, f) })
	if k < len(s) && s[k].first <= l {
		return false
	}
	return k == 0 || s[k-1].last < f
}

// rank returns where object (size, id) belongs in bySize.
func (bo *breadthObjects) rank(size int64, id int32) int {
	k, _ := slices.BinarySearchFunc(bo.bySize, id, func(o, id int32) int {
		if c := cmp.Compare(bo.sizes[o], size); c != 0 {
			return c
		}
		return cmp.Compare(o, id)
	})
	return k
}

// choose returns TFLite's pick for a tensor of the given size and
// lifetime, or -1 for a new object: the smallest free object with size >=
// size (ties: lowest id), else the largest free object (ties: lowest id).
func (bo *breadthObjects) choose(size int64, f, l int) int32 {
	lo, _ := slices.BinarySearchFunc(bo.bySize, size, func(o int32, s int64) int { return cmp.Compare(bo.sizes[o], s) })
	for _, o := range bo.bySize[lo:] {
		if bo.free(o, f, l) {
			return o
		}
	}
	for k := lo - 1; k >= 0; k-- {
		o := bo.bySize[k]
		if !bo.free(o, f, l) {
			continue
		}
		// Within one size ids ascend, so walk down the run for a lower id.
		best := o
		for k--; k >= 0 && bo.sizes[bo.bySize[k]] == bo.sizes[o]; k-- {
			if bo.free(bo.bySize[k], f, l) {
				best = bo.bySize[k]
			}
		}
		return best
	}
	return -1
}

// assign puts a tensor into object o (-1: a new one) and returns o.
func (bo *breadthObjects) assign(o int32, size int64, f, l int) int32 {
	sp := breadthSpan{f, l}
	if o < 0 {
		o = int32(len(bo.sizes))
		bo.sizes = append(bo.sizes, size)
		bo.sched = append(bo.sched, []breadthSpan{sp})
		bo.bySize = slices.Insert(bo.bySize, bo.rank(size, o), o)
		return o
	}
	s := bo.sched[o]
	k, _ := slices.BinarySearchFunc(s, f, func(x breadthSpan, f int) int { return cmp.Compare(x.first, f) })
	bo.sched[o] = slices.Insert(s, k, sp)
	if size > bo.sizes[o] {
		bo.bySize = slices.Delete(bo.bySize, bo.rank(bo.sizes[o], o), bo.rank(bo.sizes[o], o)+1)
		bo.sizes[o] = size
		bo.bySize = slices.Insert(bo.bySize, bo.rank(size, o), o)
	}
	return o
}

// greedyByBreadthObjects assigns tensors to shared objects like TFLite's
// GreedyByBreadthAssignment. TFLite scans every object per tensor; here
// objects are kept ordered by (size, id), so the scan starts at the
// smallest object that fits and stops at the first free one, which is
// the object TFLite's scan ends on.
func greedyByBreadthObjects(ctx context.Context, bufs []workloads.Buffer) (*Plan, error) {
	if err := lifetimeError("greedy-by-breadth", bufs); err != nil {
		return nil, err
	}
	profiles := TaskProfiles(bufs)
	breadth := make([]int64, len(profiles))
	tasks := make([]int32, len(profiles))
	for t, prof := range profiles {
		for _, i := range prof {
			breadth[t] += bufs[i].Size
		}
		tasks[t] = int32(t)
	}
	// Breadth descending, ties by ascending task id (TFLite's stable sort
	// over reversed iterators).
	slices.SortFunc(tasks, func(x, y int32) int {
		if c := cmp.Compare(breadth[y], breadth[x]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})

	ids := make([]int, len(bufs))
	for i := range ids {
		ids[i] = -1
	}
	bo := breadthObjects{sizes: []int64{}}
	steps := 0
	for _, t := range tasks {
		for _, i := range profiles[t] {
			if steps++; steps%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if ids[i] >= 0 {
				continue
			}
			b := bufs[i]
			o := bo.choose(b.Size, b.First, b.Last)
			ids[i] = int(bo.assign(o, b.Size, b.First, b.Last))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, id := range ids {
		if id < 0 { // only a tensor live at no task >= 0
			b := bufs[i]
			return nil, fmt.Errorf("greedy-by-breadth: Error while calculating the assignment: buffer %d (id %d) is live at no task >= 0 (tasks %d..%d)",
				i, b.ID, b.First, b.Last)
		}
	}
	return &Plan{ObjectIDs: ids, ObjectSizes: bo.sizes}, nil
}
