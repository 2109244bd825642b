package kernel

import (
	"math/rand/v2"
	"testing"
)

// TestFirstFitWindowsWith checks the walk over two indexes against
// FirstFitWindows over one index holding every placement, offset for
// offset, after every placement: each buffer goes into one of the two at
// random (mostly the first, as a shared part would hold most), on sparse,
// dense and mixed problems, gathering by id or not in each, with coarse
// hints in either, zero sizes, alignments, windows below any bound, and
// buffers placed both by first fit and anywhere.
func TestFirstFitWindowsWith(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 40))
	for trial := range 600 {
		kind := trial % 3 // 0 sparse, 1 dense, 2 mixed
		bufs := randomSpanBuffers(rng, 1+rng.IntN(400), 1+rng.IntN(200), kind, []int64{0, 1, 2, 4, 8, 8, 16, 33, 64, 100})
		n := len(bufs)
		ts := NewTaskSpans(bufs, false)
		one, a, b := NewCompIndex(ts), NewCompIndex(ts), NewCompIndex(ts)
		for k, ix := range []*CompIndex{a, b} {
			if (trial>>k)&1 == 0 {
				ix.GatherByID()
			}
			if (trial>>(k+2))&1 == 1 {
				ix.CoarseHints()
			}
		}
		share := rng.IntN(5) // b gets about one placement in 1+share
		for _, i := range rng.Perm(n) {
			tk := ts.TaskOf(i, bufs[i].Size)
			for _, align := range []int64{1, 8} {
				want := one.FirstFit(&tk, tk.Size, align)
				upTo := align * rng.Int64N(want/align+3)
				wins := randomWindows(rng, want, upTo)
				if got := a.FirstFitWindowsWith(b, &tk, tk.Size, align, wins, upTo); got != want {
					t.Fatalf("trial %d (kind %d), buffer %d size %d align %d, windows %v below %d: with %d, in one index %d",
						trial, kind, i, tk.Size, align, wins, upTo, got, want)
				}
			}
			off := one.FirstFit(&tk, tk.Size, 1)
			if rng.IntN(4) == 0 {
				off = rng.Int64N(500)
			}
			c := Comp{off, off + tk.Size}
			one.Place(&tk, c)
			if rng.IntN(1+share) == 0 {
				b.Place(&tk, c)
			} else {
				a.Place(&tk, c)
			}
		}
	}
}
