package kernel

import (
	"cmp"
	"slices"
)

// Placed is one placed tensor as the gap walk sees it.
type Placed struct {
	Off int64 // offset
	End int64 // offset+size rounded up to the alignment
	Seq int32 // placement order: breaks offset ties as TFLite's list does
}

// SortPlaced sorts by (offset, placement order): TFLite's list order.
func SortPlaced(items []Placed) {
	less := func(x, y *Placed) bool { return x.Off < y.Off || x.Off == y.Off && x.Seq < y.Seq }
	if len(items) > 24 {
		slices.SortFunc(items, func(x, y Placed) int {
			if x.Off != y.Off {
				return cmp.Compare(x.Off, y.Off)
			}
			return cmp.Compare(x.Seq, y.Seq)
		})
		return
	}
	// Most tensors overlap only a few placed ones: a plain insertion sort
	// beats the generic sort's indirect comparisons there.
	for i := 1; i < len(items); i++ {
		x := items[i]
		j := i
		for ; j > 0 && less(&x, &items[j-1]); j-- {
			items[j] = items[j-1]
		}
		items[j] = x
	}
}

// TimeIndex finds, for a buffer, every placed buffer whose lifetime
// overlaps its own. "Overlaps [f, l]" splits into two disjoint parts:
// lifetimes containing f (a stabbing query on a segment tree over the
// distinct first tasks) and lifetimes starting in (f, l] (a range of ids).
type TimeIndex struct {
	*TaskSpans
	// placed[id] is the placed buffer id; seq 0 while unplaced.
	placed []Placed
	// A segment tree over 0..D-1 (leaves at D..2D-1) holding each placed
	// buffer in the canonical nodes of its span, so a root-to-leaf walk
	// meets every span containing a point exactly once. Node v's entries
	// are seg[node[v].ptr:][:node[v].len]. Entries are copies: a placed
	// buffer never moves.
	leaves int32
	node   []segNode
	seg    []Placed
}

// segNode is a segment-tree node's list; one struct keeps a root-to-leaf
// walk at one cache miss per level. up is the nearest proper ancestor that
// may hold entries (0: none), for CompIndex to skip the others.
type segNode struct{ ptr, len, up int32 }

func NewTimeIndex(ts *TaskSpans) *TimeIndex {
	ix := &TimeIndex{TaskSpans: ts}
	d := ix.Tasks()
	ix.leaves = d
	// Count each node's share; Place fills the lists as buffers are placed.
	ix.node = make([]segNode, 2*d)
	total := countCanonical(ix.node, ix.Span, d)
	ix.seg = make([]Placed, total)
	ix.placed = make([]Placed, len(ts.ID))
	return ix
}

// Place records buffer id as placed: in the id-ordered list and in the
// canonical nodes of its span.
func (ix *TimeIndex) Place(id int32, p Placed) {
	ix.placed[id] = p
	sp := ix.Span[id]
	for l, r := sp[0]+ix.leaves, sp[1]+ix.leaves+1; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			ix.seg[ix.node[l].ptr+ix.node[l].len] = p
			ix.node[l].len++
			l++
		}
		if r&1 == 1 {
			r--
			ix.seg[ix.node[r].ptr+ix.node[r].len] = p
			ix.node[r].len++
		}
	}
}

// Overlapping appends to items the placed buffers whose lifetimes
// overlap buffer id's.
func (ix *TimeIndex) Overlapping(items []Placed, id int32) []Placed {
	a, b := ix.Span[id][0], ix.Span[id][1]
	for v := a + ix.leaves; v >= 1; v >>= 1 {
		if nd := ix.node[v]; nd.len > 0 {
			items = append(items, ix.seg[nd.ptr:nd.ptr+nd.len]...)
		}
	}
	for _, p := range ix.placed[ix.StartPtr[a+1]:ix.StartPtr[b+1]] {
		if p.Seq != 0 {
			items = append(items, p)
		}
	}
	return items
}
