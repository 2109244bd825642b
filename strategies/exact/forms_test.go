package exact_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"membench/strategies/exact"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// window returns the bytes of buffer i of p in use at task t (Hi == 0:
// none, or t outside its lifetime), read straight from the gaps.
func window(p *workloads.Problem, i, t int) workloads.Window {
	b := p.Buffers[i]
	if t < b.First || t > b.Last || b.Size == 0 {
		return workloads.Window{}
	}
	for _, g := range p.GapsOf(i) {
		if g.First <= t && t <= g.Last {
			if g.Window == nil {
				return workloads.Window{}
			}
			return *g.Window
		}
	}
	return workloads.Window{Lo: 0, Hi: b.Size}
}

// above returns how far above buffer a buffer b must sit, task by task
// (the largest over the tasks both use memory of a's window's end less
// b's window's start), and whether they ever use memory together.
func above(p *workloads.Problem, a, b int) (int64, bool) {
	var d int64
	ok := false
	for t := 0; t < 64; t++ {
		wa, wb := window(p, a, t), window(p, b, t)
		if wa.Hi > 0 && wb.Hi > 0 {
			if x := wa.Hi - wb.Lo; !ok || x > d {
				d, ok = x, true
			}
		}
	}
	return d, ok
}

// clash reports whether a at oa and b at ob break the pairwise rule.
func clash(p *workloads.Problem, a, b int, oa, ob int64) bool {
	ab, ok := above(p, a, b)
	if !ok {
		return false
	}
	ba, _ := above(p, b, a)
	return ob < oa+ab && oa < ob+ba
}

// checkForms checks a plan of p the long way: alignment, fixed offsets
// and every pair of buffers by the pairwise rule.
func checkForms(p *workloads.Problem, offs []int64) error {
	for i := range p.Buffers {
		if o, ok := p.FixedOf(i); ok && offs[i] != o {
			return fmt.Errorf("buffer %d fixed at %d, planned at %d", i, o, offs[i])
		}
		if offs[i] < 0 || offs[i]%p.AlignOf(i) != 0 {
			return fmt.Errorf("buffer %d at %d, alignment %d", i, offs[i], p.AlignOf(i))
		}
		for j := range i {
			if clash(p, i, j, offs[i], offs[j]) {
				return fmt.Errorf("buffers %d at %d and %d at %d clash", i, offs[i], j, offs[j])
			}
		}
	}
	return nil
}

// interleaved reports whether some pair of buffers of p that use memory
// together may sit either way with the later one lower: an effective
// size of 0 or less (the brute force's first fit need not reach the
// optimum then).
func interleaved(p *workloads.Problem) bool {
	for i := range p.Buffers {
		for j := range p.Buffers {
			if d, ok := above(p, i, j); ok && i != j && d <= 0 && p.Buffers[i].Size > 0 && p.Buffers[j].Size > 0 {
				return true
			}
		}
	}
	return false
}

// bruteForms returns the smallest footprint over every order of the free
// buffers of p, each placed first fit (at the lowest aligned offset that
// clashes with no placed buffer) after the fixed ones. Where every pair
// that uses memory together has positive effective sizes, some order
// reaches the optimum: place an optimal plan's free buffers in order of
// offset; each finds its own offset free (the buffers placed before it
// are below it, and lower still), so it lands there or lower. It shares
// no code with the solver.
func bruteForms(p *workloads.Problem) int64 {
	n := len(p.Buffers)
	offs := make([]int64, n)
	placed := make([]bool, n)
	var fp0 int64
	for i, b := range p.Buffers {
		if o, ok := p.FixedOf(i); ok {
			offs[i], placed[i] = o, true
			fp0 = max(fp0, o+b.Size)
		}
	}
	best := int64(1 << 62)
	var rec func(fp int64, left int)
	rec = func(fp int64, left int) {
		if fp >= best {
			return
		}
		if left == 0 {
			best = fp
			return
		}
		for i := range n {
			if placed[i] {
				continue
			}
			a := p.AlignOf(i)
			// First fit: 0 or just above some placed buffer.
			off := int64(-1)
			cands := []int64{0}
			for j := range n {
				if placed[j] {
					if d, ok := above(p, j, i); ok {
						cands = append(cands, (max(offs[j]+d, 0)+a-1)/a*a)
					}
				}
			}
			for _, o := range cands {
				if off >= 0 && o >= off {
					continue
				}
				fits := true
				for j := range n {
					if placed[j] && clash(p, i, j, o, offs[j]) {
						fits = false
						break
					}
				}
				if fits {
					off = o
				}
			}
			placed[i], offs[i] = true, off
			rec(max(fp, off+p.Buffers[i].Size), left-1)
			placed[i] = false
		}
	}
	left := 0
	for i := range n {
		if !placed[i] {
			left++
		}
	}
	rec(fp0, left)
	return best
}

