package strategies

import (
	"context"
	"fmt"
	"math"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// executorch-greedy and executorch-naive follow ExecuTorch's memory
// planning algorithms `greedy` and `naive` in pytorch/executorch
// exir/memory_planning.py at cff6f4dd32e630945b7188512c1f2b4f102b05ad
// (August 2026; the file last changed in 79cbc45f, June 2026).
//
// Their caller, apply_algo in the same file, hands them the specs as a
// list in the order collect_specs_from_nodes yields them: walking the
// graph's nodes in order, each spec at the first node that carries it,
// its producer, which is where its lifetime starts. That "input order" is
// here the buffers stably sorted by first task (executorchInputOrder);
// the outputs of one node keep problem order.
//
// Both first round every tensor's size up to the alignment (TensorSpec's
// realign: ExecuTorch's ALIGNMENT is 16 bytes, exir/tensor.py). membench
// uses the least common multiple of that and the problem's alignment, so
// every offset honours both.
//
// naive gives every tensor its own range, back to back in input order: no
// reuse.
//
// greedy sorts the tensors largest first by their size rounded to 16 bytes
// (the sort reads allocated_memory before greedy realigns the specs, while
// they still have TensorSpec's default alignment, 16, whatever the
// planner's alignment); equal keys come in reverse input order (it inserts
// them with bisect.insort, which keeps equal keys in input order, into an
// ascending list and then reverses it). Where the planner's alignment is
// not a multiple of 16, a tensor can so come after a smaller one with the
// same key and find a free object too small for it: ExecuTorch then stops
// on an assertion ("Allocation specs are not sorted"), and so does this
// port, with an error.
// It keeps a list of shared objects, each created with the size of its
// first tensor and never resized, holding tensors at offsets within it.
// Each tensor goes to
//
//  1. the first object (in creation order) none of whose tensors is live
//     at a common task with it, at offset 0; else
//  2. with allow_overlapping_allocations (the default), the first object
//     whose tensors live at a common task with it end, at the highest, at
//     some m > 0 with m + size within the object: at offset m; else
//  3. a new object.
//
// The objects are then laid back to back in creation order and a tensor's
// offset is its object's start plus its offset within the object.
// ExecuTorch's total is the sum of the object sizes (naive: of the rounded
// sizes), which is max(offset + rounded size) as each object's first
// tensor fills it; membench's footprint is max(offset + size), which can
// be smaller by the last object's rounding, and Plan.Arena keeps
// ExecuTorch's total where it differs.
// Both planners are offset planners here: an ExecuTorch object holds
// tensors live at the same time at different offsets, which membench's
// object plans (one tensor per object at a time) cannot express.
//
// Growth: naive O(n); greedy O(n log n) plus the number of pairs of
// tensors live at once (each tensor meets the placed tensors live with
// it), so O(n^2) when every tensor is live at once.
//
// Memory spaces are ExecuTorch's mem ids (TensorSpec.mem_id; none means
// 1). greedy sorts all the specs together, then gives each mem id its own
// list of shared objects (pick_shared_obj over shared_objects[mem_id]),
// lays each id's objects back to back from 0 (_compute_total_sizes,
// materialize_buffer) and returns one total per mem id (bufsizes); naive
// bumps one counter per mem id. The order within a mem id is the global
// order restricted to it, so planning each space apart gives the same
// offsets and totals: the registry's per-space planning (Info.Forms leaves
// out FormMemories) is the rule, Plan.Footprints the per-id footprints and
// Plan.Arena the sum of the totals. ExecuTorch has no capacity per mem
// id: a space's capacity is not planned for, and a plan over it fails
// validation.
//
// Not modelled: tensors planned in place of an input
// (inplace_base), input_mem_buffer_sizes and extra_padding (both 0 here),
// and MemoryPlanningAlgorithmSuite, which runs several algorithms and keeps
// the smallest (only greedy by default; best-of does that in membench).
// Lifetimes are inclusive, as in ExecuTorch and membench.

func init() {
	const arena = "the sum of the shared objects' sizes: the highest offset plus size rounded up to the alignment"
	alignDoc := workloads.ParamDoc{Name: "alignment", Default: "16",
		Doc: "ExecuTorch's alignment: sizes are rounded up to a multiple of it (and of the problem's alignment)"}
	Register(Info{
		Name:    "executorch-greedy",
		Runtime: "executorch",
		Kind:    Offsets,
		Doc: "ExecuTorch greedy (exir/memory_planning.py): size descending, each tensor into the first " +
			"shared object free at its lifetime, else above its live tensors in the first object with room, else a new object",
		Arena: arena,
		Params: []workloads.ParamDoc{alignDoc, {Name: "allow_overlapping_allocations", Default: "true",
			Doc: "place tensors above live ones inside an object (ExecuTorch's default); false allows only time-disjoint sharing"}},
		New: func(args *workloads.Args) (Strategy, error) {
			a, err := executorchAlignment("executorch-greedy", args)
			if err != nil {
				return nil, err
			}
			return executorchGreedy{align: a, overlap: args.Bool("allow_overlapping_allocations", true)}, nil
		},
	})
	Register(Info{
		Name:    "executorch-naive",
		Runtime: "executorch",
		Kind:    Offsets,
		Doc:     "ExecuTorch naive (exir/memory_planning.py): every tensor back to back in graph order (by first task), sizes rounded to the alignment; no reuse",
		Arena:   arena,
		Params:  []workloads.ParamDoc{alignDoc},
		New: func(args *workloads.Args) (Strategy, error) {
			a, err := executorchAlignment("executorch-naive", args)
			if err != nil {
				return nil, err
			}
			return executorchNaive{align: a}, nil
		},
	})
}

// executorchDefaultAlignment is ExecuTorch's ALIGNMENT (exir/tensor.py).
const executorchDefaultAlignment = 16

func executorchAlignment(name string, args *workloads.Args) (int64, error) {
	return alignmentParam(name, args, "alignment", executorchDefaultAlignment)
}

// alignmentParam reads the positive alignment parameter key (default def)
// of the strategy name.
func alignmentParam(name string, args *workloads.Args, key string, def int64) (int64, error) {
	a := args.Int64(key, def)
	if a < 1 {
		return 0, workloads.Usagef("%s: parameter %s=%d: want a positive integer", name, key, a)
	}
	return a, nil
}

// runtimeAlignment combines the alignment a runtime's caller imposes
// (param) with the problem's: their least common multiple, so that every
// offset honours both.
func runtimeAlignment(name string, param, problem int64) (int64, error) {
	a := param
	if problem > 1 {
		g, h := a, problem
		for h != 0 {
			g, h = h, g%h
		}
		a = a / g * problem
		if a/problem != param/g {
			return 0, fmt.Errorf("%s: alignment %d and the problem's alignment %d have no common multiple below 2^63", name, param, problem)
		}
	}
	return a, nil
}

// executorchRealign returns ExecuTorch's alignment combined with the
// problem's (their least common multiple) and the rounded sizes.
func executorchRealign(name string, p *workloads.Problem, align int64) (int64, []int64, error) {
	if err := kernel.RecordError(name, p.Buffers); err != nil {
		return 0, nil, err
	}
	a, err := runtimeAlignment(name, align, p.Alignment)
	if err != nil {
		return 0, nil, err
	}
	sizes := make([]int64, len(p.Buffers))
	for i, b := range p.Buffers {
		s := AlignUp(b.Size, a)
		if s < b.Size {
			return 0, nil, fmt.Errorf("%s: buffer %d (id %d): size %d overflows when rounded up to %d", name, i, b.ID, b.Size, a)
		}
		sizes[i] = s
	}
	return a, sizes, nil
}

type executorchNaive struct{ align int64 }

func (executorchNaive) Name() string { return "executorch-naive" }

func (e executorchNaive) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	_, sizes, err := executorchRealign("executorch-naive", p, e.align)
	if err != nil {
		return nil, err
	}
	offsets := make([]int64, len(sizes))
	var next int64
	for k, i := range executorchInputOrder(p.Buffers) {
		s := sizes[i]
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		offsets[i] = next
		if next += s; next < 0 {
			return nil, fmt.Errorf("executorch-naive: the arena overflows 2^63 bytes at buffer %d", i)
		}
	}
	return executorchPlan(p.Buffers, offsets, sizes), nil
}

