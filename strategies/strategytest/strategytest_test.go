package strategytest_test

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"membench/strategies"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// fake is a configurable test strategy. Its correct behaviour is to give
// every buffer its own aligned range (or its own object) in input order.
type fake struct {
	objects bool
	// Defects:
	overlap      bool          // every offset 0
	shuffle      bool          // lays buffers out in a random order
	ignoreCtx    bool          // never looks at ctx
	entryOnly    bool          // looks at ctx on entry only
	dropCancel   bool          // looks at ctx during planning but ignores what it says
	lateStop     bool          // notes a cancellation but returns it only at the end
	dropLate     bool          // ignores what ctx says in the second half of its loop
	stall        time.Duration // works this long on n >= 1000 before looking at ctx again
	oversize     int64         // objects this much larger than their tensors
	mutate       bool          // sorts the caller's buffers
	panicOnEmpty bool
	ignoreAlign  bool
	failUnsorted bool
}

func (f *fake) Name() string { return "fake" }

func (f *fake) Plan(ctx context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	if !f.ignoreCtx {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	bufs := p.Buffers
	if f.panicOnEmpty && len(bufs) == 0 {
		panic("no buffers")
	}
	if f.failUnsorted && !slices.IsSortedFunc(bufs, func(a, b workloads.Buffer) int { return a.First - b.First }) {
		return nil, errors.New("input not sorted")
	}
	if f.mutate {
		slices.SortStableFunc(bufs, func(a, b workloads.Buffer) int { return a.First - b.First })
	}
	if f.stall > 0 && len(bufs) >= 1000 {
		time.Sleep(f.stall)
	}
	order := make([]int, len(bufs))
	for i := range order {
		order[i] = i
	}
	if f.shuffle {
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	align := p.Alignment
	if f.ignoreAlign {
		align = 1
	}
	// look checks ctx every 1024 buffers and reports whether to stop.
	var cancelled error
	look := func(k int) error {
		if f.ignoreCtx || f.entryOnly || k%1024 != 0 {
			return nil
		}
		err := ctx.Err()
		switch {
		case f.dropCancel, f.dropLate && k >= len(bufs)/2:
			return nil
		case f.lateStop:
			cancelled = cmp.Or(cancelled, err)
			return nil
		}
		return err
	}
	plan := &strategies.Plan{}
	if f.objects {
		plan.ObjectIDs = make([]int, len(bufs))
		plan.ObjectSizes = make([]int64, len(bufs))
		for k, i := range order {
			if err := look(k); err != nil {
				return nil, err
			}
			plan.ObjectIDs[i] = k
			plan.ObjectSizes[k] = bufs[i].Size + f.oversize
		}
		strategies.ObjectsToOffsets(plan, bufs, align)
		return plan, cancelled
	}
	plan.Offsets = make([]int64, len(bufs))
	var next int64
	for k, i := range order {
		if err := look(k); err != nil {
			return nil, err
		}
		next = strategies.AlignUp(next, align)
		if !f.overlap {
			plan.Offsets[i] = next
		}
		next += bufs[i].Size
	}
	plan.Footprint = strategies.Footprint(bufs, plan.Offsets)
	if cancelled != nil {
		return nil, cancelled
	}
	return plan, nil
}

// TestSuiteAcceptsCorrect shows the suite passes correct strategies of
// both kinds.
func TestSuiteAcceptsCorrect(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    strategies.Strategy
		kind strategies.Kind
	}{
		{"offsets", &fake{}, strategies.Offsets},
		{"objects", &fake{objects: true}, strategies.Objects},
		{"objects as external", &fake{objects: true}, strategies.External},
		{"slow but cancellable", &fake{stall: 5 * time.Millisecond}, strategies.Offsets},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := strategytest.Test(tt.s, tt.kind); err != nil {
				t.Errorf("Test = %v, want nil", err)
			}
		})
	}
}

