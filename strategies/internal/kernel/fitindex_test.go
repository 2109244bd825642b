package kernel

import (
	"math/rand/v2"
	"testing"
)

// TestFitIndexMatchesCompIndex places random problems' buffers one by one
// and requires FitIndex.FirstFit to give, before every placement and at
// alignments 1, 4 and 64, what first fit over CompIndex.Overlapping's
// merged components gives: sparse (short lifetimes), dense (long ones,
// so that the all-overlapping set answers) and mixed problems, with
// blocks of 1 to 64 leaves (many blocks, one, a block per leaf), by id or
// one by one, with coarse hints or none, zero sizes, touching ranges,
// and buffers placed both where first fit puts them and anywhere
// (overlapping others). Every problem is decoded twice, the index reset
// between, and an EmptyCopy decodes it a third time.
func TestFitIndexMatchesCompIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 41))
	sizes := []int64{0, 1, 2, 4, 8, 8, 16, 33, 64, 100}
	for trial := range 500 {
		n := 1 + rng.IntN(400)
		kind := trial % 3 // 0 sparse, 1 dense, 2 mixed
		bufs := randomSpanBuffers(rng, n, 1+rng.IntN(300), kind, sizes)
		ts := NewTaskSpans(bufs, false)
		block := int32(1) << rng.IntN(7)
		fx := newFitIndex(ts, trial%4 >= 2, block)
		if trial%2 == 0 {
			fx.byID = newCompIDTree(int32(n)) // gather by id whatever GatherByIDPays says
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
						t.Fatalf("trial %d round %d (kind %d, block %d, by id %v, hints %v), buffer %d size %d align %d: FitIndex %d, over Overlapping %d",
							trial, round, kind, block, fx.byID != nil, fx.coarse != nil, i, tk.Size, align, got, want)
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
