package strategies

import (
	"math/rand"
	"testing"
)

// TestChmaxTreeRandom checks chmaxTree's raise and max against a plain
// array on random ranges, over sizes that are and are not powers of two.
func TestChmaxTreeRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, n := range []int{1, 2, 3, 5, 8, 13, 64, 100, 257} {
		tr := newChmaxTree(n)
		ref := make([]int64, n)
		for step := 0; step < 4000; step++ {
			l := int32(rng.Intn(n))
			r := l + int32(rng.Intn(n-int(l)))
			if step == 2000 {
				tr.reset()
				clear(ref)
			}
			if rng.Intn(2) == 0 {
				v := rng.Int63n(1000)
				tr.raise(l, r, v)
				for i := l; i <= r; i++ {
					ref[i] = max(ref[i], v)
				}
				continue
			}
			var want int64
			for i := l; i <= r; i++ {
				want = max(want, ref[i])
			}
			if got := tr.max(l, r); got != want {
				t.Fatalf("n=%d step %d: max(%d,%d) = %d, want %d", n, step, l, r, got, want)
			}
		}
	}
}

// TestChmaxSlotsRandom checks a tree of several slots against a plain
// array for each: raises in one slot leave the others as they are.
func TestChmaxSlotsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for _, n := range []int{1, 3, 8, 100, 257} {
		const w = 4
		tr := newChmaxSlots(n, w)
		var ref [w][]int64
		for s := range ref {
			ref[s] = make([]int64, n)
		}
		for step := 0; step < 8000; step++ {
			s := int32(rng.Intn(w))
			l := int32(rng.Intn(n))
			r := l + int32(rng.Intn(n-int(l)))
			if step == 4000 {
				tr.reset()
				for s := range ref {
					clear(ref[s])
				}
			}
			if rng.Intn(2) == 0 {
				v := rng.Int63n(1000)
				tr.raiseIn(s, l, r, v)
				for i := l; i <= r; i++ {
					ref[s][i] = max(ref[s][i], v)
				}
				continue
			}
			var want int64
			for i := l; i <= r; i++ {
				want = max(want, ref[s][i])
			}
			if got := tr.maxIn(s, l, r); got != want {
				t.Fatalf("n=%d step %d: slot %d max(%d,%d) = %d, want %d", n, step, s, l, r, got, want)
			}
		}
	}
}
