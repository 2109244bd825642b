package strategies

import (
	"context"
	"slices"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// TaskProfiles returns, for every task t in [0, max Last], the indices of
// the buffers live at t, sorted by size descending with ties in index order
// (TFLite's CalculateTaskProfiles, which uses a stable sort). Buffers with
// First < 0 are clamped to 0.
func TaskProfiles(bufs []workloads.Buffer) [][]int32 {
	T := 0
	for _, b := range bufs {
		if b.Last+1 > T {
			T = b.Last + 1
		}
	}
	counts := make([]int32, T)
	for _, b := range bufs {
		for t := max(b.First, 0); t <= b.Last; t++ {
			counts[t]++
		}
	}
	// One flat backing array keeps the L entries contiguous.
	total := 0
	for _, c := range counts {
		total += int(c)
	}
	flat := make([]int32, total)
	profiles := make([][]int32, T)
	pos := 0
	for t, c := range counts {
		profiles[t] = flat[pos : pos : pos+int(c)]
		pos += int(c)
	}
	// Appending in one global stable size order leaves every profile
	// sorted, with no per-task sort.
	for _, i := range kernel.BySizeDescending(bufs) {
		b := bufs[i]
		for t := max(b.First, 0); t <= b.Last; t++ {
			profiles[t] = append(profiles[t], i)
		}
	}
	return profiles
}

// PositionalMaximums returns TFLite's positional maximums: element k is the
// maximum over tasks of the k-th largest size live at that task. The
// sequence is non-increasing; its sum is LB_objects.
//
// It needs no task profiles: pm[k] >= s exactly when some task has more
// than k live buffers of size >= s. Buffers are added largest first to a
// segment tree counting, per task, the live buffers added so far; after
// each run of equal sizes s, the entries up to the tree's maximum that are
// still unset become s. That is O(n log n), whatever the lifetimes.
func PositionalMaximums(bufs []workloads.Buffer) []int64 {
	pm, _ := positionalMaximums(context.Background(), bufs)
	return pm
}

// positionalMaximums is PositionalMaximums for planners, which must stop
// when ctx is cancelled.
func positionalMaximums(ctx context.Context, bufs []workloads.Buffer) ([]int64, error) {
	// The count peaks at a task where some buffer starts, so only starts
	// need a leaf.
	var starts []int
	for _, b := range bufs {
		if f := max(b.First, 0); f <= b.Last {
			starts = append(starts, f)
		}
	}
	slices.Sort(starts)
	starts = slices.Compact(starts)
	tree := newMaxAddTree(len(starts))
	var pm []int64
	order := kernel.BySizeDescending(bufs)
	for k := 0; k < len(order); {
		s := bufs[order[k]].Size
		for ; k < len(order) && bufs[order[k]].Size == s; k++ {
			if k%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			b := bufs[order[k]]
			f := max(b.First, 0)
			if f > b.Last {
				continue
			}
			lo, _ := slices.BinarySearch(starts, f)
			hi, found := slices.BinarySearch(starts, b.Last)
			if found {
				hi++
			}
			tree.add(lo, hi)
		}
		for int32(len(pm)) < tree.max() {
			pm = append(pm, s)
		}
	}
	return pm, nil
}

// maxAddTree is a segment tree over n leaves supporting +1 on a range and
// the maximum over all leaves.
type maxAddTree struct {
	size int
	best []int32 // max of the subtree, pending adds included
	add1 []int32 // adds applied to the whole subtree
}

func newMaxAddTree(n int) *maxAddTree {
	size := 1
	for size < n {
		size *= 2
	}
	return &maxAddTree{size: size, best: make([]int32, 2*size), add1: make([]int32, 2*size)}
}

// add adds 1 to leaves [lo, hi).
func (t *maxAddTree) add(lo, hi int) {
	if lo >= hi {
		return
	}
	l, r := lo+t.size, hi+t.size
	for l < r {
		if l&1 == 1 {
			t.best[l]++
			t.add1[l]++
			l++
		}
		if r&1 == 1 {
			r--
			t.best[r]++
			t.add1[r]++
		}
		l, r = l/2, r/2
	}
	t.pull(lo + t.size)
	t.pull(hi - 1 + t.size)
}

// pull recomputes the ancestors of node i.
func (t *maxAddTree) pull(i int) {
	for i /= 2; i >= 1; i /= 2 {
		t.best[i] = max(t.best[2*i], t.best[2*i+1]) + t.add1[i]
	}
}

func (t *maxAddTree) max() int32 { return t.best[1] }
