package strategies

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"membench/internal/ctxcount"
	"membench/workloads"
	"membench/workloads/synthetic"
)

// dagProblem is a random DAG-shaped problem like the fixtures' rand_*
// inputs: k > 0 draws sizes from k distinct values (many ties), outs is
// the most outputs per op.
func dagProblem(n, k, outs int, seed int64) *workloads.Problem {
	cfg := synthetic.DefaultDAG(n, seed)
	cfg.K, cfg.Outputs = k, outs
	return synthetic.RandomDAG(cfg)
}

// tinyProblem returns a small random problem with few distinct sizes,
// lifetimes and first tasks, so ties of every kind are common. Unsorted
// input is possible when shuffle is set.
func tinyProblem(r *rand.Rand, shuffle bool) *workloads.Problem {
	n := r.IntN(40)
	sizes := []int64{0, 4, 8, 8, 16, 24, 32, 64, 1 << 40}[:2+r.IntN(7)]
	p := &workloads.Problem{Buffers: make([]workloads.Buffer, n)}
	for i := range n {
		first := r.IntN(n/2 + 1)
		p.Buffers[i] = workloads.Buffer{ID: i, Size: sizes[r.IntN(len(sizes))], First: first, Last: first + r.IntN(5)}
	}
	if !shuffle {
		slices.SortStableFunc(p.Buffers, func(a, b workloads.Buffer) int { return a.First - b.First })
	}
	return p
}

// wideProblem returns up to 100 buffers produced at a handful of tasks,
// so that dozens are released at once.
func wideProblem(r *rand.Rand) *workloads.Problem {
	n := r.IntN(100)
	p := &workloads.Problem{Buffers: make([]workloads.Buffer, n)}
	for i := range n {
		first := 5 * (i * 4 / max(n, 1))
		p.Buffers[i] = workloads.Buffer{ID: i, Size: 8 << r.IntN(3), First: first, Last: first + r.IntN(4)}
	}
	return p
}

// checkPlan checks an object plan against its problem directly (objects
// cover their tensors, tensors sharing an object never conflict, offsets
// are ObjectsToOffsets'), independent of Validate.
func checkPlan(t *testing.T, p *workloads.Problem, plan *Plan) {
	t.Helper()
	if len(plan.ObjectIDs) != len(p.Buffers) {
		t.Fatalf("%d object ids for %d buffers", len(plan.ObjectIDs), len(p.Buffers))
	}
	byObj := make([][]int, len(plan.ObjectSizes))
	for i, id := range plan.ObjectIDs {
		if id < 0 || id >= len(plan.ObjectSizes) {
			t.Fatalf("buffer %d: object id %d out of range", i, id)
		}
		if plan.ObjectSizes[id] < p.Buffers[i].Size {
			t.Fatalf("buffer %d (size %d) in object %d of size %d", i, p.Buffers[i].Size, id, plan.ObjectSizes[id])
		}
		for _, j := range byObj[id] {
			if workloads.Conflicts(p.Buffers[i], p.Buffers[j]) {
				t.Fatalf("buffers %d and %d conflict but share object %d", j, i, id)
			}
		}
		byObj[id] = append(byObj[id], i)
	}
	for k, members := range byObj {
		if len(members) == 0 {
			t.Fatalf("object %d holds no tensor", k)
		}
	}
	want := &Plan{ObjectIDs: plan.ObjectIDs, ObjectSizes: plan.ObjectSizes}
	ObjectsToOffsets(want, p.Buffers, p.Alignment)
	if !slices.Equal(plan.Offsets, want.Offsets) || plan.Footprint != want.Footprint {
		t.Fatalf("offsets/footprint %v/%d, want ObjectsToOffsets' %v/%d", plan.Offsets, plan.Footprint, want.Offsets, want.Footprint)
	}
}

// refSorted applies a reference assigner to the stable sort of p by First
// and maps the ids back, as planSortedObjects does.
func refSorted(p *workloads.Problem, ref func([]workloads.Buffer) ([]int, []int64)) ([]int, []int64) {
	idx := make([]int, len(p.Buffers))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return p.Buffers[a].First - p.Buffers[b].First })
	sorted := make([]workloads.Buffer, len(idx))
	for k, i := range idx {
		sorted[k] = p.Buffers[i]
	}
	ids, sizes := ref(sorted)
	back := make([]int, len(ids))
	for k, i := range idx {
		back[i] = ids[k]
	}
	return back, sizes
}

// refQueue is a plain list standing in for TFLite's priority queue of
// objects in use: pop takes the smallest (last, id) with last < first.
type refQueue [][2]int

