// Package strategytest is the conformance suite every registered strategy
// must pass, in the style of testing/fstest: Test returns every failure,
// Run reports them as subtests.
//
// A conforming strategy returns valid plans (strategies.Validate) on a
// hand-made corpus and on random problems, returns the same plan every time
// for the same problem, leaves the problem unchanged, never goes below the
// lower bounds, returns plans of the kind it is registered as, and honours
// context cancellation: cancelled before or during planning, it returns
// context.Canceled within MaxLooksAfter further looks at its context. The
// checks count looks (calls to Err and Done), not milliseconds. On
// problems with forms (FormsCorpus, CheckForms) a strategy built by
// strategies.Lookup plans the forms it declares validly and is refused the
// others; on problems of textures and BHWC shapes, and byte problems with
// a reallocation graph (ShapeCorpus, CheckSizeType), it plans the size
// types it declares validly and is refused the others with TFLite's
// reason.
package strategytest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"membench/internal/ctxcount"
	"membench/strategies"
	"membench/workloads"
	"membench/workloads/synthetic"
)

// CancelN is the size of the problem the cancellation check plans.
const CancelN = 100_000

// RandomProblems is how many random problems Test plans.
const RandomProblems = 100

// Case is a named problem of the corpus.
type Case struct {
	Name    string
	Problem *workloads.Problem
}

// Corpus returns the hand-made problems every strategy must plan validly:
// the edge cases of DESIGN §1 and TFLite's upstream test records.
func Corpus() []Case {
	chain := [][3]int64{{16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5}}
	complexRecs := [][3]int64{{32, 0, 1}, {32, 1, 4}, {8, 2, 5}, {16, 3, 5}, {8, 4, 5}, {64, 5, 7}, {8, 6, 8}, {8, 7, 8}, {16, 8, 9}}
	cases := []Case{
		{"empty", records(0)},
		{"one-buffer", records(0, [3]int64{16, 0, 1})},
		{"one-zero-size", records(0, [3]int64{0, 0, 0})},
		{"all-zero-size", records(0, [3]int64{0, 0, 3}, [3]int64{0, 1, 2}, [3]int64{0, 2, 5})},
		{"zero-size-mixed", records(0, [3]int64{0, 0, 5}, [3]int64{16, 0, 2}, [3]int64{0, 1, 1}, [3]int64{8, 2, 4},
			[3]int64{0, 3, 3}, [3]int64{16, 3, 5}, [3]int64{16, 1, 2}, [3]int64{0, 3, 4}, [3]int64{16, 3, 3})},
		{"equal-sizes", records(0, [3]int64{32, 0, 2}, [3]int64{32, 1, 1}, [3]int64{32, 1, 4}, [3]int64{32, 3, 5},
			[3]int64{32, 2, 3}, [3]int64{32, 5, 6}, [3]int64{32, 6, 6}, [3]int64{32, 0, 6})},
		{"adjacent-lifetimes", records(0, chain...)},
		{"tflite-complex", records(0, complexRecs...)},
		{"same-task", records(0, [3]int64{8, 2, 2}, [3]int64{24, 2, 2}, [3]int64{16, 2, 2}, [3]int64{24, 2, 2}, [3]int64{8, 2, 2})},
		{"disjoint", records(0, [3]int64{8, 0, 0}, [3]int64{24, 1, 1}, [3]int64{16, 2, 2}, [3]int64{24, 3, 3}, [3]int64{8, 4, 4})},
		{"duplicates", records(0, [3]int64{40, 1, 3}, [3]int64{40, 1, 3}, [3]int64{40, 1, 3}, [3]int64{8, 0, 1}, [3]int64{8, 0, 1})},
		{"nested", records(0, [3]int64{100, 0, 9}, [3]int64{50, 1, 8}, [3]int64{25, 2, 7}, [3]int64{12, 3, 6}, [3]int64{6, 4, 5}, [3]int64{200, 10, 10})},
		{"long-and-short", records(0, [3]int64{64, 0, 20}, [3]int64{8, 0, 1}, [3]int64{16, 1, 2}, [3]int64{8, 2, 3},
			[3]int64{32, 5, 9}, [3]int64{8, 9, 10}, [3]int64{128, 11, 12}, [3]int64{8, 12, 20})},
		{"huge-sizes", records(0, [3]int64{1 << 40, 0, 2}, [3]int64{3_000_000_000, 1, 3}, [3]int64{1 << 40, 3, 4},
			[3]int64{1 << 39, 2, 5}, [3]int64{1, 0, 5}, [3]int64{1<<40 - 4, 5, 6}, [3]int64{3_000_000_000, 6, 6})},
		{"unsorted", records(0, [3]int64{8, 0, 1}, [3]int64{8, 0, 2}, [3]int64{8, 5, 6}, [3]int64{8, 1, 3})},
		{"unsorted-mixed", records(0, [3]int64{8, 5, 6}, [3]int64{16, 0, 1}, [3]int64{8, 1, 5}, [3]int64{32, 2, 3},
			[3]int64{16, 6, 7}, [3]int64{8, 0, 0}, [3]int64{32, 4, 4}, [3]int64{16, 3, 3})},
		{"reversed", records(0, [3]int64{16, 8, 9}, [3]int64{8, 7, 8}, [3]int64{8, 6, 8}, [3]int64{64, 5, 7}, [3]int64{8, 4, 5},
			[3]int64{16, 3, 5}, [3]int64{8, 2, 5}, [3]int64{32, 1, 4}, [3]int64{32, 0, 1})},
		{"sparse-tasks", records(0, [3]int64{16, 0, 10}, [3]int64{8, 10, 5000}, [3]int64{32, 4000, 90000},
			[3]int64{16, 90000, 90000}, [3]int64{64, 95000, 99999})},
		{"aligned-128", records(128, chain...)},
		{"aligned-24-complex", records(24, complexRecs...)},
		{"aligned-zero-size", records(64, [3]int64{0, 0, 2}, [3]int64{10, 0, 1}, [3]int64{0, 1, 1}, [3]int64{70, 1, 2})},
	}
	dag := synthetic.DefaultDAG(200, 7)
	dag.K, dag.Outputs = 8, 2
	cases = append(cases,
		Case{"random-dag-k8", synthetic.RandomDAG(dag)},
		Case{"random-dag-300", synthetic.RandomDAG(synthetic.DefaultDAG(300, 11))},
	)
	for i := range cases {
		if cases[i].Problem.Name == "" {
			cases[i].Problem.Name = cases[i].Name
		}
	}
	return cases
}

