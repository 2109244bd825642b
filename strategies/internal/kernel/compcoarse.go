package kernel

import "math/bits"

// coarseTree gives CompIndex.FirstFit a lower bound on a long-lived
// buffer's answer, from which its walk starts. The task numbers are cut
// into blocks of consecutive numbers, and node v of a segment tree over
// the blocks keeps the merged ranges of every placed buffer live in any
// of its blocks. The blocks lying wholly inside a buffer's span are a
// range of blocks, whose nodes' ranges are those of buffers that overlap
// it in time: some of those live with it, so the first fit among them
// alone is no higher than its answer (a set of ranges that grows can only
// raise a first fit). On idealloc's Y_1 a long lifetime's placed ranges
// form about a dozen runs in the index whose pieces interleave, so that
// a walk from 0 moved its candidate about 475 times where their union has
// about 8 ranges below the answer; the blocks' ranges, merged over time
// rather than split by it, are mostly solid: with 64 blocks the hint was
// the answer itself for 78% of the long lifetimes with a block inside,
// and their walks moved the candidate a tenth as often.
type coarseTree struct {
	shift  uint     // a task number's block is number >> shift
	leaves int32    // a power of two >= the number of blocks
	node   [][]Comp // heap order, node 1 the root
	runs   [][]Comp // hint's scratch
	next   []int64
}

// coarseBlocks is about how many blocks a coarseTree cuts the tasks into:
// more make hints for more and shorter lifetimes, and cost every Place
// about twice as many merges per block its buffer lives in. On Y_1, 32
// ran the fewest instructions of 16, 32 and 64.
const coarseBlocks = 32

// newCoarseTree returns an empty coarseTree over tasks task numbers.
func newCoarseTree(tasks int32) *coarseTree {
	var shift uint
	if tasks > coarseBlocks {
		shift = uint(bits.Len32(uint32((tasks - 1) / coarseBlocks)))
	}
	leaves := int32(1)
	for leaves<<shift < tasks {
		leaves *= 2
	}
	return &coarseTree{shift: shift, leaves: leaves, node: make([][]Comp, 2*leaves)}
}

// place merges c, the range of a buffer placed over task numbers a..b,
// into every node with one of its blocks. A node's ranges cover those of
// its children (every range merged into a node is merged into its
// parent), so where a node covered c already, so do all above it, which
// are left as they are: on Y_1 most places are covered at their blocks,
// whose ranges hold every buffer live in a stretch of about 1,600 tasks.
func (t *coarseTree) place(a, b int32, c Comp) {
	l, r := a>>t.shift+t.leaves, b>>t.shift+t.leaves
	if r-l >= 63 { // more blocks than covered holds: merge everywhere
		for ; l >= 1; l, r = l>>1, r>>1 {
			for v := l; v <= r; v++ {
				t.node[v] = MergeComp(t.node[v], c)
			}
		}
		return
	}
	// Bit v-l of covered: node v, of l..r at the level below, covers c.
	var covered uint64
	for below := l; l >= 1; below, l, r = l, l>>1, r>>1 {
		var now uint64
		for v := l; v <= r; v++ {
			// v's children below are 2v and 2v+1, where in below..
			kids := covered << 1 >> (2*v + 1 - below) // bit 0: 2v, bit 1: 2v+1
			if kids&3 == 0 {
				var in bool
				if t.node[v], in = mergeComp(t.node[v], c); !in {
					continue
				}
			}
			now |= 1 << (v - l)
		}
		if now == 1<<(r-l+1)-1 {
			return // all covered here, so all above
		}
		covered = now
	}
}

// emptyCopy returns an empty tree with t's blocks.
func (t *coarseTree) emptyCopy() *coarseTree {
	return &coarseTree{shift: t.shift, leaves: t.leaves, node: make([][]Comp, len(t.node))}
}

// reset empties the tree, keeping its storage.
func (t *coarseTree) reset() {
	for v := range t.node {
		t.node[v] = t.node[v][:0]
	}
}

// hint returns the first fit of a buffer of the given size and alignment
// among the buffers live in the blocks wholly inside task numbers a..b,
// 0 if there is no such block: no higher than its first fit among all
// those live with it.
func (t *coarseTree) hint(a, b int32, size, align int64) int64 {
	lo, hi := t.inside(a, b)
	if lo > hi {
		return 0
	}
	t.runs = t.appendRuns(t.runs[:0], lo, hi)
	y, next := lazyFirstFit(t.runs, t.next, 0, size, align, nil, 0)
	t.next = next
	return y
}

// inside returns the first and the last block wholly inside task numbers
// a..b (lo > hi: none).
func (t *coarseTree) inside(a, b int32) (lo, hi int32) {
	return (a + 1<<t.shift - 1) >> t.shift, (b+1)>>t.shift - 1
}

// appendRuns appends to runs the ranges, merged and sorted, of the
// nodes covering blocks lo..hi, one run a node with any.
func (t *coarseTree) appendRuns(runs [][]Comp, lo, hi int32) [][]Comp {
	for l, r := lo+t.leaves, hi+t.leaves+1; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			if len(t.node[l]) > 0 {
				runs = append(runs, t.node[l])
			}
			l++
		}
		if r&1 == 1 {
			r--
			if len(t.node[r]) > 0 {
				runs = append(runs, t.node[r])
			}
		}
	}
	return runs
}
