package strategies_test

import (
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// A step-by-step port of LiteRT's texture, BHWC and reallocation-graph
// assignments (tflite/delegates/gpu/common/memory_management/
// {equality_assignment.h, greedy_in_order_assignment.h, internal.cc} at
// f67457790c9c), kept apart from the planners so the two can be compared
// on random inputs: the same containers (a priority queue of QueueRecord,
// a std::list pool, a std::set of PoolRecord, a hash map of stacks) and
// the same loops.

type upRecord struct {
	size        workloads.Shape // size[0] is the byte size for size_t
	first, last int
}

// upQueueRecord orders as QueueRecord: the top has the least last task,
// then the least object id.
type upQueue []struct{ last, id int }

func (q upQueue) Len() int { return len(q) }
func (q upQueue) Less(i, j int) bool {
	return q[i].last < q[j].last || q[i].last == q[j].last && q[i].id < q[j].id
}
func (q upQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *upQueue) Push(x any)   { *q = append(*q, x.(struct{ last, id int })) }
func (q *upQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// upElements is AbsDiffInElements' element count: uint32 products.
func upElements(s workloads.Shape, dims int) uint64 {
	if dims == 2 {
		return uint64(uint32(s[1]) * uint32(s[0]))
	}
	return uint64(uint32(s[2]) * uint32(s[1]) * uint32(s[0]))
}

func upAbsDiff(a, b uint64) uint64 {
	if a >= b {
		return a - b
	}
	return b - a
}

func upCovering(a, b workloads.Shape, dims int) bool {
	if dims == 2 {
		return a[0] >= b[0] && a[1] >= b[1]
	}
	return a[0] >= b[0] && a[1] >= b[1] && a[2] >= b[2]
}

// upGreedyInOrderMultidimensional is GreedyInOrderAssignmentMultidimensional.
func upGreedyInOrderMultidimensional(recs []upRecord, dims int) ([]int, []workloads.Shape) {
	ids := make([]int, len(recs))
	var sizes []workloads.Shape
	var pool []int // std::list<size_t>
	q := &upQueue{}
	for i, r := range recs {
		for q.Len() > 0 && (*q)[0].last < r.first {
			pool = append(pool, (*q)[0].id)
			heap.Pop(q)
		}
		best, bestDiff := -1, uint64(0)
		for k, o := range pool {
			if upCovering(sizes[o], r.size, dims) {
				d := upAbsDiff(upElements(sizes[o], dims), upElements(r.size, dims))
				if best == -1 || d < bestDiff {
					best, bestDiff = k, d
				}
			}
		}
		if best == -1 {
			ids[i] = len(sizes)
			sizes = append(sizes, r.size)
		} else {
			ids[i] = pool[best]
			pool = append(pool[:best:best], pool[best+1:]...)
		}
		heap.Push(q, struct{ last, id int }{r.last, ids[i]})
	}
	return ids, sizes
}

// upEqualityAssignment is EqualityAssignment (by comparison).
func upEqualityAssignment(recs []upRecord) ([]int, []workloads.Shape) {
	ids := make([]int, len(recs))
	var sizes []workloads.Shape
	var dealloc []int
	for i, r := range recs {
		best := -1
		for obj := range sizes {
			if dealloc[obj] < r.first && sizes[obj] == r.size {
				best = obj
				break
			}
		}
		if best == -1 {
			ids[i] = len(sizes)
			sizes = append(sizes, r.size)
			dealloc = append(dealloc, r.last)
		} else {
			ids[i] = best
			dealloc[best] = r.last
		}
	}
	return ids, sizes
}

// upEqualityWithHash is EqualityAssignmentWithHash.
func upEqualityWithHash(recs []upRecord) ([]int, []workloads.Shape) {
	ids := make([]int, len(recs))
	var sizes []workloads.Shape
	pool := map[workloads.Shape][]int{}
	q := &upQueue{}
	for i, r := range recs {
		for q.Len() > 0 && (*q)[0].last < r.first {
			id := (*q)[0].id
			pool[sizes[id]] = append(pool[sizes[id]], id)
			heap.Pop(q)
		}
		if st := pool[r.size]; len(st) == 0 {
			ids[i] = len(sizes)
			sizes = append(sizes, r.size)
		} else {
			ids[i] = st[len(st)-1]
			pool[r.size] = st[:len(st)-1]
		}
		heap.Push(q, struct{ last, id int }{r.last, ids[i]})
	}
	return ids, sizes
}

// upGreedyInOrderRealloc is GreedyInOrderAssignment<size_t> with a
// reallocation graph.
func upGreedyInOrderRealloc(recs []upRecord, graph [][]int) ([]int, []int64) {
	ids := make([]int, len(recs))
	var sizes []int64
	var lastAssigned []int
	type poolRecord struct {
		size int64
		id   int
	}
	var pool []poolRecord // std::set<PoolRecord>, ordered by (size, id)
	q := &upQueue{}
	for i, r := range recs {
		for q.Len() > 0 && (*q)[0].last < r.first {
			id := (*q)[0].id
			pr := poolRecord{sizes[id], id}
			at := sort.Search(len(pool), func(k int) bool {
				return pool[k].size > pr.size || pool[k].size == pr.size && pool[k].id >= pr.id
			})
			pool = slices.Insert(pool, at, pr)
			heap.Pop(q)
		}
		s := r.size[0]
		best, bestDiff := -1, uint64(0)
		for k, pr := range pool {
			d := upAbsDiff(uint64(pr.size), uint64(s))
			if best == -1 || d < bestDiff {
				opts := graph[lastAssigned[pr.id]]
				pos := sort.SearchInts(opts, i)
				if pos != len(opts) && opts[pos] == i {
					best, bestDiff = k, d
				}
			}
		}
		if best == -1 {
			ids[i] = len(sizes)
			sizes = append(sizes, s)
			lastAssigned = append(lastAssigned, i)
		} else {
			id := pool[best].id
			pool = slices.Delete(pool, best, best+1)
			ids[i] = id
			sizes[id] = max(sizes[id], s)
			lastAssigned[id] = i
		}
		heap.Push(q, struct{ last, id int }{r.last, ids[i]})
	}
	return ids, sizes
}

// randomSpans returns n lifetimes sorted by first task (the order TFLite's
// delegate builds records in), often sharing tasks.
func randomSpans(r *rand.Rand, n int) []workloads.Buffer {
	spans := make([]workloads.Buffer, n)
	tasks := 1 + r.IntN(2*n+1)
	for i := range spans {
		f := r.IntN(tasks)
		spans[i] = workloads.Buffer{First: f, Last: f + r.IntN(1+r.IntN(8))}
	}
	slices.SortStableFunc(spans, func(a, b workloads.Buffer) int { return a.First - b.First })
	return spans
}

// randomExtent draws small extents that often repeat, and now and then
// one whose products wrap uint32 (AbsDiffInElements').
func randomExtent(r *rand.Rand, top int64) int64 {
	switch r.IntN(20) {
	case 0:
		return min(top, 65536+r.Int64N(200000))
	case 1:
		return 0
	}
	return 1 + r.Int64N(6)
}

func TestShapePlannersMatchUpstreamPort(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 23))
		for _, st := range []workloads.SizeType{workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC} {
			n := r.IntN(40)
			spans := randomSpans(r, n)
			shapes := make([]workloads.Shape, n)
			recs := make([]upRecord, n)
			for i := range shapes {
				for d := range st.Dims() {
					shapes[i][d] = randomExtent(r, st.MaxExtent())
				}
				if st == workloads.SizeTexture3D && shapes[i][0] > 6 && shapes[i][1] > 6 {
					shapes[i][2] = 1 // keep the bytes within int64
				}
				recs[i] = upRecord{shapes[i], spans[i].First, spans[i].Last}
			}
			p, err := workloads.NewShapeProblem(fmt.Sprint(seed), st, 16, shapes, spans)
			if err != nil {
				t.Fatal(err)
			}
			type ref struct {
				name string
				run  func() ([]int, []workloads.Shape)
			}
			refs := []ref{{"equality", func() ([]int, []workloads.Shape) { return upEqualityWithHash(recs) }}}
			if st != workloads.SizeBHWC {
				refs = []ref{
					{"equality", func() ([]int, []workloads.Shape) { return upEqualityAssignment(recs) }},
					{"greedy-in-order", func() ([]int, []workloads.Shape) { return upGreedyInOrderMultidimensional(recs, st.Dims()) }},
				}
			}
			for _, rf := range refs {
				s, _ := strategies.Lookup(rf.name)
				plan, err := s.Plan(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				if err := strategies.Validate(p, plan); err != nil {
					t.Fatalf("seed %d %s %s: %v", seed, st, rf.name, err)
				}
				ids, objs := rf.run()
				if !slices.Equal(plan.ObjectIDs, ids) || !slices.Equal(plan.ObjectShapes, objs) {
					t.Fatalf("seed %d %s %s:\n got %v %v\nwant %v %v\nrecords %v", seed, st, rf.name, plan.ObjectIDs, plan.ObjectShapes, ids, objs, recs)
				}
			}
		}
	}
}

