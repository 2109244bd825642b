package strategytest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"

	"membench/strategies"
	"membench/workloads"
)

// The problem forms (DESIGN §15) in the suite: a strategy built by
// strategies.Lookup either honours a form it declares in Info.Forms, with
// a valid plan, or the registry refuses the problem with
// strategies.ErrUnsupportedForm. Hints are advice and memory spaces are
// planned space by space for strategies that do not declare them, so
// every strategy must plan those.

// FormsPerRandom is how many random problems the suite draws for each
// form, and for all of them together.
const FormsPerRandom = 4

// WithForms returns a copy of p with the forms f drawn at random from
// seed, always feasible: own alignments from {1, 4, 8, 24, 64, 128} (or
// the problem's); gaps inside lifetimes, with windows or without; fixed
// offsets for some buffers, taken from a plan that stacks every buffer
// of a space above the last, so the others can always be placed above
// them; hints anywhere; and two or three memory spaces, with capacities
// that hold such a stack twice over where the draw gives one. The same seed gives
// the same problem.
func WithForms(p *workloads.Problem, f workloads.Forms, seed uint64) *workloads.Problem {
	rng := rand.New(rand.NewPCG(seed, 0xf0a5))
	q := *p
	q.Buffers = slices.Clone(p.Buffers)
	n := len(q.Buffers)
	q.Name = fmt.Sprintf("%s+forms(%s)#%d", p.Name, f, seed)
	if f&workloads.FormAlign != 0 {
		q.Aligns = make([]int64, n)
		for i := range q.Aligns {
			q.Aligns[i] = []int64{0, 1, 4, 8, 24, 64, 128}[rng.IntN(7)]
		}
	}
	if f&workloads.FormGaps != 0 {
		q.Gaps = make([][]workloads.Gap, n)
		for i, b := range q.Buffers {
			q.Gaps[i] = randomGaps(rng, b)
		}
	}
	if f&workloads.FormHints != 0 {
		q.Hints = make([]int64, n)
		for i := range q.Hints {
			q.Hints[i] = workloads.NoOffset
			if rng.IntN(2) == 0 {
				q.Hints[i] = rng.Int64N(1 << 12)
			}
		}
	}
	if f&workloads.FormMemories != 0 {
		k := 2 + rng.IntN(2)
		q.Memories = make([]workloads.Memory, k)
		for m := range q.Memories {
			q.Memories[m].Name = []string{"sram", "dram", "hbm"}[m]
		}
		q.Spaces = make([]int, n)
		for i := range q.Spaces {
			q.Spaces[i] = rng.IntN(k)
		}
	}
	// The stack: each space's buffers back to back, aligned.
	stack := make([]int64, n)
	tops := make([]int64, max(len(q.Memories), 1))
	for i, b := range q.Buffers {
		m := q.MemoryOf(i)
		stack[i] = strategies.AlignUp(tops[m], q.AlignOf(i))
		tops[m] = stack[i] + b.Size
	}
	if f&workloads.FormFixed != 0 {
		q.Fixed = make([]int64, n)
		for i := range q.Fixed {
			q.Fixed[i] = workloads.NoOffset
			if rng.IntN(3) == 0 {
				q.Fixed[i] = stack[i]
			}
		}
	}
	if f&workloads.FormMemories != 0 {
		for m := range q.Memories {
			if rng.IntN(2) == 0 {
				// Room for the stack twice over: a heuristic may
				// waste some, but not that much.
				q.Memories[m].Capacity = 2*tops[m] + 4096
			}
		}
	}
	return &q
}

// randomGaps draws sorted, disjoint gaps inside b's lifetime, each with a
// window inside the buffer half of the time.
func randomGaps(rng *rand.Rand, b workloads.Buffer) []workloads.Gap {
	var gaps []workloads.Gap
	for t := b.First; t <= b.Last && rng.IntN(2) == 0; {
		g := workloads.Gap{First: t + rng.IntN(min(b.Last-t+1, 8))}
		g.Last = g.First + rng.IntN(min(b.Last-g.First+1, 8))
		if rng.IntN(2) == 0 {
			lo := rng.Int64N(b.Size + 1)
			g.Window = &workloads.Window{Lo: lo, Hi: lo + rng.Int64N(b.Size-lo+1)}
		}
		gaps = append(gaps, g)
		t = g.Last + 1
	}
	return gaps
}

// eachForm is every form alone.
var eachForm = []workloads.Forms{workloads.FormAlign, workloads.FormGaps, workloads.FormFixed, workloads.FormHints, workloads.FormMemories}

