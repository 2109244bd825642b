package kernel

// compIDTree keeps the components of the placed buffers by ranges of ids,
// for CompIndex's second part: the placed buffers starting inside a
// buffer's lifetime are a range of ids, and when lifetimes are long (heavy
// overlap) that range holds a good part of all buffers. Taken one by one
// and sorted, they cost O(n log n) per buffer; here the range splits into
// O(log n) nodes of a segment tree over ids whose components are kept
// merged and sorted, which the caller merges like the stabbing part's.
//
// Nodes spanning fewer than compIDLeaf ids are not kept: the ids at the
// ends of a range that fall in them are read one by one from the placed
// list, as before. A placed buffer is only noted in its nodes; a node
// merges what it was given when a range first needs it, so that inputs
// whose buffers overlap every placed one (which never ask) pay nothing
// more than the notes.
type compIDTree struct {
	leaves int32 // a power of two >= the number of ids
	// Node v (v >= 1, heap order, covering at least compIDLeaf ids) keeps
	// its components in pool[node[v].ptr:][:node[v].len] and the ranges
	// placed since in pend[node[v].ptr:][:node[v].pend]; its room, up to
	// node[v+1].ptr, is the number of ids it covers, which bounds both.
	// The ranges themselves are noted, not their ids: a merge then reads
	// them in a row rather than from the placed list in id order, which
	// on a random decode of idealloc's Y_1 missed the cache.
	node  []compIDNode
	top   int32 // the first node kept up to date (keepSpans)
	pool  []Comp
	pend  []Comp
	out   []Comp   // sync's scratch
	nodes [][]Comp // gather's scratch
	cut   []Comp   // the loose ranges gatherRuns gives gather and OverlappingWithin
}

type compIDNode struct{ ptr, len, pend int32 }

// compIDLeaf is the span, in ids, of the smallest nodes kept: below it,
// reading the placed list beats merging one more run.
const compIDLeaf = 32

// GatherByIDPays reports whether gathering by id ranges
// (CompIndex.GatherByID) is worth its cost on spans ts: whether the
// buffers starting inside a lifetime after its first task number at least
// compIDLeaf on average. With fewer, most of those ranges lie inside one
// block of ids that the tree keeps no node for, which it reads one by one
// anyway, while every Place still notes the buffer at each level of the
// tree: on random DAGs (about 8 a buffer) xla-heap took about a quarter
// longer by id; on idealloc's G_1 and Y_1 (about 100 and 2,200) by id it
// took from about as long to an eighth of the time.
func (ts *TaskSpans) GatherByIDPays() bool {
	var starts int64
	for _, sp := range ts.Span {
		starts += int64(ts.StartPtr[sp[1]+1] - ts.StartPtr[sp[0]+1])
	}
	return starts >= compIDLeaf*int64(len(ts.Span))
}

func newCompIDTree(n int32) *compIDTree {
	leaves := int32(compIDLeaf)
	for leaves < n {
		leaves *= 2
	}
	// Nodes 1 .. leaves/compIDLeaf-1 ... with their children down to the
	// level whose nodes span compIDLeaf ids: 2*leaves/compIDLeaf nodes.
	top := 2 * leaves / compIDLeaf
	t := &compIDTree{leaves: leaves, top: 1, node: make([]compIDNode, top+1)}
	var total int32
	for v := int32(1); v < top; v++ {
		t.node[v].ptr = total
		// v's level spans leaves >> depth ids, starting at its offset
		// within the level times that span.
		depth := int32(0)
		for 1<<(depth+1) <= v {
			depth++
		}
		span := leaves >> depth
		start := (v - 1<<depth) * span
		total += max(0, min(span, n-start))
	}
	t.node[top].ptr = total
	t.node[0].ptr = 0
	t.pool = make([]Comp, total)
	t.pend = make([]Comp, total)
	return t
}

// reset empties the tree, keeping its storage.
func (t *compIDTree) reset() {
	for v := range t.node {
		t.node[v].len, t.node[v].pend = 0, 0
	}
}

// keepSpans leaves out of place the nodes spanning more than span ids,
// for a caller whose ranges never hold more (such nodes are in none of
// their decompositions): on Y_1, FitIndex's ranges lie within two coarse
// blocks, and 5 of the 12 levels were noted on every place and never read.
func (t *compIDTree) keepSpans(span int32) {
	t.top = 1
	for s := t.leaves; s > span && s > compIDLeaf; s /= 2 {
		t.top *= 2
	}
}

// place notes buffer id, just placed at c, in the nodes covering id
// (from t.top down).
func (t *compIDTree) place(id int32, c Comp) {
	for v := (t.leaves + id) / compIDLeaf; v >= t.top; v >>= 1 {
		nd := &t.node[v]
		t.pend[nd.ptr+nd.pend] = c
		nd.pend++
	}
}