func TestGreedyInOrderReuseMatchesUpstreamPort(t *testing.T) {
	ctx := context.Background()
	s, _ := strategies.Lookup("greedy-in-order")
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 29))
		n := r.IntN(40)
		spans := randomSpans(r, n)
		recs := make([]upRecord, n)
		p := &workloads.Problem{Name: fmt.Sprint(seed), Buffers: spans}
		for i := range spans {
			p.Buffers[i].ID = i
			p.Buffers[i].Size = 1 + r.Int64N(64)
			recs[i] = upRecord{workloads.Shape{p.Buffers[i].Size}, spans[i].First, spans[i].Last}
		}
		// Half the graphs come from random dependency DAGs as upstream
		// computes them, half are arbitrary ascending lists.
		deps := make([][]int, n)
		for i := range deps {
			for j := i + 1; j < n; j++ {
				if r.IntN(n) < 2 {
					deps[i] = append(deps[i], j)
				}
			}
		}
		p.Reuse = workloads.ReallocationGraph(deps)
		if seed%2 == 1 {
			for i := range p.Reuse {
				p.Reuse[i] = nil
				for j := range n {
					if r.IntN(3) > 0 {
						p.Reuse[i] = append(p.Reuse[i], j)
					}
				}
			}
		}
		plan, err := s.Plan(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := strategies.Validate(p, plan); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		ids, sizes := upGreedyInOrderRealloc(recs, p.Reuse)
		if !slices.Equal(plan.ObjectIDs, ids) || !slices.Equal(plan.ObjectSizes, sizes) {
			t.Fatalf("seed %d:\n got %v %v\nwant %v %v", seed, plan.ObjectIDs, plan.ObjectSizes, ids, sizes)
		}
	}
}

// TestTextureElementsWrapAsUpstream pins AbsDiffInElements' uint32
// products: a 65536x65536 texture counts 0 elements there, so a 1x1
// tensor wastes "1" in it and 3 in a 2x2 one, and takes the former.
func TestTextureElementsWrapAsUpstream(t *testing.T) {
	rows := [][]int64{{65536, 65536, 0, 0}, {2, 2, 0, 0}, {1, 1, 1, 1}}
	p := shapeProblem(t, workloads.SizeTexture2D, 1, rows)
	s, _ := strategies.Lookup("greedy-in-order")
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]upRecord, len(rows))
	for i, r := range rows {
		recs[i] = upRecord{workloads.Shape{r[0], r[1]}, int(r[2]), int(r[3])}
	}
	want, _ := upGreedyInOrderMultidimensional(recs, 2)
	if !slices.Equal(plan.ObjectIDs, want) || plan.ObjectIDs[2] != 0 {
		t.Errorf("object ids %v, want %v with the 1x1 tensor in object 0", plan.ObjectIDs, want)
	}
}