func (q *refQueue) pop(first int) (int, bool) {
	best := -1
	for k, e := range *q {
		if e[0] < first && (best < 0 || e[0] < (*q)[best][0] || e[0] == (*q)[best][0] && e[1] < (*q)[best][1]) {
			best = k
		}
	}
	if best < 0 {
		return 0, false
	}
	id := (*q)[best][1]
	*q = slices.Delete(*q, best, best+1)
	return id, true
}

// compareWithRef plans 600 random problems with s (small with many ties,
// sorted and shuffled; wide; DAG-shaped) and checks every answer against
// ref.
func compareWithRef(t *testing.T, s Strategy, ref func([]workloads.Buffer) ([]int, []int64)) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 600 {
		var p *workloads.Problem
		switch {
		case trial < 350:
			p = tinyProblem(r, trial%4 == 3)
		case trial < 400:
			p = wideProblem(r)
		default:
			p = dagProblem(20+r.IntN(120), r.IntN(6), 1+r.IntN(3), int64(trial))
		}
		got, err := s.Plan(context.Background(), p)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		checkPlan(t, p, got)
		ids, sizes := refSorted(p, ref)
		if !slices.Equal(got.ObjectIDs, ids) || !slices.Equal(got.ObjectSizes, sizes) {
			t.Fatalf("trial %d %v:\nids   %v\nsizes %v\nwant  %v\n      %v", trial, p.Buffers, got.ObjectIDs, got.ObjectSizes, ids, sizes)
		}
	}
}

// planCases are hand-made problems every object strategy must plan
// validly.
var planCases = []struct {
	name string
	bufs []workloads.Buffer
}{
	{"empty", nil},
	{"one", []workloads.Buffer{{ID: 0, Size: 16, First: 0, Last: 1}}},
	{"zero sizes", []workloads.Buffer{{ID: 0, Size: 0, First: 0, Last: 2}, {ID: 1, Size: 0, First: 1, Last: 1}, {ID: 2, Size: 8, First: 3, Last: 3}}},
	{"huge sizes", []workloads.Buffer{{ID: 0, Size: 3 << 40, First: 0, Last: 0}, {ID: 1, Size: 1000, First: 1, Last: 1}, {ID: 2, Size: 3 << 40, First: 2, Last: 2}, {ID: 3, Size: 1 << 41, First: 3, Last: 3}}},
	{"adjacent", []workloads.Buffer{{ID: 0, Size: 8, First: 0, Last: 1}, {ID: 1, Size: 8, First: 1, Last: 2}, {ID: 2, Size: 8, First: 2, Last: 3}}},
	{"unsorted", []workloads.Buffer{{ID: 0, Size: 8, First: 0, Last: 1}, {ID: 1, Size: 8, First: 0, Last: 2}, {ID: 2, Size: 8, First: 5, Last: 6}, {ID: 3, Size: 8, First: 1, Last: 3}}},
}

// testPlanCases runs the hand-made cases, with and without alignment.
func testPlanCases(t *testing.T, s Strategy) {
	for _, c := range planCases {
		for _, align := range []int64{0, 128} {
			p := &workloads.Problem{Buffers: c.bufs, Alignment: align}
			plan, err := s.Plan(context.Background(), p)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if plan.ObjectIDs == nil || plan.ObjectSizes == nil {
				t.Fatalf("%s: object strategy returned nil ids or sizes", c.name)
			}
			checkPlan(t, p, plan)
			for i, off := range plan.Offsets {
				if align > 1 && off%align != 0 {
					t.Fatalf("%s: buffer %d at offset %d, not a multiple of %d", c.name, i, off, align)
				}
			}
		}
	}
}

// testBadInput checks that a lifetime ending before it starts and a
// negative size are refused with an error naming the strategy and the
// buffer.
func testBadInput(t *testing.T, s Strategy) {
	for _, c := range []struct {
		buf  workloads.Buffer
		want string
	}{
		{workloads.Buffer{ID: 7, Size: 8, First: 3, Last: 2}, "buffer 1 (id 7) has first task 3 after last task 2"},
		{workloads.Buffer{ID: 7, Size: -1, First: 3, Last: 4}, "buffer 1 (id 7) has negative size -1"},
	} {
		p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 4, First: 0, Last: 1}, c.buf}}
		_, err := s.Plan(context.Background(), p)
		if err == nil || !strings.HasPrefix(err.Error(), s.Name()+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}