func records(align int64, rs ...[3]int64) *workloads.Problem {
	p := &workloads.Problem{Alignment: align, Buffers: make([]workloads.Buffer, len(rs))}
	for i, r := range rs {
		p.Buffers[i] = workloads.Buffer{ID: i, Size: r[0], First: int(r[1]), Last: int(r[2])}
	}
	return p
}

// RandomProblem returns a small random problem (at most maxN buffers) with
// a flavour drawn from the seed: sizes from a few equal values, continuous,
// zero-heavy or up to 2^40; input sorted by First or not; sometimes an
// alignment. The same seed gives the same problem.
func RandomProblem(seed uint64, maxN int) *workloads.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	n := rng.IntN(maxN + 1)
	T := 1 + rng.IntN(n+1)
	flavour := rng.IntN(4)
	palette := []int64{8, 16, 16, 64, 100, 4096}
	p := &workloads.Problem{Name: fmt.Sprintf("random?seed=%d&max_n=%d", seed, maxN)}
	for i := range n {
		f := rng.IntN(T)
		span := rng.IntN(1 + rng.IntN(T-f))
		var size int64
		switch {
		case flavour == 0:
			size = palette[rng.IntN(len(palette))]
		case flavour == 1:
			size = 1 + rng.Int64N(1<<20)
		case flavour == 2 && rng.IntN(2) == 0:
			size = 0
		case flavour == 2:
			size = palette[rng.IntN(3)]
		default:
			size = rng.Int64N(1<<40 + 1)
		}
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: size, First: f, Last: f + span})
	}
	if rng.IntN(2) == 0 {
		slices.SortStableFunc(p.Buffers, func(a, b workloads.Buffer) int { return a.First - b.First })
		for i := range p.Buffers {
			p.Buffers[i].ID = i
		}
	}
	if rng.IntN(4) == 0 {
		p.Alignment = []int64{4, 24, 128}[rng.IntN(3)]
	}
	return p
}