// formsProblem returns a random small problem with the forms of f: own
// alignments, gaps (some with windows) and fixed offsets that agree.
func formsProblem(rng *rand.Rand, n int, f workloads.Forms) *workloads.Problem {
	p := smallProblem(rng, n, []int64{0, 1, 4}[rng.IntN(3)])
	for i := range p.Buffers {
		b := &p.Buffers[i]
		b.Size %= 40 // small, so that fixed offsets meet the others
		if f&workloads.FormAlign != 0 && rng.IntN(2) == 0 {
			if p.Aligns == nil {
				p.Aligns = make([]int64, n)
			}
			p.Aligns[i] = []int64{1, 2, 8, 16}[rng.IntN(4)]
		}
		if f&workloads.FormGaps != 0 && b.Last-b.First >= 2 && rng.IntN(2) == 0 {
			if p.Gaps == nil {
				p.Gaps = make([][]workloads.Gap, n)
			}
			g := workloads.Gap{First: b.First + 1, Last: b.First + 1 + rng.IntN(b.Last-b.First-1)}
			if b.Size > 1 && rng.IntN(2) == 0 {
				lo := rng.Int64N(b.Size)
				g.Window = &workloads.Window{Lo: lo, Hi: lo + 1 + rng.Int64N(b.Size-lo)}
			}
			p.Gaps[i] = []workloads.Gap{g}
		}
	}
	if f&workloads.FormFixed != 0 {
		p.Fixed = make([]int64, n)
		for i := range p.Fixed {
			p.Fixed[i] = workloads.NoOffset
		}
		for i := range p.Buffers {
			if rng.IntN(3) != 0 {
				continue
			}
			a := p.AlignOf(i)
			o := rng.Int64N(60) / a * a
			ok := true
			for j := range i {
				if oj, fixed := p.FixedOf(j); fixed && clash(p, i, j, o, oj) {
					ok = false
				}
			}
			if ok {
				p.Fixed[i] = o
			}
		}
	}
	return p
}

// TestFormsSmall checks exact against the brute force on small random
// problems with each form alone and all together: the optimum, proved,
// where the canonical search is complete; otherwise a valid plan and a
// bound no higher than the brute force's footprint.
func TestFormsSmall(t *testing.T) {
	s := lookup(t, "exact?nodes=1000000")
	forms := []workloads.Forms{workloads.FormAlign, workloads.FormGaps, workloads.FormFixed,
		workloads.FormAlign | workloads.FormGaps | workloads.FormFixed}
	for _, f := range forms {
		rng := rand.New(rand.NewPCG(20, uint64(f)))
		seen, proved := 0, 0
		for i := range 150 {
			p := formsProblem(rng, 1+rng.IntN(7), f)
			if p.Forms()&f == 0 {
				continue
			}
			seen++
			want := bruteForms(p)
			plan, err := s.Plan(context.Background(), p)
			if err != nil {
				t.Fatalf("%s problem %d %s: %v", f, i, strategytest.Describe(p), err)
			}
			if err := checkForms(p, plan.Offsets); err != nil {
				t.Fatalf("%s problem %d %s: %v", f, i, strategytest.Describe(p), err)
			}
			if interleaved(p) {
				if plan.Bound > want || plan.Footprint < plan.Bound {
					t.Fatalf("%s problem %d %s: footprint %d bound %d, brute force %d",
						f, i, strategytest.Describe(p), plan.Footprint, plan.Bound, want)
				}
				continue
			}
			proved++
			if plan.Footprint != want || !plan.Optimal || plan.Bound != want {
				t.Fatalf("%s problem %d %s: footprint %d bound %d optimal %v, want the optimum %d proved",
					f, i, strategytest.Describe(p), plan.Footprint, plan.Bound, plan.Optimal, want)
			}
		}
		t.Logf("%s: %d problems, %d proved", f, seen, proved)
		if seen < 50 || proved < 30 {
			t.Fatalf("%s: only %d problems with the form, %d with proofs", f, seen, proved)
		}
	}
}

