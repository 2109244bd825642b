package kernel

import (
	"math/rand/v2"
	"testing"
)

// TestFirstFitWindowsPrefix checks the walk over an index and a round of
// a PrefixIndex against FirstFitWindows over one index holding every
// placement, offset for offset, at every position: the sequence is a
// random order of the buffers (or of some of them), each at a range drawn
// anywhere (overlapping others, touching, zero sizes); the round places
// the positions it reaches, less those it skips at random, whose buffers
// go into the index instead, at the sequence's range or another; queries
// ask for any buffer, placed or not, with alignments and windows below
// any bound; on sparse, dense and mixed problems, the index gathering by
// id or not and with coarse hints or not; several rounds reuse one
// PrefixRound (Reset), over the same index and another.
func TestFirstFitWindowsPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 41))
	var r *PrefixRound
	for trial := range 400 {
		kind := trial % 3 // 0 sparse, 1 dense, 2 mixed
		bufs := randomSpanBuffers(rng, 1+rng.IntN(400), 1+rng.IntN(200), kind, []int64{0, 1, 2, 4, 8, 8, 16, 33, 64, 100})
		n := len(bufs)
		ts := NewTaskSpans(bufs, false)
		seq := rng.Perm(n)
		if trial%4 == 3 {
			seq = seq[:rng.IntN(n+1)]
		}
		seq32 := make([]int32, len(seq))
		at := make([]Comp, n)
		for p, i := range seq {
			seq32[p] = int32(i)
			off := rng.Int64N(300)
			at[i] = Comp{off, off + bufs[i].Size + rng.Int64N(2)*rng.Int64N(8)}
		}
		px := NewPrefixIndex(ts, seq32, at)
		for round := range 2 {
			if r == nil || rng.IntN(3) == 0 {
				r = px.NewRound()
			} else {
				r.Reset(px)
			}
			one, a := NewCompIndex(ts), NewCompIndex(ts)
			if (trial+round)&1 == 0 {
				a.GatherByID()
			}
			if (trial>>1+round)&1 == 1 {
				a.CoarseHints()
			}
			skipRate := 1 + rng.IntN(6)
			for q := 0; q <= len(seq); q++ {
				for range 1 + rng.IntN(3) {
					i := rng.IntN(n)
					tk := ts.TaskOf(i, bufs[i].Size)
					for _, align := range []int64{1, 8} {
						want := one.FirstFit(&tk, tk.Size, align)
						upTo := align * rng.Int64N(want/align+3)
						wins := randomWindows(rng, want, upTo)
						if got := a.FirstFitWindowsPrefix(r, int32(q), &tk, tk.Size, align, wins, upTo); got != want {
							t.Fatalf("trial %d (kind %d) round %d, position %d, buffer %d size %d align %d, windows %v below %d: with the prefix %d, in one index %d",
								trial, kind, round, q, i, tk.Size, align, wins, upTo, got, want)
						}
					}
				}
				if q == len(seq) {
					break
				}
				i := seq[q]
				tk := ts.TaskOf(i, bufs[i].Size)
				c := at[i]
				if rng.IntN(skipRate) == 0 {
					r.Skip(int32(q))
					if rng.IntN(2) == 0 {
						off := one.FirstFit(&tk, tk.Size, 1)
						c = Comp{off, off + tk.Size}
					}
					a.Place(&tk, c)
				}
				one.Place(&tk, c)
			}
		}
	}
}