// FormsCorpus returns the problems with forms the suite plans: every form
// alone and all together on hand-made problems (a chain, TFLite's
// records with a gap that lets two buffers share, MiniMalloc-style
// windows), then FormsPerRandom random problems for each.
func FormsCorpus() []Case {
	chain := records(0, [3]int64{16, 0, 1}, [3]int64{8, 1, 2}, [3]int64{64, 2, 3}, [3]int64{32, 3, 4}, [3]int64{8, 4, 5})
	chain.Name = "chain"
	// Buffer 0 uses only its first 4 bytes during tasks 5..9, while
	// buffer 1 lives; buffer 2 leaves memory free during 2..3.
	windows := records(0, [3]int64{10, 0, 9}, [3]int64{8, 6, 8}, [3]int64{16, 0, 5}, [3]int64{12, 2, 3})
	windows.Name = "windows"
	windows.Gaps = [][]workloads.Gap{{{First: 5, Last: 9, Window: &workloads.Window{Lo: 0, Hi: 4}}}, nil, {{First: 2, Last: 3}}, nil}
	pinned := records(8, [3]int64{16, 0, 3}, [3]int64{8, 1, 2}, [3]int64{24, 2, 5}, [3]int64{8, 4, 5})
	pinned.Name = "pinned"
	pinned.Fixed = []int64{32, workloads.NoOffset, 0, workloads.NoOffset}
	aligned := records(4, [3]int64{10, 0, 3}, [3]int64{7, 1, 2}, [3]int64{3, 2, 5}, [3]int64{20, 4, 5})
	aligned.Name = "own-alignments"
	aligned.Aligns = []int64{0, 24, 64, 0}
	spaces := records(0, [3]int64{16, 0, 1}, [3]int64{8, 0, 1}, [3]int64{8, 1, 3}, [3]int64{32, 2, 3})
	spaces.Name = "spaces"
	spaces.Memories = []workloads.Memory{{Name: "sram", Capacity: 1024}, {Name: "dram"}}
	spaces.Spaces = []int{0, 1, 0, 1}
	hinted := records(0, [3]int64{16, 0, 1}, [3]int64{8, 0, 1}, [3]int64{8, 1, 3})
	hinted.Name = "hints"
	hinted.Hints = []int64{16, workloads.NoOffset, 0}
	cases := []Case{{"windows", windows}, {"pinned", pinned}, {"own-alignments", aligned}, {"spaces", spaces}, {"hints", hinted}}
	all := workloads.AllForms
	cases = append(cases, Case{"chain-all-forms", WithForms(chain, all, 1)})
	for k, f := range append(slices.Clone(eachForm), all) {
		for s := range uint64(FormsPerRandom) {
			seed := uint64(k)*100 + s
			p := WithForms(RandomProblem(seed, 40), f, seed)
			cases = append(cases, Case{p.Name, p})
		}
	}
	return cases
}

// CheckForms plans p, a problem with forms, with s as a strategy built by
// strategies.Lookup must: with ErrUnsupportedForm, naming the strategy and
// the forms, when p has a form s does not declare (other than hints and
// memory spaces), else as Check requires, with p's forms unchanged. A
// memory space whose capacity cannot hold LB_load of its buffers must
// give an error. A strategy built neither by Lookup nor by
// strategies.Declare is not checked: it sees problems as they are.
func CheckForms(s strategies.Strategy, kind strategies.Kind, p *workloads.Problem) error {
	have, ok := strategies.DeclaredForms(s)
	if !ok {
		return nil
	}
	missing := p.Forms() &^ have &^ (workloads.FormHints | workloads.FormMemories)
	if missing != 0 {
		_, err := safePlan(context.Background(), s, p)
		if !errors.Is(err, strategies.ErrUnsupportedForm) {
			return fmt.Errorf("%s on %s: got error %v, want %v (it does not declare %s)", s.Name(), Describe(p), err, strategies.ErrUnsupportedForm, missing)
		}
		return nil
	}
	if over := overCapacity(p); over >= 0 {
		if _, err := safePlan(context.Background(), s, p); err == nil {
			return fmt.Errorf("%s on %s: planned memory space %q, whose capacity %d is below its LB_load, without an error",
				s.Name(), Describe(p), p.Memories[over].Name, p.Memories[over].Capacity)
		}
		return nil
	}
	before := formsOf(p)
	if err := Check(s, kind, p); err != nil {
		return err
	}
	if !reflect.DeepEqual(before, formsOf(p)) {
		return fmt.Errorf("%s on %s: Plan modified the problem's forms", s.Name(), Describe(p))
	}
	return nil
}

// overCapacity returns the first memory space whose capacity is below
// its LB_load, or -1.
func overCapacity(p *workloads.Problem) int {
	loads := p.SpaceLoads()
	for m, mem := range p.Memories {
		if mem.Capacity > 0 && loads[m] > mem.Capacity {
			return m
		}
	}
	return -1
}

// formsOf returns deep copies of p's forms, to compare.
func formsOf(p *workloads.Problem) []any {
	gaps := make([][]workloads.Gap, len(p.Gaps))
	for i, g := range p.Gaps {
		gaps[i] = slices.Clone(g)
		for k := range gaps[i] {
			if w := gaps[i][k].Window; w != nil {
				c := *w
				gaps[i][k].Window = &c
			}
		}
	}
	return []any{slices.Clone(p.Aligns), gaps, slices.Clone(p.Fixed), slices.Clone(p.Hints), slices.Clone(p.Spaces), slices.Clone(p.Memories)}
}

// checkFormsCorpus plans FormsCorpus, and a memory space too small for
// its buffers, with CheckForms.
func checkFormsCorpus(s strategies.Strategy, kind strategies.Kind) []error {
	var errs []error
	cases := FormsCorpus()
	tight := records(0, [3]int64{16, 0, 1}, [3]int64{16, 1, 2}, [3]int64{8, 3, 3})
	tight.Name = "over-capacity"
	tight.Memories = []workloads.Memory{{Name: "sram", Capacity: 24}, {Name: "dram"}}
	tight.Spaces = []int{0, 0, 1}
	cases = append(cases, Case{tight.Name, tight})
	for _, c := range cases {
		if err := CheckForms(s, kind, c.Problem); err != nil {
			errs = append(errs, err)
			if len(errs) == 5 {
				break // enough to go on
			}
		}
	}
	return errs
}
