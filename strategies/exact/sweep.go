package exact

import (
	"cmp"
	"context"
	"slices"

	"membench/workloads"
)

// instance is the part of a problem the search works on: the buffers of
// non-zero size (zero-size buffers overlap nothing and sit at offset 0),
// cut into sections of time in which the set of live buffers is constant.
type instance struct {
	// idx[k] is the problem index of search buffer k.
	idx  []int
	size []int64
	// asize[k] is size[k] rounded up to the alignment: what buffer k
	// takes from the buffers stacked above it.
	asize []int64
	first []int
	last  []int
	align int64
	// Buffer k lives in sections secLo[k] .. secHi[k]-1.
	secLo, secHi []int32
	// secBufs[s] lists the buffers live in section s.
	secBufs [][]int32
	// load[s] is the sum of the sizes of the buffers live in section s;
	// aload[s] the sum of their asize.
	load, aload []int64
	// pad[s] is the largest asize-size of the buffers live in section s.
	// Offsets are aligned, so a stack of buffers of s reaches at least its
	// base plus the sum of their asize, less the top one's padding, less
	// pad[s] at most.
	pad []int64
	// overlaps[k] lists the buffers whose lifetimes meet buffer k's.
	overlaps [][]int32
	// twin[k] is the buffer of the same size and lifetime as k with the
	// next lower index, or -1. Identical buffers are interchangeable, so
	// they are placed in index order (every static order keeps them
	// adjacent, by index).
	twin []int32
	// parts are the independent sub-problems: no buffer lives on both
	// sides of the boundary between two consecutive parts.
	parts []part
}

// part is a range of sections and the buffers living in them.
type part struct {
	secLo, secHi int32
	bufs         []int32
	// lb is the part's peak load: no plan of it fits below. alb is the
	// largest aload[s]-pad[s] of its sections: no plan fits below it
	// either.
	lb, alb int64
}

// ctxEvery is how many loop steps pass between context checks while the
// instance is built.
const ctxEvery = 4096

// newInstance builds the sections, overlaps and parts of p's buffers.
func newInstance(ctx context.Context, p *workloads.Problem) (*instance, error) {
	in := &instance{align: max(p.Alignment, 1)}
	for i, b := range p.Buffers {
		if b.Size > 0 {
			in.idx = append(in.idx, i)
			in.size = append(in.size, b.Size)
			in.asize = append(in.asize, alignUp(b.Size, in.align))
			in.first = append(in.first, b.First)
			in.last = append(in.last, b.Last)
		}
	}
	n := len(in.idx)
	// Section boundaries: every first task and every last task + 1.
	points := make([]int, 0, 2*n)
	for k := range n {
		points = append(points, in.first[k], in.last[k]+1)
	}
	slices.Sort(points)
	points = slices.Compact(points)
	nsec := max(len(points)-1, 0)
	in.secLo = make([]int32, n)
	in.secHi = make([]int32, n)
	counts := make([]int32, nsec+1)
	in.load = make([]int64, nsec)
	in.aload = make([]int64, nsec)
	diff := make([]int64, nsec+1)
	adiff := make([]int64, nsec+1)
	cross := make([]int32, nsec+1)
	for k := range n {
		lo, _ := slices.BinarySearch(points, in.first[k])
		hi, _ := slices.BinarySearch(points, in.last[k]+1)
		in.secLo[k], in.secHi[k] = int32(lo), int32(hi)
		diff[lo] += in.size[k]
		diff[hi] -= in.size[k]
		adiff[lo] += in.asize[k]
		adiff[hi] -= in.asize[k]
		counts[lo]++
		counts[hi]--
		// The boundaries strictly inside the lifetime are crossed.
		if lo+1 < hi {
			cross[lo+1]++
			cross[hi]--
		}
	}
	var run, arun int64
	var crun int32
	live := make([]int32, nsec)
	var c int32
	for s := range nsec {
		run += diff[s]
		in.load[s] = run
		arun += adiff[s]
		in.aload[s] = arun
		c += counts[s]
		live[s] = c
	}
	in.secBufs = make([][]int32, nsec)
	for s := range nsec {
		in.secBufs[s] = make([]int32, 0, live[s])
	}
	in.pad = make([]int64, nsec)
	for k := range n {
		if k%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for s := in.secLo[k]; s < in.secHi[k]; s++ {
			in.secBufs[s] = append(in.secBufs[s], int32(k))
			in.pad[s] = max(in.pad[s], in.asize[k]-in.size[k])
		}
	}
	// Parts: cut at every boundary no buffer crosses.
	start := int32(0)
	for s := int32(1); s <= int32(nsec); s++ {
		if s < int32(nsec) {
			crun += cross[s]
			if crun > 0 {
				continue
			}
		}
		pt := part{secLo: start, secHi: s}
		for t := start; t < s; t++ {
			pt.lb = max(pt.lb, in.load[t])
			pt.alb = max(pt.alb, in.aload[t]-in.pad[t])
		}
		if pt.lb > 0 {
			in.parts = append(in.parts, pt)
		}
		start = s
	}
	for k := range n {
		// The part holding section secLo[k]: parts are sorted by secLo.
		j, found := slices.BinarySearchFunc(in.parts, in.secLo[k], func(pt part, s int32) int {
			if s < pt.secLo {
				return 1
			}
			if s >= pt.secHi {
				return -1
			}
			return 0
		})
		if !found {
			panic("exact: buffer outside every part")
		}
		in.parts[j].bufs = append(in.parts[j].bufs, int32(k))
	}
	in.twin = make([]int32, n)
	type shape struct {
		size        int64
		first, last int
	}
	prev := map[shape]int32{}
	for k := range n {
		sh := shape{in.size[k], in.first[k], in.last[k]}
		in.twin[k] = -1
		if j, ok := prev[sh]; ok {
			in.twin[k] = j
		}
		prev[sh] = int32(k)
	}
	// Overlaps: sorted by first section, buffer k meets every later buffer
	// that starts before its own sections end.
	order := make([]int32, n)
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(in.secLo[a], in.secLo[b]) })
	in.overlaps = make([][]int32, n)
	for x, a := range order {
		if x%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, b := range order[x+1:] {
			if in.secLo[b] >= in.secHi[a] {
				break
			}
			in.overlaps[a] = append(in.overlaps[a], b)
			in.overlaps[b] = append(in.overlaps[b], a)
		}
	}
	return in, nil
}