// TestSuiteCatchesBroken shows the suite catches each kind of defect and
// names the check and the problem that exposed it.
func TestSuiteCatchesBroken(t *testing.T) {
	tests := []struct {
		name string
		s    *fake
		kind strategies.Kind
		want []string // substrings of the joined failures
	}{
		{"overlapping", &fake{overlap: true}, strategies.Offsets,
			[]string{`corpus: fake on problem "adjacent-lifetimes" (5 buffers: {16,0,1} {8,1,2} {64,2,3} {32,3,4} {8,4,5}): invalid plan: buffers 0 and 1 overlap: [0,16) and [0,8) both live at task 1`}},
		{"nondeterministic", &fake{shuffle: true}, strategies.Offsets,
			[]string{`corpus: fake on problem "equal-sizes"`, "not deterministic: planning twice gave {footprint"}},
		{"ignores ctx", &fake{ignoreCtx: true}, strategies.Offsets,
			[]string{`cancelled: fake on problem "synthetic/random-dag?n=1000&seed=2&min=1024&max=67108864&k=0&outputs=1" (1000 buffers) with a cancelled context: got error <nil>, want context.Canceled`,
				`cancel-during: fake on problem "synthetic/random-dag?n=100000&seed=1&min=1024&max=67108864&k=0&outputs=1" (100000 buffers): looked at its context 0 times in all, so a cancellation during the work is never seen`}},
		{"looks on entry only", &fake{entryOnly: true}, strategies.Offsets,
			[]string{"cancel-during: fake on problem \"synthetic/random-dag?n=100000&seed=1&min=1024&max=67108864&k=0&outputs=1\" (100000 buffers): looked at its context once in all"}},
		{"drops the cancellation", &fake{dropCancel: true}, strategies.Offsets,
			[]string{"cancel-during: fake on problem \"synthetic/random-dag?n=100000&seed=1&min=1024&max=67108864&k=0&outputs=1\" (100000 buffers): cancelled at look 2 of 99: got error <nil>, looking at its context 97 times more, want context.Canceled"}},
		{"objects, drops the cancellation", &fake{objects: true, dropCancel: true}, strategies.Objects,
			[]string{"cancelled at look 2 of 99: got error <nil>, looking at its context 97 times more, want context.Canceled"}},
		{"drops the cancellation late", &fake{dropLate: true}, strategies.Offsets,
			[]string{`cancel-during: fake on problem "synthetic/random-dag?n=100000&seed=1&min=1024&max=67108864&k=0&outputs=1" (100000 buffers): cancelled at look 99 of 99: got error <nil>, looking at its context 0 times more, want context.Canceled`}},
		{"stops only at the end", &fake{lateStop: true}, strategies.Offsets,
			[]string{"cancel-during: fake on problem \"synthetic/random-dag?n=100000&seed=1&min=1024&max=67108864&k=0&outputs=1\" (100000 buffers): cancelled at look 2 of 99: looked at its context 97 times more before returning, want at most 4 times"}},
		{"objects from an offset strategy", &fake{objects: true}, strategies.Offsets,
			[]string{"offset strategy returned object ids or sizes"}},
		{"offsets from an object strategy", &fake{}, strategies.Objects,
			[]string{`fake on problem "one-buffer" (1 buffers: {16,0,1}): object strategy returned no object ids`}},
		{"footprint not the sum of objects", &fake{objects: true, oversize: 8}, strategies.Objects,
			[]string{"footprint 16, but object sizes sum to 24"}},
		{"mutates input", &fake{mutate: true}, strategies.Offsets,
			[]string{`problem "unsorted"`, "Plan modified the problem's buffers"}},
		{"panics", &fake{panicOnEmpty: true}, strategies.Offsets,
			[]string{`corpus: fake on problem "empty" (0 buffers): Plan: panic: no buffers`}},
		{"ignores alignment", &fake{ignoreAlign: true}, strategies.Offsets,
			[]string{`problem "aligned-128" (5 buffers, alignment 128: {16,0,1}`, "not a multiple of the alignment 128"}},
		{"fails on unsorted input", &fake{failUnsorted: true}, strategies.Offsets,
			[]string{`problem "unsorted" (4 buffers: {8,0,1} {8,0,2} {8,5,6} {8,1,3}): Plan: input not sorted`, "random: fake on problem \"random?seed="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := strategytest.Test(tt.s, tt.kind)
			if err == nil {
				t.Fatal("Test = nil, want failures")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("failures do not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestRandomProblem(t *testing.T) {
	var unsorted, aligned, zero, huge int
	for seed := range uint64(200) {
		p := strategytest.RandomProblem(seed, 100)
		if q := strategytest.RandomProblem(seed, 100); !slices.Equal(p.Buffers, q.Buffers) || p.Alignment != q.Alignment {
			t.Fatalf("seed %d: not reproducible", seed)
		}
		if len(p.Buffers) > 100 {
			t.Fatalf("seed %d: %d buffers, want <= 100", seed, len(p.Buffers))
		}
		for i, b := range p.Buffers {
			if b.Size < 0 || b.First > b.Last || b.First < 0 || b.ID != i && slices.IsSortedFunc(p.Buffers, byFirst) {
				t.Fatalf("seed %d: bad buffer %d: %+v", seed, i, b)
			}
		}
		if !slices.IsSortedFunc(p.Buffers, byFirst) {
			unsorted++
		}
		if p.Alignment > 1 {
			aligned++
		}
		for _, b := range p.Buffers {
			if b.Size == 0 {
				zero++
			}
			if b.Size > 1<<32 {
				huge++
			}
		}
	}
	if unsorted < 20 || aligned < 20 || zero < 20 || huge < 20 {
		t.Errorf("too little variety: %d unsorted, %d aligned, %d zero-size, %d huge", unsorted, aligned, zero, huge)
	}
}

func byFirst(a, b workloads.Buffer) int { return a.First - b.First }

// TestCorpusWellFormed checks the corpus problems are valid inputs with
// unique names.
func TestCorpusWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range strategytest.Corpus() {
		if seen[c.Name] {
			t.Errorf("duplicate corpus name %q", c.Name)
		}
		seen[c.Name] = true
		for i, b := range c.Problem.Buffers {
			if b.Size < 0 || b.First > b.Last || b.First < 0 {
				t.Errorf("%s: bad buffer %d: %+v", c.Name, i, b)
			}
		}
	}
}

// formsFake honours every form: it keeps fixed offsets and stacks the
// other buffers of each memory space above them, each at its own
// alignment, so no two ever share bytes.
type formsFake struct{ fake }

func (f *formsFake) Plan(ctx context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := max(len(p.Memories), 1)
	tops := make([]int64, k)
	for i, b := range p.Buffers {
		if off, ok := p.FixedOf(i); ok {
			tops[p.MemoryOf(i)] = max(tops[p.MemoryOf(i)], off+b.Size)
		}
	}
	plan := &strategies.Plan{Offsets: make([]int64, len(p.Buffers))}
	for i, b := range p.Buffers {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if off, ok := p.FixedOf(i); ok {
			plan.Offsets[i] = off
			continue
		}
		m := p.MemoryOf(i)
		plan.Offsets[i] = strategies.AlignUp(tops[m], p.AlignOf(i))
		tops[m] = plan.Offsets[i] + b.Size
	}
	fps := make([]int64, k)
	for i, b := range p.Buffers {
		fps[p.MemoryOf(i)] = max(fps[p.MemoryOf(i)], plan.Offsets[i]+b.Size)
	}
	for _, f := range fps {
		plan.Footprint += f
	}
	if p.Forms()&workloads.FormMemories != 0 {
		plan.Footprints = fps
		for m, mem := range p.Memories {
			if mem.Capacity > 0 && fps[m] > mem.Capacity {
				return nil, errors.New("over capacity")
			}
		}
	}
	return plan, nil
}

// TestSuiteForms: a strategy declaring every form and honouring them
// passes, as does one declaring none (the wrapper refuses the forms, or
// plans spaces apart); one declaring forms it ignores is caught.
func TestSuiteForms(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    strategies.Strategy
		want []string // "" for none
	}{
		{"honours every form", strategies.Declare(&formsFake{}, workloads.AllForms), nil},
		{"declares none", strategies.Declare(&fake{}, 0), nil},
		{"objects, declares none", strategies.Declare(&fake{objects: true}, 0), nil},
		{"declares forms it ignores", strategies.Declare(&fake{}, workloads.AllForms), []string{
			`forms: fake on problem "pinned" (4 buffers, alignment 8, forms: fixed offsets: {16,0,3} {8,1,2} {24,2,5} {8,4,5}): invalid plan: buffer 0 has offset 0, not its fixed offset 32`,
			`forms: fake on problem "own-alignments" (4 buffers, alignment 4, forms: per-buffer alignment: {10,0,3} {7,1,2} {3,2,5} {20,4,5}): invalid plan: buffer 1 has offset 12, not a multiple of the alignment 24`,
			`forms: fake on problem "spaces" (4 buffers, forms: memory spaces: {16,0,1} {8,0,1} {8,1,3} {32,2,3}): invalid plan: 0 footprints for 2 memory spaces`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := strategytest.Test(tt.s, strategies.Offsets)
			if tt.name == "objects, declares none" {
				err = strategytest.Test(tt.s, strategies.Objects)
			}
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Test = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Test = nil, want failures")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("failures do not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestWithForms: the random forms are reproducible, pass CheckForms, and
// their fixed offsets leave the problem feasible.
func TestWithForms(t *testing.T) {
	for seed := range uint64(100) {
		base := strategytest.RandomProblem(seed, 40)
		p := strategytest.WithForms(base, workloads.AllForms, seed)
		q := strategytest.WithForms(base, workloads.AllForms, seed)
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("seed %d: not reproducible", seed)
		}
		if err := workloads.CheckForms(p); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !slices.Equal(base.Buffers, p.Buffers) || base.Aligns != nil {
			t.Fatalf("seed %d: the base problem changed", seed)
		}
		plan, err := (&formsFake{}).Plan(context.Background(), p)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := strategies.Validate(p, plan); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// shapeFake gives every tensor of a texture or BHWC problem its own
// object of its extents (TFLite's NAIVE), and a byte problem's tensors
// their own objects; shrink makes each object one smaller than its
// tensor in the first dimension, an invalid texture assignment.
type shapeFake struct{ shrink bool }

func (f *shapeFake) Name() string { return "shape-fake" }

func (f *shapeFake) Plan(ctx context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	plan := &strategies.Plan{ObjectIDs: make([]int, p.Len()), ObjectSizes: make([]int64, p.Len())}
	for i, b := range p.Buffers {
		plan.ObjectIDs[i], plan.ObjectSizes[i] = i, b.Size
	}
	if p.SizeType != workloads.SizeBytes {
		plan.ObjectShapes = slices.Clone(p.Shapes)
		for k := range plan.ObjectShapes {
			if f.shrink && plan.ObjectShapes[k][0] > 0 {
				plan.ObjectShapes[k][0]--
			}
			plan.ObjectSizes[k], _ = p.ShapeBytes(plan.ObjectShapes[k])
		}
	}
	strategies.ObjectsToOffsets(plan, p.Buffers, 0)
	return plan, nil
}

func init() {
	for name, shrink := range map[string]bool{"suite-shape-naive": false, "suite-shape-shrunk": true} {
		strategies.Register(strategies.Info{
			Name: name, Doc: "strategytest's own test of the size-type checks", Kind: strategies.Objects, Runtime: "membench",
			SizeTypes: []workloads.SizeType{workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC},
			New:       func(*workloads.Args) (strategies.Strategy, error) { return &shapeFake{shrink: shrink}, nil },
		})
	}
}

// TestSuiteSizeTypes checks CheckSizeType: a strategy that plans the size
// types it declares passes, one whose texture objects do not cover their
// tensors fails, a strategy of byte sizes passes by TFLite's refusal, and
// every strategy plans the byte problems with a reallocation graph.
func TestSuiteSizeTypes(t *testing.T) {
	corpus := strategytest.ShapeCorpus()
	types := map[workloads.SizeType]int{}
	for _, c := range corpus {
		types[c.Problem.SizeType]++
		if c.Problem.SizeType == workloads.SizeBytes && c.Problem.Reuse == nil {
			t.Errorf("%s: a byte problem without a reallocation graph", c.Name)
		}
	}
	for _, st := range workloads.SizeTypes {
		if types[st] < 10 {
			t.Errorf("%d problems of %s sizes, want at least 10", types[st], st)
		}
	}
	for _, c := range []struct {
		spec string
		fail bool
	}{{"suite-shape-naive", false}, {"suite-shape-shrunk", true}, {"greedy-by-size", false}, {"naive", false}, {"equality", false}, {"greedy-in-order", false}} {
		s, err := strategies.Lookup(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		var failed []string
		for _, k := range corpus {
			if err := strategytest.CheckSizeType(s, strategies.Objects, k.Problem); err != nil {
				failed = append(failed, err.Error())
			}
		}
		if got := len(failed) > 0; got != c.fail {
			t.Errorf("%s: failed %v, want %v: %v", c.spec, got, c.fail, failed[:min(len(failed), 3)])
		}
		if c.fail && !strings.Contains(failed[0], "invalid plan: ") {
			t.Errorf("%s: the failure is not Validate's: %v", c.spec, failed[0])
		}
	}
	// A strategy built outside the registry is not checked; one declared
	// for bytes only is refused with TFLite's reason by its wrapper.
	p := corpus[0].Problem
	if err := strategytest.CheckSizeType(&shapeFake{shrink: true}, strategies.Objects, p); err != nil {
		t.Errorf("unwrapped: %v", err)
	}
	if err := strategytest.CheckSizeType(strategies.Declare(&shapeFake{shrink: true}, 0), strategies.Objects, p); err != nil {
		t.Errorf("declared for bytes: %v", err)
	}
}