// Describe names a problem in a failure message: its name, alignment and,
// for small ones, the records themselves as {size,first,last}.
func Describe(p *workloads.Problem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "problem %q (%d buffers", p.Name, len(p.Buffers))
	if p.Alignment > 1 {
		fmt.Fprintf(&b, ", alignment %d", p.Alignment)
	}
	if f := p.Forms(); f != 0 {
		fmt.Fprintf(&b, ", forms: %s", f)
	}
	if len(p.Buffers) > 0 && len(p.Buffers) <= 16 {
		b.WriteString(":")
		for _, r := range p.Buffers {
			fmt.Fprintf(&b, " {%d,%d,%d}", r.Size, r.First, r.Last)
		}
	}
	b.WriteString(")")
	return b.String()
}

// Check plans p twice with s and checks everything a plan must satisfy:
// no error, a valid plan of the right kind (kind Objects or Offsets; any
// other kind accepts both), footprint and object sizes at least the lower
// bounds, an unchanged problem and the same plan both times.
func Check(s strategies.Strategy, kind strategies.Kind, p *workloads.Problem) error {
	err := check(s, kind, p)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", s.Name(), Describe(p), err)
	}
	return nil
}

func check(s strategies.Strategy, kind strategies.Kind, p *workloads.Problem) error {
	orig := slices.Clone(p.Buffers)
	plan, err := safePlan(context.Background(), s, p)
	if err != nil {
		return fmt.Errorf("Plan: %w", err)
	}
	if !slices.Equal(orig, p.Buffers) {
		return errors.New("Plan modified the problem's buffers")
	}
	if err := strategies.Validate(p, plan); err != nil {
		return err
	}
	switch {
	case kind == strategies.Objects && !plan.IsObjects() && len(p.Buffers) > 0:
		return errors.New("object strategy returned no object ids")
	case kind == strategies.Offsets && (plan.ObjectIDs != nil || plan.ObjectSizes != nil):
		return errors.New("offset strategy returned object ids or sizes")
	}
	lb := strategies.LowerBounds(p)
	if plan.Footprint < lb.Load {
		return fmt.Errorf("footprint %d is below LB_load %d", plan.Footprint, lb.Load)
	}
	if plan.IsObjects() {
		var sum int64
		for _, s := range plan.ObjectSizes {
			sum += s
		}
		if sum < lb.Objects {
			return fmt.Errorf("object sizes sum to %d, below LB_objects %d", sum, lb.Objects)
		}
		// DESIGN §1: an object plan's footprint is the sum of its objects.
		if p.Alignment <= 1 && plan.Footprint != sum {
			return fmt.Errorf("footprint %d, but object sizes sum to %d", plan.Footprint, sum)
		}
	}
	again, err := safePlan(context.Background(), s, p)
	if err != nil {
		return fmt.Errorf("second Plan: %w", err)
	}
	if !reflect.DeepEqual(normal(plan), normal(again)) {
		return fmt.Errorf("not deterministic: planning twice gave %s and %s", brief(plan), brief(again))
	}
	return nil
}

// normal makes empty and nil slices compare equal.
func normal(p *strategies.Plan) strategies.Plan {
	q := *p
	if len(q.Offsets) == 0 {
		q.Offsets = nil
	}
	if len(q.ObjectIDs) == 0 && q.ObjectIDs != nil {
		q.ObjectIDs = []int{}
	}
	if len(q.ObjectSizes) == 0 && q.ObjectSizes != nil {
		q.ObjectSizes = []int64{}
	}
	return q
}

// brief shows the start of a plan.
func brief(p *strategies.Plan) string {
	head := func(xs []int64) []int64 { return xs[:min(len(xs), 12)] }
	s := fmt.Sprintf("{footprint %d, offsets %v", p.Footprint, head(p.Offsets))
	if p.IsObjects() {
		s += fmt.Sprintf(", object ids %v, object sizes %v", p.ObjectIDs[:min(len(p.ObjectIDs), 12)], head(p.ObjectSizes))
	}
	return s + "}"
}

// safePlan turns a panic in Plan into an error.
func safePlan(ctx context.Context, s strategies.Strategy, p *workloads.Problem) (plan *strategies.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			plan, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	plan, err = s.Plan(ctx, p)
	if err == nil && plan == nil {
		err = errors.New("nil plan and nil error")
	}
	return plan, err
}

