package strategies

import (
	"context"
	"fmt"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name:    "greedy-in-order",
		Runtime: "tflite-gpu",
		Kind:    Objects,
		Doc:     "TFLite GREEDY_IN_ORDER: in order of first use, take the free object that wastes least (grow it if smaller); honours a reallocation graph; on textures, the least-waste free object that covers the tensor",
		// Textures take GreedyInOrderAssignmentMultidimensional
		// (greedy_in_order_shapes.go); BHWC shapes have no variant.
		SizeTypes: []workloads.SizeType{workloads.SizeTexture2D, workloads.SizeTexture3D},
		New:       Simple(func() Strategy { return greedyInOrder{} }),
	})
}

// greedyInOrder is TFLite's GreedyInOrderAssignment. Without a
// reallocation graph the free pool is an ordered set on (size, id) and a
// tensor looks at its two neighbours in it; with one (Problem.Reuse) it is
// greedyInOrderReuse, and on textures greedyInOrderShapes.
type greedyInOrder struct{}

func (greedyInOrder) Name() string { return "greedy-in-order" }

func (greedyInOrder) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	switch {
	case p.SizeType == workloads.SizeTexture2D || p.SizeType == workloads.SizeTexture3D:
		dims := p.SizeType.Dims()
		return planSortedShapes(ctx, "greedy-in-order", p, func(ctx context.Context, bufs []workloads.Buffer, shapes []workloads.Shape) ([]int, []workloads.Shape, error) {
			return greedyInOrderShapes(ctx, bufs, shapes, dims)
		})
	case p.SizeType != workloads.SizeBytes:
		return nil, fmt.Errorf("greedy-in-order: %s sizes: %w", p.SizeType, ErrUnsupportedSizeType)
	case p.Reuse != nil:
		if err := workloads.CheckShapes(p); err != nil {
			return nil, fmt.Errorf("greedy-in-order: %w", err)
		}
		return planSorted(ctx, "greedy-in-order", p, func(ctx context.Context, bufs []workloads.Buffer, perm []int32) ([]int, []int64, error) {
			return greedyInOrderReuse(ctx, bufs, perm, p.Reuse)
		})
	}
	return planSortedObjects(ctx, "greedy-in-order", p, greedyInOrderAssign)
}

func greedyInOrderAssign(ctx context.Context, bufs []workloads.Buffer) ([]int, []int64, error) {
	n := len(bufs)
	ids := make([]int, n)
	pool := objectPool{root: -1, seed: 2463534242}
	queue := newObjectQueue(bufs)
	for i, b := range bufs {
		out, err := queue.before(ctx, i)
		if err != nil {
			return nil, nil, err
		}
		// Objects go back to the pool in any order: it is a set.
		for _, t := range out {
			pool.insert(int32(ids[t]))
		}
		s := b.Size
		// A: smallest free object of size >= s (ties: lowest id).
		// B: largest free object of size < s (ties: highest id).
		// B wins only on strictly less waste.
		a, bb := pool.around(s)
		best := a
		if bb >= 0 && (a < 0 || s-pool.nodes[bb].size < pool.nodes[a].size-s) {
			best = bb
		}
		if best < 0 {
			best = pool.add(s)
		} else {
			pool.erase(best)
			pool.nodes[best].size = max(pool.nodes[best].size, s)
		}
		ids[i] = int(best)
	}
	return ids, pool.sizes(), nil
}

// objectPool holds every object ever created and the free ones in a treap
// ordered by (size, id). Nodes are object ids, so the tree lives in one
// flat array with no per-node allocation, and every operation is a loop
// (no recursion). An object's size only changes while it is out of the
// tree.
type objectPool struct {
	nodes []poolNode
	root  int32
	seed  uint32 // xorshift32 state, never 0
}

type poolNode struct {
	size        int64
	left, right int32
	prio        uint32
}

// add creates a new object of size s (not in the free tree) and returns
// its id.
func (t *objectPool) add(s int64) int32 {
	// xorshift32: priorities only shape the tree, never the answer.
	t.seed ^= t.seed << 13
	t.seed ^= t.seed >> 17
	t.seed ^= t.seed << 5
	t.nodes = append(t.nodes, poolNode{size: s, left: -1, right: -1, prio: t.seed})
	return int32(len(t.nodes) - 1)
}

// sizes returns the objects' sizes by id.
func (t *objectPool) sizes() []int64 {
	out := make([]int64, len(t.nodes))
	for k, nd := range t.nodes {
		out[k] = nd.size
	}
	return out
}

func (t *objectPool) less(a, b int32) bool {
	sa, sb := t.nodes[a].size, t.nodes[b].size
	return sa < sb || sa == sb && a < b
}

// around returns the smallest free object with size >= s and the largest
// with size < s (-1 where there is none).
func (t *objectPool) around(s int64) (ge, lt int32) {
	ge, lt = -1, -1
	for n := t.root; n >= 0; {
		if nd := &t.nodes[n]; nd.size >= s {
			ge = n
			n = nd.left
		} else {
			lt = n
			n = nd.right
		}
	}
	return ge, lt
}

// insert puts object id into the free tree.
func (t *objectPool) insert(id int32) {
	nodes := t.nodes
	prio := nodes[id].prio
	// Descend to where id's priority puts it ...
	link := &t.root
	for n := *link; n >= 0 && nodes[n].prio >= prio; n = *link {
		if t.less(id, n) {
			link = &nodes[n].left
		} else {
			link = &nodes[n].right
		}
	}
	// ... and split the subtree there into id's two children.
	n := *link
	*link = id
	l, r := &nodes[id].left, &nodes[id].right
	for n >= 0 {
		if t.less(n, id) {
			*l = n
			l = &nodes[n].right
			n = *l
		} else {
			*r = n
			r = &nodes[n].left
			n = *r
		}
	}
	*l, *r = -1, -1
}

// erase takes object id out of the free tree.
func (t *objectPool) erase(id int32) {
	nodes := t.nodes
	link := &t.root
	for *link != id {
		if n := *link; t.less(id, n) {
			link = &nodes[n].left
		} else {
			link = &nodes[n].right
		}
	}
	// Merge id's subtrees in its place.
	a, b := nodes[id].left, nodes[id].right
	for a >= 0 && b >= 0 {
		if nodes[a].prio > nodes[b].prio {
			*link = a
			link = &nodes[a].right
			a = *link
		} else {
			*link = b
			link = &nodes[b].left
			b = *link
		}
	}
	if a >= 0 {
		*link = a
	} else {
		*link = b
	}
}