// testCancel checks that s stops on a 100,000-buffer problem when its
// context is cancelled before or during planning.
func testCancel(t *testing.T, s Strategy) {
	p := dagProblem(100_000, 0, 1, 5)
	checkStops(t, func(ctx context.Context) error {
		_, err := s.Plan(ctx, p)
		return err
	})
}

// checkStops checks with ctxcount.Stops that plan returns
// context.Canceled within 4 further looks when its context is cancelled
// on entry, during its work, halfway or at its last look (up to 256). It
// counts looks at the context, not milliseconds, so the machine's load
// cannot change the outcome.
func checkStops(t *testing.T, plan func(context.Context) error) {
	t.Helper()
	if err := ctxcount.Stops(func(ctx *ctxcount.Context) error { return plan(ctx) }, 256, 4); err != nil {
		t.Error(err)
	}
}

func TestByFirst(t *testing.T) {
	bufs := []workloads.Buffer{{ID: 0, First: 2}, {ID: 1, First: 0}, {ID: 2, First: 2}, {ID: 3, First: 1}, {ID: 4, First: 0}}
	sorted, perm := byFirst(bufs)
	if want := []int32{1, 4, 3, 0, 2}; !slices.Equal(perm, want) {
		t.Fatalf("perm = %v, want %v", perm, want)
	}
	for k, i := range perm {
		if sorted[k] != bufs[i] {
			t.Fatalf("sorted[%d] = %v, want bufs[%d] = %v", k, sorted[k], i, bufs[i])
		}
	}
	same, perm := byFirst(sorted)
	if perm != nil || &same[0] != &sorted[0] {
		t.Fatalf("sorted input was copied or permuted: perm %v", perm)
	}
}

// TestReleaseLists checks releaseLists against a literal priority
// queue: push (last, i) after record i, pop everything with last < First
// before it. Task ids are dense or sparse (the two ways of finding when).
func TestReleaseLists(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := r.IntN(60)
		scale := 1
		if trial%2 == 1 {
			scale = 1 << 20 // sparse: forces the binary search
		}
		bufs := make([]workloads.Buffer, n)
		first := r.IntN(3) - 1
		for i := range bufs {
			first += r.IntN(2) * scale
			bufs[i] = workloads.Buffer{ID: i, First: first, Last: first + r.IntN(6)*scale}
		}
		start, list := releaseLists(bufs)
		var q refQueue
		for k, b := range bufs {
			var want []int32
			for {
				i, ok := q.pop(b.First)
				if !ok {
					break
				}
				want = append(want, int32(i))
			}
			slices.Sort(want)
			if got := list[start[k]:start[k+1]]; !slices.Equal(got, want) {
				t.Fatalf("trial %d %v: released before record %d = %v, want %v", trial, bufs, k, got, want)
			}
			q = append(q, [2]int{b.Last, k})
		}
	}
}

func TestPlanSortedObjectsMapsBack(t *testing.T) {
	// The assigner sees buffers by First and numbers them in that order;
	// the plan must carry each number back to the buffer it was given to.
	p := &workloads.Problem{Buffers: []workloads.Buffer{
		{ID: 0, Size: 1, First: 4, Last: 4}, {ID: 1, Size: 2, First: 1, Last: 1},
		{ID: 2, Size: 3, First: 4, Last: 5}, {ID: 3, Size: 4, First: 0, Last: 9},
	}}
	plan, err := planSortedObjects(context.Background(), "test", p, func(_ context.Context, bufs []workloads.Buffer) ([]int, []int64, error) {
		ids := make([]int, len(bufs))
		sizes := make([]int64, len(bufs))
		for i, b := range bufs {
			ids[i] = i
			sizes[i] = b.Size
		}
		return ids, sizes, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 1, 3, 0}; !slices.Equal(plan.ObjectIDs, want) {
		t.Errorf("ids = %v, want %v", plan.ObjectIDs, want)
	}
	if want := []int64{4, 2, 1, 3}; !slices.Equal(plan.ObjectSizes, want) {
		t.Errorf("sizes = %v, want %v", plan.ObjectSizes, want)
	}
	checkPlan(t, p, plan)
}

// objectBenchSizes are the problem sizes of the speed targets.
var objectBenchSizes = []int{1_000, 5_000, 20_000, 1_000_000}

// benchObjects times s on random DAGs of the given sizes (all of
// objectBenchSizes if none are given).
func benchObjects(b *testing.B, s Strategy, sizes ...int) {
	if len(sizes) == 0 {
		sizes = objectBenchSizes
	}
	for _, n := range sizes {
		p := dagProblem(n, 0, 1, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Plan(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
