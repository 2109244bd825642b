package kernel

import (
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// TestFitIndexMatchesCompIndex places random problems' buffers one by one
// and requires FitIndex.FirstFit to give, before every placement and at
// alignments 1, 4 and 64, what first fit over CompIndex.Overlapping's
// merged components gives: sparse (short lifetimes), dense (long ones,
// so that the all-overlapping set answers) and mixed problems, with
// blocks of 1 to 64 leaves (many blocks, one, a block per leaf), by id or
// one by one, with coarse hints or none, zero sizes, touching ranges,
// and buffers placed both where first fit puts them and anywhere
// (overlapping others). Half the problems start a third of their
// buffers at one of a few first tasks, and the merged lists of hot first
// tasks are kept from 1 to 8 starts (every task hot) or at hotStarts.
// Every problem is decoded twice, the index reset between, and an
// EmptyCopy decodes it a third time.
func TestFitIndexMatchesCompIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 41))
	sizes := []int64{0, 1, 2, 4, 8, 8, 16, 33, 64, 100}
	for trial := range 500 {
		n := 1 + rng.IntN(400)
		kind := trial % 3 // 0 sparse, 1 dense, 2 mixed
		span := 1 + rng.IntN(300)
		bufs := randomSpanBuffers(rng, n, span, kind, sizes)
		if trial%5 < 2 {
			crowd(rng, bufs, span)
		}
		ts := NewTaskSpans(bufs, false)
		block := int32(1) << rng.IntN(7)
		hot := int32(hotStarts)
		if trial%7 < 5 {
			hot = 1 + rng.Int32N(8)
		}
		fx := newFitIndex(ts, trial%4 >= 2, block, hot)
		if trial%2 == 0 {
			fx.gatherByID() // whatever GatherByIDPays says
		}
		order := rng.Perm(n)
		offs := make([]int64, n)
		for i := range offs {
			offs[i] = -1
			if rng.IntN(4) == 0 {
				offs[i] = rng.Int64N(500)
			}
		}
		for round := range 3 {
			ix := NewCompIndex(ts)
			var comps []Comp
			for _, i := range order {
				tk := ts.TaskOf(i, bufs[i].Size)
				comps = ix.Overlapping(comps[:0], &tk)
				for _, align := range []int64{1, 4, 64} {
					want := FirstFit(comps, tk.Size, align)
					if got := fx.FirstFit(&tk, tk.Size, align); got != want {
						t.Fatalf("trial %d round %d (kind %d, block %d, hot %d, by id %v, hints %v), buffer %d size %d align %d: FitIndex %d, over Overlapping %d",
							trial, round, kind, block, len(fx.hot), fx.byID != nil, fx.coarse != nil, i, tk.Size, align, got, want)
					}
				}
				off := offs[i]
				if off < 0 {
					off = FirstFit(comps, tk.Size, 1)
				}
				c := Comp{off, off + tk.Size}
				ix.Place(&tk, c)
				fx.Place(&tk, c)
			}
			if round == 0 {
				fx.Reset()
			} else {
				fx = fx.EmptyCopy()
			}
		}
	}
}

// crowd moves the first tasks of about a third of bufs (lifetimes kept
// as long) to one of up to three tasks below span, as many buffers of
// idealloc's Y_1 start at its first task.
func crowd(rng *rand.Rand, bufs []workloads.Buffer, span int) {
	at := []int{0, rng.IntN(span), rng.IntN(span)}[:1+rng.IntN(3)]
	for i := range bufs {
		if rng.IntN(3) == 0 {
			b := &bufs[i]
			f := at[rng.IntN(len(at))]
			b.First, b.Last = f, f+b.Last-b.First
		}
	}
}