var (
	cancelOnce    sync.Once
	cancelProblem *workloads.Problem
)

// bigProblem returns the shared CancelN-buffer random DAG.
func bigProblem() *workloads.Problem {
	cancelOnce.Do(func() { cancelProblem = synthetic.RandomDAG(synthetic.DefaultDAG(CancelN, 1)) })
	return cancelProblem
}

// MaxLooksAfter is how many more times Plan may look at its context (call
// Err or Done) after the look that found it cancelled: a planner that
// stops returns at once, give or take a check on its way out, while one
// that carries on looks again at every step of its loop.
const MaxLooksAfter = 4

// LookCap bounds the uncancelled run of the cancel-during check: a
// planner still planning at its LookCap-th look is cancelled there, so a
// slow planner costs the check no more than that much work.
const LookCap = 256

// checkCancelled requires Plan, given a context already cancelled, to
// return context.Canceled as soon as it looks at it.
func checkCancelled(s strategies.Strategy, _ strategies.Kind) []error {
	p := synthetic.RandomDAG(synthetic.DefaultDAG(1000, 2))
	ctx := ctxcount.New(1)
	_, err := safePlan(ctx, s, p)
	switch {
	case !errors.Is(err, context.Canceled):
		return []error{fmt.Errorf("%s on %s with a cancelled context: got error %v, want context.Canceled", s.Name(), Describe(p), err)}
	case ctx.After() > MaxLooksAfter:
		return []error{fmt.Errorf("%s on %s with a cancelled context: looked at it %d more times after finding it cancelled, want at most %d",
			s.Name(), Describe(p), ctx.After(), MaxLooksAfter)}
	}
	return nil
}

// checkCancelDuring checks with ctxcount.Stops that Plan stops on a
// CancelN problem when its context is cancelled on entry, at its second
// look (the first during planning), halfway and at its last look (up to
// LookCap), each time returning context.Canceled within MaxLooksAfter
// further looks. The check counts what Plan did after the cancellation,
// not how long it took, so a loaded machine neither fails a planner that
// stops nor passes one that does not. An uncancelled Plan must return a
// valid plan. A strategy whose runtime plans fewer buffers may refuse the
// problem before looking at its context (ErrTooManyBuffers).
func checkCancelDuring(s strategies.Strategy, _ strategies.Kind) []error {
	p := bigProblem()
	if _, err := safePlan(ctxcount.New(1), s, p); errors.Is(err, strategies.ErrTooManyBuffers) {
		return nil // the runtime's own limit, answered at once
	}
	err := ctxcount.Stops(func(ctx *ctxcount.Context) error {
		plan, err := safePlan(ctx, s, p)
		if err == nil && !ctx.Cancelled() {
			err = strategies.Validate(p, plan)
		}
		return err
	}, LookCap, MaxLooksAfter)
	if err != nil {
		return []error{fmt.Errorf("%s on %s: %w", s.Name(), Describe(p), err)}
	}
	return nil
}

func checkCorpus(s strategies.Strategy, kind strategies.Kind) []error {
	var errs []error
	for _, c := range Corpus() {
		if err := Check(s, kind, c.Problem); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func checkRandom(s strategies.Strategy, kind strategies.Kind) []error {
	var errs []error
	for seed := range uint64(RandomProblems) {
		if err := Check(s, kind, RandomProblem(seed, 100)); err != nil {
			errs = append(errs, err)
			if len(errs) == 5 {
				break // enough to go on
			}
		}
	}
	return errs
}

var checks = []struct {
	name string
	run  func(strategies.Strategy, strategies.Kind) []error
}{
	{"corpus", checkCorpus},
	{"random", checkRandom},
	{"cancelled", checkCancelled},
	{"cancel-during", checkCancelDuring},
	{"forms", checkFormsCorpus},
	{"sizetypes", checkShapeCorpus},
}

// Test runs the whole suite on s, registered as kind, and returns every
// failure joined, or nil if s conforms.
func Test(s strategies.Strategy, kind strategies.Kind) error {
	var errs []error
	for _, c := range checks {
		for _, err := range c.run(s, kind) {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// Run runs the suite on s, registered as kind, with one subtest per check.
func Run(t *testing.T, s strategies.Strategy, kind strategies.Kind) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			for _, err := range c.run(s, kind) {
				t.Error(err)
			}
		})
	}
}
