package exact

import (
	"context"

	"membench/workloads"
)

// chained is a filler of a part whose chains are merged first. In a
// packing with no slack, where only buffer a ends at a boundary and only
// b starts there, every other buffer live on either side lives on both,
// so b takes exactly the bytes a leaves: b's offset is a's (and their
// sizes agree). Such a and b are one buffer living the two lifetimes
// end to end, and so is each chain of them. Merging them shows the search
// the true extent of each stretch of bytes: a buffer that will be
// followed by its own size goes among the long ones it lives as long as,
// rather than among the short ones it would otherwise be taken for.
type chained struct {
	*filler // of the merged part
	// of[k] is the merged buffer holding buffer k of the part; sol the
	// offsets of the part's buffers, by search buffer.
	of   []int32
	bufs []int32
	sol  []int64
}

// newPartFiller returns a filler of pt sweeping one way (rev): a chained
// one when some of pt's buffers form chains, else a plain one.
func newPartFiller(in *instance, pt *part, rev bool) engine {
	n := len(in.size)
	ns := pt.secHi - pt.secLo
	// ends[s], starts[s]: how many of pt's buffers end before section s,
	// start at it, and one of each.
	nEnd, nStart := make([]int32, ns+1), make([]int32, ns+1)
	end, start := make([]int32, ns+1), make([]int32, ns+1)
	for _, k := range pt.bufs {
		a, b := in.secLo[k]-pt.secLo, in.secHi[k]-pt.secLo
		nStart[a]++
		start[a] = k
		nEnd[b]++
		end[b] = k
	}
	next := make(map[int32]int32)
	hasPrev := make(map[int32]bool)
	for s := int32(1); s < ns; s++ {
		if nEnd[s] == 1 && nStart[s] == 1 && in.size[end[s]] == in.size[start[s]] {
			next[end[s]] = start[s]
			hasPrev[start[s]] = true
		}
	}
	if len(next) == 0 {
		return newFiller(in, rev)
	}
	sub := &workloads.Problem{Name: "chained part", Alignment: in.align}
	of := make([]int32, n)
	for _, k := range pt.bufs {
		if hasPrev[k] {
			continue
		}
		i := int32(len(sub.Buffers))
		last := k
		of[k] = i
		for j, ok := next[k]; ok; j, ok = next[j] {
			of[j], last = i, j
		}
		sub.Buffers = append(sub.Buffers, workloads.Buffer{ID: int(i), Size: in.size[k], First: in.first[k], Last: in.last[last]})
	}
	sin, err := newInstance(context.Background(), sub)
	if err != nil || len(sin.parts) != 1 || len(sin.size) != len(sub.Buffers) {
		return newFiller(in, rev) // cannot happen: merging joins what crossed already
	}
	return &chained{filler: newFiller(sin, rev), of: of, bufs: pt.bufs, sol: make([]int64, n)}
}

func (ch *chained) solve(_ *part, c, limit int64) outcome {
	res := ch.filler.solve(&ch.filler.in.parts[0], c, limit)
	if res == found {
		for _, k := range ch.bufs {
			ch.sol[k] = ch.filler.sol[ch.of[k]]
		}
	}
	return res
}

func (ch *chained) offsets() []int64 { return ch.sol }