// TestFitWalkMatchesLazy requires fitWalk.firstFit, FitIndex's walk, to
// give what lazyFirstFit gives over the same runs (random sorted,
// disjoint runs, touching or not, sizes from 0, alignments 1 to 64,
// walks from 0 or from an aligned offset below the answer, or from the
// answer of a walk over the first few runs, whose cursors it keeps), one
// walk's scratch reused throughout, and to leave the runs as they were.
func TestFitWalkMatchesLazy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var w fitWalk
	for trial := range 20000 {
		runs := make([][]Comp, rng.IntN(6))
		for r := range runs {
			var y int64
			for range rng.IntN(12) {
				lo := y + rng.Int64N(6)
				if len(runs[r]) > 0 && lo == y {
					lo++ // disjoint and not touching, as merged runs are
				}
				y = lo + 1 + rng.Int64N(10)
				runs[r] = append(runs[r], Comp{lo, y})
			}
		}
		size, align := rng.Int64N(8), []int64{1, 2, 4, 64}[rng.IntN(4)]
		copies := make([][]Comp, len(runs))
		for r, run := range runs {
			copies[r] = slices.Clone(run)
		}
		want, _ := lazyFirstFit(slices.Clone(copies), nil, 0, size, align, nil, 0)
		from := int64(0)
		if rng.IntN(2) == 0 && want > 0 {
			from = rng.Int64N(want+1) / align * align
		}
		if got := w.firstFit(runs, from, size, align, 0); got != want {
			t.Fatalf("trial %d: size %d align %d from %d over %v: fitWalk %d, lazyFirstFit %d", trial, size, align, from, runs, got, want)
		}
		// A walk over the first keep runs alone, then over all from its
		// answer with their cursors kept (FitIndex's hint, then its walk).
		keep := rng.IntN(len(runs) + 1)
		hint := w.firstFit(runs[:keep], 0, size, align, 0)
		if got := w.firstFit(runs, hint, size, align, keep); got != want {
			t.Fatalf("trial %d: size %d align %d, first %d runs' walk to %d, then all of %v: fitWalk %d, lazyFirstFit %d", trial, size, align, keep, hint, runs, got, want)
		}
		for r := range runs {
			if !slices.Equal(runs[r], copies[r]) {
				t.Fatalf("trial %d: run %d changed: %v, was %v", trial, r, runs[r], copies[r])
			}
		}
	}
}

// TestCoarseTreePlace requires a coarseTree's nodes, after random places,
// to hold what merging every range into every node with one of its
// blocks gives (coarseTree.place leaves the nodes above one that covered
// a range already): over 1 to 200 tasks (blocks of one task to many),
// short and long spans, ranges that touch, overlap, nest or stand apart.
func TestCoarseTreePlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 300 {
		tasks := 1 + rng.Int32N(200)
		ct := newCoarseTree(tasks)
		want := make([][]Comp, len(ct.node))
		for range rng.IntN(300) {
			a := rng.Int32N(tasks)
			b := a + rng.Int32N(tasks-a)
			if rng.IntN(2) == 0 {
				b = min(a+rng.Int32N(4), tasks-1)
			}
			lo := rng.Int64N(100)
			c := Comp{lo, lo + rng.Int64N(20)}
			ct.place(a, b, c)
			for l, r := a>>ct.shift+ct.leaves, b>>ct.shift+ct.leaves; l >= 1; l, r = l>>1, r>>1 {
				for v := l; v <= r; v++ {
					want[v] = MergeComp(want[v], c)
				}
			}
		}
		for v := range want {
			if !slices.Equal(ct.node[v], want[v]) {
				t.Fatalf("trial %d (%d tasks, shift %d): node %d holds %v, want %v", trial, tasks, ct.shift, v, ct.node[v], want[v])
			}
		}
	}
}

// mergeRangesOld is mergeRanges before it kept the joined range apart and
// copied the rest of x whole: TestMergeRangesMatchesOld's reference.
func mergeRangesOld(out, x, y []Comp) []Comp {
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		var c Comp
		if j == len(y) || i < len(x) && x[i].Lo <= y[j].Lo {
			c = x[i]
			i++
		} else {
			c = y[j]
			j++
		}
		if k := len(out) - 1; k >= 0 && c.Lo <= out[k].Hi {
			out[k].Hi = max(out[k].Hi, c.Hi)
		} else {
			out = append(out, c)
		}
	}
	return out
}

// TestMergeRangesMatchesOld requires mergeRanges to give what
// mergeRangesOld gives: x merged ranges (apart or nearly touching), y
// sorted ranges that overlap, nest, touch or repeat (an id tree's
// pending ones), either empty, out empty or not, zero-length ranges.
func TestMergeRangesMatchesOld(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 13))
	for trial := range 20000 {
		var x []Comp
		var y int64
		for range rng.IntN(12) {
			lo := y + 1 + rng.Int64N(6) // past the last: merged, not touching
			y = lo + rng.Int64N(8)
			x = append(x, Comp{lo, y})
		}
		ys := make([]Comp, rng.IntN(10))
		for k := range ys {
			lo := rng.Int64N(y + 10)
			ys[k] = Comp{lo, lo + rng.Int64N(12)}
		}
		SortComps(ys)
		var out []Comp
		if rng.IntN(3) == 0 {
			lo := rng.Int64N(20) - 10
			out = []Comp{{-30, -20}, {lo, lo + rng.Int64N(6)}}[:1+rng.IntN(2)]
		}
		want := mergeRangesOld(slices.Clone(out), x, ys)
		if got := mergeRanges(slices.Clone(out), x, ys); !slices.Equal(got, want) {
			t.Fatalf("trial %d: mergeRanges(%v, %v, %v) = %v, want %v", trial, out, x, ys, got, want)
		}
	}
}
