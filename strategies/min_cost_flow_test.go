package strategies

import (
	"context"
	"errors"
	"math"
	"testing"

	"membench/workloads"
)

// refMinCostFlow is TFLite's MinCostFlowAssignment transcribed with its
// explicit flow graph (edge e's reverse is e^1, adjacency lists in
// insertion order), unsigned distances as in TFLite, 64-bit costs and a
// recursive extraction.
func refMinCostFlow(bufs []workloads.Buffer) ([]int, []int64) {
	n := len(bufs)
	source, sink := 2*n, 2*n+1
	type edge struct {
		dst  int
		cap  int
		cost int64
	}
	var edges []edge
	from := make([][]int, 2*n+2)
	add := func(src, dst int, cost int64) {
		from[src] = append(from[src], len(edges))
		edges = append(edges, edge{dst, 1, cost})
		from[dst] = append(from[dst], len(edges))
		edges = append(edges, edge{src, 0, -cost})
	}
	var old []int
	var q refQueue
	for i, b := range bufs {
		for {
			j, ok := q.pop(b.First)
			if !ok {
				break
			}
			old = append(old, j)
		}
		q = append(q, [2]int{b.Last, i})
		add(source, i, 0)
		add(n+i, sink, 0)
		add(source, n+i, b.Size)
		for _, j := range old {
			add(j, n+i, max(0, b.Size-bufs[j].Size))
		}
	}
	const inf = uint64(math.MaxInt64)
	prev := make([]int, 2*n+2)
	for {
		var cur, next []int
		lastIt := make([]int, 2*n+2)
		dist := make([]uint64, 2*n+2)
		for k := range dist {
			dist[k] = inf
		}
		it := 1
		cur = append(cur, source)
		lastIt[source] = it
		dist[source] = 0
		for len(cur) > 0 {
			it++
			for len(cur) > 0 {
				v := cur[0]
				cur = cur[1:]
				for _, e := range from[v] {
					if edges[e].cap > 0 {
						u := edges[e].dst
						nd := int64(dist[v]) + edges[e].cost
						if uint64(nd) < dist[u] {
							dist[u] = uint64(nd)
							prev[u] = e
							if lastIt[u] != it {
								next = append(next, u)
								lastIt[u] = it
							}
						}
					}
				}
			}
			cur, next = next, nil
		}
		if dist[sink] == inf {
			break
		}
		for v := sink; v != source; {
			edges[prev[v]].cap--
			edges[prev[v]^1].cap++
			v = edges[prev[v]^1].dst
		}
	}
	ids := make([]int, n)
	assigned := make([]bool, n)
	sizes := []int64{}
	var dfs func(t int) int64
	dfs = func(t int) int64 {
		size := bufs[t].Size
		assigned[t] = true
		ids[t] = len(sizes)
		for _, e := range from[t] {
			v := edges[e].dst
			if edges[e].cap == 0 && v >= n && v < 2*n && !assigned[v-n] {
				size = max(size, dfs(v-n))
			}
		}
		return size
	}
	for _, e := range from[source] {
		if v := edges[e].dst; edges[e].cap == 0 && v >= n && v < 2*n {
			sizes = append(sizes, dfs(v-n))
		}
	}
	return ids, sizes
}

func TestMinCostFlow(t *testing.T) {
	runObjectCases(t, minCostFlow{}, []objectCase{
		// Upstream Model.ChainRecords and Model.ComplexRecords.
		{"chain", [][3]int64{{16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5}}, []int{0, 1, 0, 1, 0}, []int64{64, 32}},
		{"complex", [][3]int64{{32, 0, 1}, {32, 1, 4}, {8, 2, 5}, {16, 3, 5}, {8, 4, 5}, {64, 5, 7}, {8, 6, 8}, {8, 7, 8}, {16, 8, 9}},
			[]int{0, 1, 2, 0, 3, 1, 3, 2, 0}, []int64{32, 64, 8, 8}},
		// probe_huge_sizes: TFLite's int costs overflow and leave tensors
		// unassigned; with 64-bit costs the 2000 reuses the big object.
		{"huge", [][3]int64{{3000000000, 0, 0}, {1000, 1, 1}, {3000000000, 2, 2}, {2000, 3, 3}},
			[]int{0, 1, 0, 0}, []int64{3000000000, 1000}},
	})
}

func TestMinCostFlowMatchesReference(t *testing.T) {
	compareWithRef(t, minCostFlow{}, refMinCostFlow)
}
func TestMinCostFlowCases(t *testing.T)    { testPlanCases(t, minCostFlow{}) }
func TestMinCostFlowBadInput(t *testing.T) { testBadInput(t, minCostFlow{}) }

// TestMinCostFlowCancel is testCancel at the most tensors min-cost-flow
// plans (it refuses testCancel's 100,000 at once).
func TestMinCostFlowCancel(t *testing.T) {
	p := dagProblem(mcfMaxTensors, 0, 1, 5)
	checkStops(t, func(ctx context.Context) error {
		_, err := minCostFlow{}.Plan(ctx, p)
		return err
	})
}

// BenchmarkMinCostFlow runs at n = 1,000 only: TFLite needs 12-23 s there.
// Use -benchtime=1x.
func BenchmarkMinCostFlow(b *testing.B) { benchObjects(b, minCostFlow{}, 1000) }

// TestMinCostFlowRefusesLarge checks that more than mcfMaxTensors tensors
// are refused before any search (before looking at the context), with
// the reason.
func TestMinCostFlowRefusesLarge(t *testing.T) {
	p := &workloads.Problem{}
	for i := range mcfMaxTensors + 1 {
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, First: i, Last: i, Size: int64(1 + i%7)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := minCostFlow{}.Plan(ctx, p)
	want := "min-cost-flow: 10001 tensors: too many buffers (more than 10000: TFLite's min-cost-flow search grows as about n^3, " +
		"one shortest-path search per tensor over every pair that can share an object, and would run for hours)"
	if !errors.Is(err, ErrTooManyBuffers) || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
