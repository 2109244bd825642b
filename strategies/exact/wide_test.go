package exact

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWideTotals checks the bitset totals behind the wide pairing
// (reaches, pickTotal, leastCommonTotal) against every subset of small
// sides.
func TestWideTotals(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 4))
	// sums lists the total of every subset of s (bit i: s[i] in it).
	sums := func(s []int64) []int64 {
		out := make([]int64, 1<<len(s))
		for m := 1; m < len(out); m++ {
			for i := range s {
				if m&(1<<i) != 0 {
					out[m] += s[i]
				}
			}
		}
		return out
	}
	for it := range 2000 {
		a, b := make([]int64, 1+rng.IntN(9)), make([]int64, 1+rng.IntN(9))
		hi := int64(2 + rng.IntN(200))
		for i := range a {
			a[i] = 1 + rng.Int64N(hi)
		}
		for i := range b {
			b[i] = 1 + rng.Int64N(hi)
		}
		sa, sb := sums(a), sums(b)
		total := sa[len(sa)-1]
		for g := int64(1); g <= total+3; g++ {
			want := slices.Contains(sa, g)
			if got := reaches(a, g); got != want {
				t.Fatalf("case %d: reaches(%v, %d) = %v, want %v", it, a, g, got, want)
			}
			if !want {
				continue
			}
			pick := pickTotal(a, g)
			var sum int64
			for j, i := range pick {
				if i < 0 || i >= len(a) || slices.Contains(pick[:j], i) {
					t.Fatalf("case %d: pickTotal(%v, %d) = %v: not a group", it, a, g, pick)
				}
				sum += a[i]
			}
			if sum != g {
				t.Fatalf("case %d: pickTotal(%v, %d) = %v totals %d", it, a, g, pick, sum)
			}
		}
		want := int64(-1)
		for _, x := range sa {
			if x > 0 && x < total && slices.Contains(sb, x) && (want < 0 || x < want) {
				want = x
			}
		}
		if got := leastCommonTotal(a, b); got != want {
			t.Fatalf("case %d: leastCommonTotal(%v, %v) = %d, want %d", it, a, b, got, want)
		}
	}
}

// TestInertPaired checks the wide boundaries of the tiling-contention
// instances that have them paired by the classes (inertPaired): each
// such boundary's buffers, its twins put back, are split into groups of
// equal totals, more than one, each buffer in one; the others are left
// as they were.
func TestInertPaired(t *testing.T) {
	for _, spec := range []string{
		"synthetic/tiling-contention?n=1000&sizes=log-uniform&seed=1",
		"synthetic/tiling-contention?n=1000&sizes=dominant&seed=1",
	} {
		const capacity = 1 << 20 // the family's, its optimum
		in := loadInstance(t, spec)
		bud := &budget{ctx: context.Background(), nodes: -1}
		split := 0
		for i := range in.parts {
			pt := &in.parts[i]
			if !in.zeroSlack(pt, capacity) {
				continue
			}
			_, l := bandsOf(in, pt, capacity, false, &pace{b: bud}, false)
			if l == nil {
				continue
			}
			il := l.inertPaired(&pace{b: bud})
			if il == nil {
				continue
			}
			// Buffers by section, before and after.
			by := func(l *layout) (map[int32][2][]int32, map[int32]bool) {
				out, wide := map[int32][2][]int32{}, map[int32]bool{}
				for _, bd := range l.bds {
					x := out[bd.s]
					x[0], x[1] = append(x[0], bd.e...), append(x[1], bd.st...)
					out[bd.s] = x
					wide[bd.s] = wide[bd.s] || bd.wide()
				}
				return out, wide
			}
			before, wide := by(l)
			after, _ := by(il)
			for s, x := range before {
				y := after[s]
				for side := range 2 {
					slices.Sort(x[side])
					slices.Sort(y[side])
					if !slices.Equal(x[side], y[side]) {
						t.Fatalf("%s: boundary %d: buffers %v, paired %v", spec, s, x, y)
					}
				}
			}
			count := func(l *layout, s int32) (n int) {
				for _, bd := range l.bds {
					if bd.s == s {
						n++
					}
				}
				return n
			}
			for _, bd := range il.bds {
				var te, ts int64
				for _, k := range bd.e {
					te += in.size[k]
				}
				for _, k := range bd.st {
					ts += in.size[k]
				}
				if te != ts {
					t.Fatalf("%s: boundary %d: a group of totals %d and %d", spec, bd.s, te, ts)
				}
			}
			for s := range before {
				if !wide[s] {
					if count(l, s) != count(il, s) {
						t.Fatalf("%s: boundary %d, not wide, paired again", spec, s)
					}
				} else if count(il, s) > 1 {
					split++
				}
			}
		}
		if split == 0 {
			t.Errorf("%s: no wide boundary split", spec)
		}
	}
}