// sync merges node v's pending ranges into its components: one by one
// up to syncInsert of them, else sorted where they lie and merged with
// them in one pass (mergeRanges).
func (t *compIDTree) sync(v int32) {
	nd := &t.node[v]
	add := t.pend[nd.ptr : nd.ptr+nd.pend]
	if len(add) <= syncInsert {
		// The node's room bounds its ranges: no reallocation.
		l := t.pool[nd.ptr : nd.ptr+nd.len : t.node[v+1].ptr]
		for _, c := range add {
			l = MergeComp(l, c)
		}
		nd.len, nd.pend = int32(len(l)), 0
		return
	}
	SortComps(add)
	out := mergeRanges(t.out[:0], t.pool[nd.ptr:nd.ptr+nd.len], add)
	nd.len = int32(copy(t.pool[nd.ptr:t.node[v+1].ptr], out))
	nd.pend = 0
	t.out = out
}

// gather appends the components of the placed buffers with ids in
// [lo, hi) to comps: each kept node's sorted run after the last, its
// start in runs; the placed ranges (lo >= 0) of the ids outside kept
// nodes, unsorted, after them, their start returned (len(comps) if none).
func (t *compIDTree) gather(comps []Comp, runs []int32, placed []Comp, lo, hi int32) ([]Comp, []int32, int) {
	var loose []Comp
	t.nodes, loose = t.gatherRuns(t.nodes[:0], t.cut[:0], placed, lo, hi, 0, -1)
	t.cut = loose
	for _, r := range t.nodes {
		runs = append(runs, int32(len(comps)))
		comps = append(comps, r...)
	}
	start := len(comps)
	return append(comps, loose...), runs, start
}

// gatherRuns appends to nodes the sorted components of each kept node
// inside [lo, hi) (none empty; slices of the tree's storage, valid until
// the next place), and to loose, unsorted, those ending after y (>= -1)
// among the placed ranges of the ids outside them and the ranges placed
// in them that they have not merged yet (appendNode: a node merges them
// first once they number 1/share of its components, at once with share
// 0). They go straight to loose: copied first and filtered after, the
// copy was a good part of a first fit's gathering on idealloc's Y_1.
func (t *compIDTree) gatherRuns(nodes [][]Comp, loose, placed []Comp, lo, hi, share int32, y int64) ([][]Comp, []Comp) {
	// The kept nodes inside [lo, hi): round lo up and hi down to whole
	// compIDLeaf blocks; the ids cut off go one by one.
	blo := (lo + compIDLeaf - 1) / compIDLeaf
	bhi := hi / compIDLeaf
	if blo >= bhi {
		return nodes, appendEndingAfter(loose, placed[lo:hi], y)
	}
	loose = appendEndingAfter(loose, placed[lo:blo*compIDLeaf], y)
	loose = appendEndingAfter(loose, placed[bhi*compIDLeaf:hi], y)
	base := t.leaves / compIDLeaf
	for l, r := blo+base, bhi+base; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			nodes, loose = t.appendNode(nodes, loose, l, share, y)
			l++
		}
		if r&1 == 1 {
			r--
			nodes, loose = t.appendNode(nodes, loose, r, share, y)
		}
	}
	return nodes, loose
}

// appendNode appends node v's components, merged, to nodes if it has any.
// The ranges placed since v was last merged are merged into them first
// if they number at least 1/share of them (share 0: always); fewer go
// to loose instead (those ending after y), as a merge reads all the
// node's components.
func (t *compIDTree) appendNode(nodes [][]Comp, loose []Comp, v, share int32, y int64) ([][]Comp, []Comp) {
	if nd := t.node[v]; nd.pend > 0 {
		if share == 0 || nd.pend*share >= nd.len {
			t.sync(v)
		} else {
			loose = appendEndingAfter(loose, t.pend[nd.ptr:nd.ptr+nd.pend], y)
		}
	}
	if nd := t.node[v]; nd.len > 0 {
		nodes = append(nodes, t.pool[nd.ptr:nd.ptr+nd.len])
	}
	return nodes, loose
}

// syncInsert is the most pending ranges sync merges into a node one by
// one (MergeComp, in place) rather than sorted and merged in one pass
// with a copy back: on idealloc's Y_1 a sync merged about 7 ranges into
// about 13, and a decode ran 376 M instructions with every sync sorted,
// 373 M inserting up to 4, 367 M up to 24 and 366 M always (cachegrind,
// BenchmarkDecodeY1/new); one by one, each costs a search and a move of
// the ranges above, so many into a long node go in one pass.
const syncInsert = 24

// syncShare is FirstFit's share for appendNode: it reads the runs only up
// to the answer, so a merge of the whole node pays only once the new
// buffers number an eighth of its components (on Y_1, 4 and 8 ran about
// the fewest instructions, 16 and merging always more). Overlapping,
// which copies every component anyway, merges always.
const syncShare = 8

// appendPlaced appends the ranges of the placed buffers among ps.
func appendPlaced(comps []Comp, ps []Comp) []Comp {
	for _, c := range ps {
		if c.Lo >= 0 {
			comps = append(comps, c)
		}
	}
	return comps
}
