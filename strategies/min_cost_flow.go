package strategies

import (
	"context"
	"errors"
	"fmt"
	"math"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name:    "min-cost-flow",
		Runtime: "tflite-gpu",
		Kind:    Objects,
		Doc:     "TFLite MINCOSTFLOW: min-cost matching of each tensor to a released predecessor or a new object (SPFA successive shortest paths; O(n^3)-ish, for small graphs: refuses more than 10,000 tensors)",
		New:     Simple(func() Strategy { return minCostFlow{} }),
	})
}

// minCostFlow is TFLite's MinCostFlowAssignment with 64-bit costs.
//
// TFLite stores the flow graph explicitly: O(n^2) edges. Its edges follow
// a pattern, so this port keeps them implicit. With vertices left j, right
// i, source and sink:
//   - source: ->left i (cost 0), ->right i (cost size i), for i = 0, 1, ...
//   - left j: ->source (reverse), then ->right i (cost max(0, size i -
//     size j)) for every i >= start[j], the record at which j was released;
//   - right i: ->sink, ->source (reverse), then ->left j (reverse) for
//     every j released before i;
//   - sink: ->right i (reverse) for i = 0, 1, ...
//
// Every right i has inflow at most 1, so at most one of its reverse edges
// to the left side has capacity: the one to flowFrom[i]. Edges back to
// the source never relax (its distance is 0, and no distance goes
// negative), so they are skipped. Scanning the other edges with capacity
// in that order reproduces TFLite's SPFA exactly, including which of
// several equally short paths it augments, in O(n) memory.
type minCostFlow struct{}

func (minCostFlow) Name() string { return "min-cost-flow" }

func (minCostFlow) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	if n := len(p.Buffers); n > mcfMaxTensors {
		return nil, fmt.Errorf("min-cost-flow: %d tensors: %w (more than %d: TFLite's min-cost-flow search grows as about n^3, "+
			"one shortest-path search per tensor over every pair that can share an object, and would run for hours)",
			n, ErrTooManyBuffers, mcfMaxTensors)
	}
	return planSortedObjects(ctx, "min-cost-flow", p, minCostFlowAssign)
}

// mcfMaxTensors is the most tensors min-cost-flow plans. Its successive
// shortest paths run one SPFA per tensor over an implicit graph with an
// edge for every pair of tensors that do not overlap (E, up to n^2/2),
// scanning about 2.6 n·E edges in all (counted on idealloc/g-1 and random
// DAGs), and O(n^2) per search besides. Measured: 2.2 s at n = 816
// (idealloc/g-1), 473 s on the first 8,000 buffers of idealloc/y-1 (both
// under load). idealloc/y-1 (n = 62,185, E = 1.75e9) would need about
// 3e14 edge scans, days. Skipping the scans would not be enough: each of
// the n searches starts by relaxing every source edge not yet saturated
// (2n-k of them before augmentation k: an augmenting path saturates one,
// and edges back to the source never relax), and SPFA then processes
// each vertex so reached, so the searches process at least 1.5n^2
// vertices, whatever finds a left vertex's improved neighbours; counted,
// they process 4.9n^2 on idealloc/g-1 and 3.9n^2 on idealloc/resnet50,
// about 1.5e10 on idealloc/y-1 at 4n^2, and SPFA's choice among equally
// short paths depends on that processing order. Past this size it refuses
// at once instead of running into a timeout.
const mcfMaxTensors = 10000

// mcfInf is the distance of an unreached vertex.
const mcfInf = math.MaxInt64

// mcfCheckWork is how many edge scans the solver does between ctx checks.
const mcfCheckWork = 1 << 18

type mcfSolver struct {
	n            int
	source, sink int32
	size         []int64
	// start[j] is when record j joins TFLite's old_record_ids (for good):
	// the first record whose right vertex left j has an edge to (n if
	// none).
	start []int32
	// Saturated source->left, source->right and right->sink edges.
	satSL, satSR, satRT []bool
	// flowTo[j] = i and flowFrom[i] = j where left j -> right i carries
	// flow; -1 where none.
	flowTo, flowFrom []int32

	dist   []int64
	prev   []int32 // the vertex a vertex's distance last came from
	lastIt []int   // the round a vertex was last queued for
	it     int
	cur    []int32
	next   []int32
	work   int
}

func minCostFlowAssign(ctx context.Context, bufs []workloads.Buffer) ([]int, []int64, error) {
	n := len(bufs)
	if n == 0 {
		return []int{}, []int64{}, nil
	}
	if n > math.MaxInt32/2-1 {
		return nil, nil, fmt.Errorf("min-cost-flow: %d buffers is too many", n)
	}
	s := &mcfSolver{
		n:        n,
		source:   int32(2 * n),
		sink:     int32(2*n + 1),
		size:     make([]int64, n),
		start:    releaseAt(bufs),
		satSL:    make([]bool, n),
		satSR:    make([]bool, n),
		satRT:    make([]bool, n),
		flowTo:   make([]int32, n),
		flowFrom: make([]int32, n),
		dist:     make([]int64, 2*n+2),
		prev:     make([]int32, 2*n+2),
		lastIt:   make([]int, 2*n+2),
		cur:      make([]int32, 0, 2*n+2),
		next:     make([]int32, 0, 2*n+2),
	}
	for i, b := range bufs {
		s.size[i] = b.Size
		s.flowTo[i], s.flowFrom[i] = -1, -1
	}
	for flow := 0; ; flow++ {
		found, err := s.shortestPath(ctx)
		if err != nil {
			return nil, nil, err
		}
		if !found {
			break
		}
		if flow == n {
			return nil, nil, errors.New("min-cost-flow: more augmenting paths than tensors")
		}
		if err := s.augment(); err != nil {
			return nil, nil, err
		}
	}
	return s.extract()
}