// TestFormsCapacity: with every form, exact fits the optimum and proves
// one byte less impossible.
func TestFormsCapacity(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	all := workloads.FormAlign | workloads.FormGaps | workloads.FormFixed
	for i := 0; i < 60; i++ {
		p := formsProblem(rng, 6, all)
		if interleaved(p) {
			continue
		}
		opt := bruteForms(p)
		if opt == 0 {
			continue
		}
		plan, err := lookup(t, fmt.Sprintf("exact?nodes=1000000&capacity=%d", opt)).Plan(context.Background(), p)
		if err != nil {
			t.Fatalf("%s in capacity %d (the optimum): %v", strategytest.Describe(p), opt, err)
		}
		if err := checkForms(p, plan.Offsets); err != nil || plan.Footprint > opt {
			t.Fatalf("%s in capacity %d: footprint %d, %v", strategytest.Describe(p), opt, plan.Footprint, err)
		}
		_, err = lookup(t, fmt.Sprintf("exact?nodes=1000000&capacity=%d", opt-1)).Plan(context.Background(), p)
		if !errors.Is(err, exact.ErrInfeasible) {
			t.Fatalf("%s in capacity %d: error %v, want ErrInfeasible", strategytest.Describe(p), opt-1, err)
		}
	}
}

// TestFormsErrors: fixed buffers that clash, or a capacity below a fixed
// buffer's end, are refused with errors naming the buffers.
func TestFormsErrors(t *testing.T) {
	two := func(o0, o1 int64) *workloads.Problem {
		return &workloads.Problem{
			Buffers: []workloads.Buffer{{ID: 7, Size: 10, First: 0, Last: 2}, {ID: 8, Size: 10, First: 1, Last: 3}},
			Fixed:   []int64{o0, o1},
		}
	}
	for _, c := range []struct {
		spec string
		p    *workloads.Problem
		want string
	}{
		{"exact", two(0, 5), "exact: no plan fits: buffers 0 (id 7) fixed at 0 and 1 (id 8) fixed at 5 overlap while both are live"},
		{"exact?capacity=25", two(0, 16), "exact: no plan fits in capacity 25 (proved: buffer 1 (id 8) is fixed at 16 and ends at 26)"},
		{"exact?capacity=19", two(5, workloads.NoOffset), "exact: no plan fits in capacity 19 (proved: with its gap windows and fixed offsets, some task needs 20)"},
	} {
		_, err := lookup(t, c.spec).Plan(context.Background(), c.p)
		if err == nil || err.Error() != c.want || !errors.Is(err, exact.ErrInfeasible) {
			t.Errorf("%s: error %v, want %q", c.spec, err, c.want)
		}
	}
	// A fixed offset that its alignment refuses.
	p := two(3, workloads.NoOffset)
	p.Aligns = []int64{4, 0}
	_, err := lookup(t, "exact").Plan(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "fixed at offset 3, not a multiple of its alignment 4") {
		t.Errorf("misaligned fixed offset: error %v", err)
	}
}
