package strategies

import (
	"cmp"
	"context"
	"math"
	"slices"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// mxnet-match-range follows MXNet's MXPlanMemory pass: the GraphAllocator
// of apache/mxnet src/nnvm/plan_memory.cc at b84609d3fc73d20929c114eab95faaa56e6c5ede
// (the repository's last commit, January 2023; the file last changed in
// 1add2503124389d41504e0cb684ffe16d0ab0676, November 2021). The file
// graph_memory_allocator.cc the issue names does not exist there: the
// allocator lives in plan_memory.cc.
//
// MXNet walks the graph's nodes in order. At each node it first requests
// storage for the node's outputs, largest first (equal sizes: the
// output listed last first, as a reversed multimap iteration gives), then
// releases the inputs whose reference count drops to zero, then the
// outputs nobody reads. Storage is a set of shared objects, each with the
// largest size ever requested from it; released objects wait in a multimap
// keyed by that size, equal keys in release order. A request for s bytes
// with match range k:
//
//   - takes the first free object with size >= s, if its size is at most
//     s*k (it keeps its size);
//   - else the free object just below s (the largest size < s, the last
//     released among equal sizes), if its size is at least s/k (integer
//     division); the object grows to s;
//   - else a new object of s bytes.
//
// With k = 0 every request gets a new object. MXNet's default is k = 16
// (NNVM_EXEC_MATCH_RANGE); the search over k = 1, 2, ... 16 runs only
// under MXNET_MEMORY_OPT and is not reproduced. Zero-size outputs are
// requested like any other (only a free object of 0 bytes, or a new one,
// serves them). The arena MXNet reports, storage_allocated_bytes
// (TotalAllocBytes), is the sum of the objects' sizes: the plan's
// footprint at alignment 1.
//
// Growth: O(n log n) (the free objects sit in a balanced tree).
//
// In membench terms a node is a task: at task t the buffers with First == t
// are requested, then those with Last == t and First < t are released (in
// buffer order, MXNet's input order not being modelled), then those with
// First == Last == t. Sizes are compared in bytes where MXNet sorts a node's
// outputs by element count. Not modelled: in-place reuse of an input's
// storage (FInplaceOption), devices and node colouring (one device, one
// colour: MXNet's defaults).

func init() {
	Register(Info{
		Name:    "mxnet-match-range",
		Runtime: "mxnet",
		Kind:    Objects,
		Doc: "MXNet GraphAllocator (plan_memory.cc): in task order, outputs largest first take the " +
			"smallest free object of size in [s, s*k], else the largest in [s/k, s) (grown), else a new one",
		Params: []workloads.ParamDoc{{Name: "match_range", Default: "16",
			Doc: "k: free objects of size within [s/k, s*k] may serve a request of s bytes; 0 disables reuse"}},
		New: func(args *workloads.Args) (Strategy, error) {
			k := args.Int64("match_range", 16)
			if k < 0 {
				return nil, workloads.Usagef("mxnet-match-range: parameter match_range=%d: want a non-negative integer", k)
			}
			return mxnetMatchRange{k}, nil
		},
	})
}

type mxnetMatchRange struct{ k int64 }

func (m mxnetMatchRange) Name() string { return "mxnet-match-range" }

func (m mxnetMatchRange) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	ids, sizes, err := mxnetObjects(ctx, p.Buffers, m.k)
	if err != nil {
		return nil, err
	}
	plan := &Plan{ObjectIDs: ids, ObjectSizes: sizes}
	ObjectsToOffsets(plan, p.Buffers, p.Alignment)
	return plan, nil
}

// mxnetObjects assigns buffers to MXNet's storage entries with match range k.
func mxnetObjects(ctx context.Context, bufs []workloads.Buffer, k int64) ([]int, []int64, error) {
	if err := kernel.RecordError("mxnet-match-range", bufs); err != nil {
		return nil, nil, err
	}
	n := len(bufs)
	// Requests: by task, then size descending, then buffer order reversed.
	allocs := make([]int32, n)
	frees := make([]int32, n)
	for i := range n {
		allocs[i], frees[i] = int32(i), int32(i)
	}
	slices.SortFunc(allocs, func(a, b int32) int {
		x, y := &bufs[a], &bufs[b]
		if c := cmp.Compare(x.First, y.First); c != 0 {
			return c
		}
		if c := cmp.Compare(y.Size, x.Size); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	// Releases: by task, inputs (First < Last) before unread outputs, then
	// buffer order.
	slices.SortFunc(frees, func(a, b int32) int {
		x, y := &bufs[a], &bufs[b]
		if c := cmp.Compare(x.Last, y.Last); c != 0 {
			return c
		}
		xo, yo := x.First == x.Last, y.First == y.Last
		if xo != yo {
			if yo {
				return -1
			}
			return 1
		}
		return cmp.Compare(a, b)
	})

	ids := make([]int, n)
	var sizes []int64
	var free kernel.KeyTreap // storage id -> (max_bytes, release order)
	var released int64
	request := func(s int64) int32 {
		if k == 0 {
			sizes = append(sizes, s)
			return int32(len(sizes) - 1)
		}
		hi := int64(math.MaxInt64)
		if s <= math.MaxInt64/k {
			hi = s * k
		}
		if e := free.Ceil(kernel.OrderedKey{s, math.MinInt64, 0}); e >= 0 && free.Key[e][0] <= hi {
			free.Erase(e)
			return e
		}
		if e := free.Lower(kernel.OrderedKey{s, math.MinInt64, 0}); e >= 0 && free.Key[e][0] >= s/k {
			free.Erase(e)
			sizes[e] = s // the largest request so far: e held less than s
			return e
		}
		sizes = append(sizes, s)
		return int32(len(sizes) - 1)
	}
	a, f := 0, 0
	for step := 0; a < n || f < n; step++ {
		if step%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		t := bufs[frees[f]].Last
		if a < n && bufs[allocs[a]].First <= t {
			t = bufs[allocs[a]].First
		}
		for ; a < n && bufs[allocs[a]].First == t; a++ {
			i := allocs[a]
			ids[i] = int(request(bufs[i].Size))
		}
		for ; f < n && bufs[frees[f]].Last == t; f++ {
			e := int32(ids[frees[f]])
			free.Grow(len(sizes))
			released++
			free.Key[e] = kernel.OrderedKey{sizes[e], released, 0}
			free.Insert(e)
		}
	}
	if sizes == nil {
		sizes = []int64{}
	}
	return ids, sizes, nil
}
