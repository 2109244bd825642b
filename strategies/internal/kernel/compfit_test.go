package kernel

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// randomSpanBuffers draws n buffers over span tasks with sizes from
// sizes: of kind 0 (sparse) lifetimes reach over at most a twentieth of
// the span, of kind 1 (dense) over any of it, of kind 2 (mixed) either.
func randomSpanBuffers(rng *rand.Rand, n, span, kind int, sizes []int64) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		f := rng.IntN(span)
		var l int
		switch {
		case kind == 0 || kind == 2 && rng.IntN(2) == 0:
			l = f + rng.IntN(1+span/20)
		default:
			l = f + rng.IntN(1+span)
		}
		bufs[i] = workloads.Buffer{ID: i, Size: sizes[rng.IntN(len(sizes))], First: f, Last: l}
	}
	return bufs
}

// TestCompIndexFirstFit checks CompIndex.FirstFit, the lazy walk over the
// unmerged runs, against first fit over Overlapping's merged components
// (the way every first-fit planner found its offset before), offset for
// offset, after every placement: on sparse (short lifetimes), dense (long
// ones, so that the all-overlapping set answers) and mixed problems,
// gathering by id or one by one, with coarse hints (no higher than the
// answer, and aligned) or none, with zero sizes (zero-length gaps),
// touching ranges, alignments, and buffers placed both where first fit
// puts them and anywhere (overlapping others), as planners other than
// first fit do; FirstFitAbove from any aligned offset up to the answer
// gives the answer, and so does FirstFitWindows with windows that hold
// the answer where it lies below their bound.
// randomWindows returns up to four sorted, disjoint windows [Lo, Hi)
// within [0, upTo), one of them holding want where want < upTo: what
// FirstFitWindows' caller may know when want is the first fit.
func randomWindows(rng *rand.Rand, want, upTo int64) []Comp {
	var ws []Comp
	if upTo > 0 {
		for range rng.IntN(4) {
			lo := rng.Int64N(upTo)
			ws = append(ws, Comp{lo, lo + 1 + rng.Int64N(upTo-lo)})
		}
	}
	if want < upTo {
		ws = append(ws, Comp{max(0, want-rng.Int64N(40)), want + 1 + rng.Int64N(40)})
	}
	SortComps(ws)
	var out []Comp
	for _, w := range ws {
		if n := len(out); n > 0 && w.Lo <= out[n-1].Hi {
			out[n-1].Hi = max(out[n-1].Hi, w.Hi)
		} else {
			out = append(out, w)
		}
	}
	return out
}

func TestCompIndexFirstFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 26))
	pick := rand.New(rand.NewPCG(20, 27)) // FirstFitAbove's bounds, apart from rng's cases
	sizes := []int64{0, 1, 2, 4, 8, 8, 16, 33, 64, 100}
	for trial := range 600 {
		n := 1 + rng.IntN(400)
		kind := trial % 3 // 0 sparse, 1 dense, 2 mixed
		bufs := randomSpanBuffers(rng, n, 1+rng.IntN(200), kind, sizes)
		ts := NewTaskSpans(bufs, false)
		ix := NewCompIndex(ts)
		if trial%2 == 0 {
			ix.GatherByID()
		}
		if trial%4 >= 2 {
			ix.CoarseHints()
		}
		var comps []Comp
		for _, i := range rng.Perm(n) {
			tk := ts.TaskOf(i, bufs[i].Size)
			for _, align := range []int64{1, 4, 64} {
				comps = ix.Overlapping(comps[:0], &tk)
				want := FirstFit(comps, tk.Size, align)
				if got := ix.FirstFit(&tk, tk.Size, align); got != want {
					t.Fatalf("trial %d (kind %d, by id %v, hints %v), buffer %d size %d align %d: FirstFit %d, over Overlapping %d",
						trial, kind, trial%2 == 0, ix.coarse != nil, i, tk.Size, align, got, want)
				}
				// Any aligned offset up to the answer is a valid lower bound.
				if above := align * pick.Int64N(want/align+1); ix.FirstFitAbove(&tk, tk.Size, align, above) != want {
					t.Fatalf("trial %d, buffer %d size %d align %d: FirstFitAbove %d differs from %d", trial, i, tk.Size, align, above, want)
				}
				// Windows around the answer below any aligned upTo.
				upTo := align * pick.Int64N(want/align+3)
				wins := randomWindows(pick, want, upTo)
				if got := ix.FirstFitWindows(&tk, tk.Size, align, wins, upTo); got != want {
					t.Fatalf("trial %d, buffer %d size %d align %d: FirstFitWindows %v below %d gives %d, first fit %d",
						trial, i, tk.Size, align, wins, upTo, got, want)
				}
				if ix.coarse != nil && tk.Size > 0 {
					if h := ix.coarse.hint(tk.A, tk.B, tk.Size, align); h > want || h%align != 0 {
						t.Fatalf("trial %d, buffer %d size %d align %d: hint %d, first fit %d", trial, i, tk.Size, align, h, want)
					}
				}
			}
			off := FirstFit(comps, tk.Size, 1)
			if rng.IntN(4) == 0 {
				off = rng.Int64N(500)
			}
			ix.Place(&tk, Comp{off, off + tk.Size})
		}
	}
}