// relax is TFLite's relaxation: its distances are unsigned, so a negative
// candidate never wins. (Without negative cycles none arises; the unsigned
// compare keeps the port literal.)
func (s *mcfSolver) relax(u int32, nd int64, v int32) {
	if uint64(nd) < uint64(s.dist[u]) {
		s.dist[u] = nd
		s.prev[u] = v
		if s.lastIt[u] != s.it {
			s.next = append(s.next, u)
			s.lastIt[u] = s.it
		}
	}
}

// shortestPath runs TFLite's round-based SPFA from the source and reports
// whether the sink was reached.
func (s *mcfSolver) shortestPath(ctx context.Context) (bool, error) {
	n := s.n
	for k := range s.dist {
		s.dist[k] = mcfInf
	}
	s.it++
	s.dist[s.source] = 0
	s.lastIt[s.source] = s.it
	s.cur = append(s.cur[:0], s.source)
	for len(s.cur) > 0 {
		s.it++
		s.next = s.next[:0]
		for _, v := range s.cur {
			if s.work >= mcfCheckWork {
				s.work = 0
				if err := ctx.Err(); err != nil {
					return false, err
				}
			}
			switch {
			case int(v) < n:
				s.scanLeft(v)
			case v < s.source:
				i := int(v) - n
				d := s.dist[v]
				if !s.satRT[i] {
					s.relax(s.sink, d, v)
				}
				if j := s.flowFrom[i]; j >= 0 {
					s.relax(j, d-max(0, s.size[i]-s.size[j]), v)
				}
				s.work++
			case v == s.source:
				for i := range n {
					if !s.satSL[i] {
						s.relax(int32(i), 0, v)
					}
					if !s.satSR[i] {
						s.relax(int32(n+i), s.size[i], v)
					}
				}
				s.work += n
			default: // sink
				d := s.dist[v]
				for i := range n {
					if s.satRT[i] {
						s.relax(int32(n+i), d, v)
					}
				}
				s.work += n
			}
		}
		s.cur, s.next = s.next, s.cur
	}
	return s.dist[s.sink] != mcfInf, nil
}

// scanLeft relaxes left j's edges to right start[j], ..., right n-1; the
// hot loop of the solver.
func (s *mcfSolver) scanLeft(v int32) {
	j := int(v)
	n := s.n
	lo := int(s.start[j])
	dj := s.dist[j]
	sj := s.size[j]
	skip := int(s.flowTo[j]) // the saturated edge, if any
	sz := s.size[lo:n]
	dr := s.dist[n+lo : 2*n]
	dr = dr[:len(sz)] // lets the compiler drop the bounds checks
	for k, si := range sz {
		nd := dj + max(0, si-sj)
		if uint64(nd) < uint64(dr[k]) && lo+k != skip {
			u := int32(n + lo + k)
			dr[k] = nd
			s.prev[u] = v
			if s.lastIt[u] != s.it {
				s.next = append(s.next, u)
				s.lastIt[u] = s.it
			}
		}
	}
	s.work += n - lo + 1
}

// augment pushes one unit of flow along the path found, from the sink
// back to the source.
func (s *mcfSolver) augment() error {
	n := int32(s.n)
	steps := 0
	for v := s.sink; v != s.source; {
		u := s.prev[v]
		switch {
		case u == s.source:
			if v < n {
				s.satSL[v] = true
			} else {
				s.satSR[v-n] = true
			}
		case v == s.sink:
			s.satRT[u-n] = true
		case u == s.sink:
			s.satRT[v-n] = false
		case u < n: // left u -> right v
			s.flowTo[u] = v - n
			s.flowFrom[v-n] = u
		default: // right u -> left v cancels v -> u
			if s.flowTo[v] == u-n {
				s.flowTo[v] = -1
			}
			if s.flowFrom[u-n] == v {
				s.flowFrom[u-n] = -1
			}
		}
		v = u
		if steps++; steps > 2*s.n+2 {
			return errors.New("min-cost-flow: augmenting path does not reach the source")
		}
	}
	return nil
}

// extract reads the objects off the flow as TFLite does: every saturated
// source->right i starts a new object (in order of i) holding i and the
// chain of tensors reusing it; its size is the chain's largest.
func (s *mcfSolver) extract() ([]int, []int64, error) {
	n := s.n
	ids := make([]int, n)
	for i := range ids {
		ids[i] = -1
	}
	sizes := []int64{}
	for i := range n {
		if !s.satSR[i] {
			continue
		}
		k := len(sizes)
		var size int64
		for t := int32(i); t >= 0 && ids[t] < 0; t = s.flowTo[t] {
			ids[t] = k
			size = max(size, s.size[t])
		}
		sizes = append(sizes, size)
	}
	for i, id := range ids {
		if id < 0 {
			return nil, nil, fmt.Errorf("min-cost-flow: tensor %d left unassigned by the flow", i)
		}
	}
	return ids, sizes, nil
}