type executorchGreedy struct {
	align   int64
	overlap bool
}

func (executorchGreedy) Name() string { return "executorch-greedy" }

func (e executorchGreedy) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	_, sizes, err := executorchRealign("executorch-greedy", p, e.align)
	if err != nil {
		return nil, err
	}
	offsets, err := executorchGreedyOffsets(ctx, p.Buffers, sizes, e.overlap, true)
	if err != nil {
		return nil, err
	}
	return executorchPlan(p.Buffers, offsets, sizes), nil
}

// executorchPlan is the plan of offsets for bufs, whose sizes ExecuTorch
// rounded to sizes, with ExecuTorch's total as its arena.
func executorchPlan(bufs []workloads.Buffer, offsets, sizes []int64) *Plan {
	var total int64
	for i, off := range offsets {
		total = max(total, off+sizes[i])
	}
	return setArena(&Plan{Offsets: offsets, Footprint: Footprint(bufs, offsets)}, total)
}

// executorchInputOrder is the order apply_algo hands ExecuTorch's
// planners the specs in: by first task, ties in problem order.
func executorchInputOrder(bufs []workloads.Buffer) []int32 {
	return kernel.ByFirst(bufs)
}

// executorchGreedyOffsets runs ExecuTorch's greedy on the rounded sizes.
// ExecuTorch scans every allocation of every object for each tensor; here
// one index over time hands each tensor the placed tensors live with it,
// each tagged with its object and its end within the object, which is all
// that rules 1 and 2 look at.
//
// When every placed tensor is live with the tensor at hand (dense inputs;
// with fastDense only, so that tests can compare), the rules need nothing
// gathered: every object has a live tensor, and its top, the top of all
// its tensors, is its size, as the tensor that opened it filled it (every
// tensor ends within its object); so rule 1 has no object and rule 2 room
// only for tensors of size 0.
func executorchGreedyOffsets(ctx context.Context, bufs []workloads.Buffer, sizes []int64, overlap, fastDense bool) ([]int64, error) {
	n := len(bufs)
	// Largest key first, equal keys in reverse input order (by first task,
	// then buffer: executorchInputOrder).
	order := kernel.StableOrder(n,
		func(i int32) int64 { return -AlignUp(bufs[i].Size, executorchDefaultAlignment) },
		func(i int32) int64 { return -int64(bufs[i].First) },
		func(i int32) int64 { return -int64(i) })

	ix := kernel.NewTimeIndex(kernel.NewTaskSpans(bufs, false))
	// The placed tensors' spans end at minEnd or later and start at
	// maxStart or earlier.
	minEnd, maxStart := int32(math.MaxInt32), int32(-1)
	obj := make([]int32, n)   // object of each buffer
	inner := make([]int64, n) // offset within the object
	var objSize []int64
	// Per object, for the current tensor: stamp marks objects with a live
	// tensor, top is the highest end of those.
	type objState struct {
		stamp int32
		top   int64
	}
	var state []objState
	var items []kernel.Placed
	var touched []int32
	work := 0
	for k, i := range order {
		// Poll ctx by work done: a tensor can overlap every placed one.
		if work += len(items) + 1; work >= kernel.CtxCheckEvery*64 || k == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			work = 0
		}
		s := sizes[i]
		id := ix.ID[i]
		sp := ix.Span[id]
		o, at := int32(-1), int64(0)
		if fastDense && minEnd >= sp[0] && maxStart <= sp[1] {
			items = items[:0]
			// Rule 1 has no object: each has a tensor, all live. Rule 2
			// has room only for an empty tensor, in object 0 unless that
			// is empty too (then the first tensor in size order had size
			// 0, and so had every tensor).
			if overlap && s == 0 && len(objSize) > 0 && objSize[0] > 0 {
				o, at = 0, objSize[0]
			}
		} else {
			items = ix.Overlapping(items[:0], id)
			touched = touched[:0]
			for _, it := range items {
				st := &state[it.Off] // the index stores (object, end within it)
				if st.stamp != int32(k+1) {
					st.stamp, st.top = int32(k+1), 0
					touched = append(touched, int32(it.Off))
				}
				st.top = max(st.top, it.End)
			}
			if len(touched) < len(objSize) {
				// Rule 1: the first object with no live tensor.
				for o = 0; state[o].stamp == int32(k+1); o++ {
				}
				if objSize[o] < s {
					return nil, fmt.Errorf("executorch-greedy: buffer %d (id %d, %d bytes) comes after a smaller one of the same 16-byte size and fits no free object: ExecuTorch fails here too (assertion \"Allocation specs are not sorted\"); use an alignment that is a multiple of 16",
						i, bufs[i].ID, s)
				}
			} else if overlap {
				// Rule 2: every object has a live tensor; the first with room
				// above them.
				for _, c := range touched {
					if t := state[c].top; t > 0 && t+s <= objSize[c] && (o < 0 || c < o) {
						o, at = c, t
					}
				}
			}
		}
		if o < 0 {
			o = int32(len(objSize))
			objSize = append(objSize, s)
			state = append(state, objState{})
		}
		obj[i], inner[i] = o, at
		ix.Place(id, kernel.Placed{Off: int64(o), End: at + s, Seq: int32(k + 1)})
		minEnd, maxStart = min(minEnd, sp[1]), max(maxStart, sp[0])
	}
	// Objects back to back in creation order.
	start := make([]int64, len(objSize))
	var next int64
	for o, s := range objSize {
		start[o] = next
		if next += s; next < 0 {
			return nil, fmt.Errorf("executorch-greedy: the arena overflows 2^63 bytes")
		}
	}
	offsets := make([]int64, n)
	for i := range offsets {
		offsets[i] = start[obj[i]] + inner[i]
	}
	return offsets, nil
}