// TestOverlappingWithin checks CompIndex.OverlappingWithin against
// Overlapping filtered to the components that meet (lo, hi): the same
// ranges in an order sorted by start, after every placement, on sparse,
// dense and mixed problems, gathering by id or not, with ranges placed
// anywhere (overlapping, touching, zero sizes) and bounds anywhere
// around them, empty ones included.
func TestOverlappingWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	var comps, got []Comp
	for trial := range 300 {
		kind := trial % 3
		bufs := randomSpanBuffers(rng, 1+rng.IntN(300), 1+rng.IntN(150), kind, []int64{0, 1, 2, 4, 8, 16, 33, 64})
		ts := NewTaskSpans(bufs, false)
		ix := NewCompIndex(ts)
		if trial&1 == 0 {
			ix.GatherByID()
		}
		for _, i := range rng.Perm(len(bufs)) {
			tk := ts.TaskOf(i, bufs[i].Size)
			off := rng.Int64N(400)
			ix.Place(&tk, Comp{off, off + tk.Size})
			for range 3 {
				q := rng.IntN(len(bufs))
				tq := ts.TaskOf(q, bufs[q].Size)
				lo := rng.Int64N(450) - 10
				hi := lo + rng.Int64N(200) - 5
				comps = ix.Overlapping(comps[:0], &tq)
				var want []Comp
				for _, c := range comps {
					if c.Hi > lo && c.Lo < hi {
						want = append(want, c)
					}
				}
				got = ix.OverlappingWithin(got[:0], &tq, lo, hi)
				if !sameSorted(got, want) {
					t.Fatalf("trial %d (kind %d), buffer %d in (%d, %d): got %v, want %v", trial, kind, q, lo, hi, got, want)
				}
			}
		}
	}
}

// sameSorted reports whether got is sorted by start and holds the same
// ranges as want (sorted by start), as a multiset.
func sameSorted(got, want []Comp) bool {
	if len(got) != len(want) {
		return false
	}
	for k := 1; k < len(got); k++ {
		if got[k].Lo < got[k-1].Lo {
			return false
		}
	}
	a, b := slices.Clone(got), slices.Clone(want)
	slices.SortFunc(a, func(x, y Comp) int { return cmp.Or(cmp.Compare(x.Lo, y.Lo), cmp.Compare(x.Hi, y.Hi)) })
	slices.SortFunc(b, func(x, y Comp) int { return cmp.Or(cmp.Compare(x.Lo, y.Lo), cmp.Compare(x.Hi, y.Hi)) })
	return slices.Equal(a, b)
}
