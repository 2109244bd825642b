package strategies

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
)

// recs builds a problem from {size, first, last} triples.
func recs(align int64, rs ...[3]int64) *workloads.Problem {
	p := &workloads.Problem{Alignment: align}
	for i, r := range rs {
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: r[0], First: int(r[1]), Last: int(r[2])})
	}
	return p
}

// offsetPlan returns an offset plan with a correct footprint.
func offsetPlan(p *workloads.Problem, offs ...int64) *Plan {
	return &Plan{Offsets: offs, Footprint: Footprint(p.Buffers, offs)}
}

// objectPlan lays objects out as ObjectsToOffsets does.
func objectPlan(p *workloads.Problem, ids []int, sizes []int64) *Plan {
	plan := &Plan{ObjectIDs: ids, ObjectSizes: sizes}
	ObjectsToOffsets(plan, p.Buffers, p.Alignment)
	return plan
}

var chain = recs(0, [3]int64{16, 0, 1}, [3]int64{8, 1, 2}, [3]int64{64, 2, 3}, [3]int64{32, 3, 4}, [3]int64{8, 4, 5})

func TestValidateAccepts(t *testing.T) {
	zero := recs(0, [3]int64{0, 0, 5}, [3]int64{16, 0, 5}, [3]int64{0, 2, 3}, [3]int64{0, 0, 0})
	aligned := recs(128, [3]int64{16, 0, 1}, [3]int64{8, 1, 2}, [3]int64{64, 2, 3})
	huge := recs(0, [3]int64{1 << 40, 0, 1}, [3]int64{1 << 40, 1, 2}, [3]int64{3e9, 3, 3})
	tests := []struct {
		name string
		p    *workloads.Problem
		plan *Plan
	}{
		{"empty", recs(0), &Plan{Offsets: []int64{}}},
		{"empty nil offsets", recs(0), &Plan{}},
		{"empty objects", recs(0), &Plan{ObjectIDs: []int{}, ObjectSizes: []int64{}}},
		{"one buffer", recs(0, [3]int64{16, 0, 1}), offsetPlan(recs(0, [3]int64{16, 0, 1}), 0)},
		{"one buffer high offset", recs(0, [3]int64{16, 0, 1}), offsetPlan(recs(0, [3]int64{16, 0, 1}), 1000)},
		{"chain offsets (TFLite)", chain, offsetPlan(chain, 0, 64, 0, 64, 0)},
		{"chain objects (TFLite)", chain, objectPlan(chain, []int{0, 1, 0, 1, 0}, []int64{64, 32})},
		{"chain naive", chain, objectPlan(chain, []int{0, 1, 2, 3, 4}, []int64{16, 8, 64, 32, 8})},
		{"touching ranges", chain, offsetPlan(chain, 0, 16, 24, 88, 0)},
		{"zero-size buffers share addresses", zero, offsetPlan(zero, 0, 0, 8, 16)},
		{"zero-size inside a live range", zero, offsetPlan(zero, 4, 0, 15, 100)},
		{"zero-size objects", zero, objectPlan(zero, []int{0, 0, 0, 0}, []int64{16})},
		{"aligned offsets", aligned, offsetPlan(aligned, 0, 128, 0)},
		{"aligned objects", aligned, objectPlan(aligned, []int{0, 1, 2}, []int64{16, 8, 64})},
		{"huge sizes", huge, offsetPlan(huge, 0, 1<<40, 0)},
		{"unsorted input", recs(0, [3]int64{8, 5, 6}, [3]int64{8, 0, 1}, [3]int64{8, 1, 5}), offsetPlan(recs(0, [3]int64{8, 5, 6}, [3]int64{8, 0, 1}, [3]int64{8, 1, 5}), 0, 0, 8)},
		{"oversized object", chain, objectPlan(chain, []int{0, 1, 0, 1, 0}, []int64{64, 40})},
		{"negative tasks", recs(0, [3]int64{8, -5, -1}, [3]int64{8, -1, 0}), offsetPlan(recs(0, [3]int64{8, -5, -1}, [3]int64{8, -1, 0}), 0, 8)},
		{"max offset", recs(0, [3]int64{1, 0, 0}), offsetPlan(recs(0, [3]int64{1, 0, 0}), math.MaxInt64-1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Validate(tt.p, tt.plan); err != nil {
				t.Errorf("Validate = %v, want nil", err)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	complexRecs := recs(0, [3]int64{32, 0, 1}, [3]int64{32, 1, 4}, [3]int64{8, 2, 5}, [3]int64{16, 3, 5},
		[3]int64{8, 4, 5}, [3]int64{64, 5, 7}, [3]int64{8, 6, 8}, [3]int64{8, 7, 8}, [3]int64{16, 8, 9})
	aligned := recs(128, [3]int64{16, 0, 1}, [3]int64{8, 1, 2})
	withFP := func(plan *Plan, fp int64) *Plan { plan.Footprint = fp; return plan }
	tests := []struct {
		name string
		p    *workloads.Problem
		plan *Plan
		want string // the exact message after the sentinel's prefix
		is   error
	}{
		{"overlap", complexRecs, offsetPlan(complexRecs, 0, 32, 64, 72, 88, 96, 0, 8, 8),
			"buffers 7 and 8 overlap: [8,16) and [8,24) both live at task 8", ErrInvalidPlan},
		{"partial overlap", recs(0, [3]int64{64, 0, 5}, [3]int64{64, 3, 9}), offsetPlan(recs(0, [3]int64{64, 0, 5}, [3]int64{64, 3, 9}), 64, 96),
			"buffers 0 and 1 overlap: [64,128) and [96,160) both live at task 3", ErrInvalidPlan},
		{"contained overlap", recs(0, [3]int64{8, 4, 4}, [3]int64{64, 0, 9}), offsetPlan(recs(0, [3]int64{8, 4, 4}, [3]int64{64, 0, 9}), 16, 0),
			"buffers 0 and 1 overlap: [16,24) and [0,64) both live at task 4", ErrInvalidPlan},
		{"adjacent lifetimes (last == first)", chain, offsetPlan(chain, 0, 0, 64, 0, 64),
			"buffers 0 and 1 overlap: [0,16) and [0,8) both live at task 1", ErrInvalidPlan},
		{"adjacent lifetimes, objects", chain, objectPlan(chain, []int{0, 0, 0, 0, 0}, []int64{64}),
			"buffers 0 and 1 overlap: [0,16) and [0,8) both live at task 1", ErrInvalidPlan},
		{"misaligned", aligned, offsetPlan(aligned, 0, 16),
			"buffer 1 has offset 16, not a multiple of the alignment 128", ErrInvalidPlan},
		{"negative offset", chain, offsetPlan(chain, 0, 64, 0, -64, 0),
			"buffer 3 has negative offset -64", ErrInvalidPlan},
		{"too few offsets", chain, &Plan{Offsets: []int64{0, 64, 0, 64}, Footprint: 96},
			"4 offsets for 5 buffers", ErrInvalidPlan},
		{"too many offsets", chain, &Plan{Offsets: []int64{0, 64, 0, 64, 0, 0}, Footprint: 96},
			"6 offsets for 5 buffers", ErrInvalidPlan},
		{"too few object ids", chain, &Plan{Offsets: []int64{0, 64, 0, 64, 0}, Footprint: 96, ObjectIDs: []int{0, 1}, ObjectSizes: []int64{64, 32}},
			"2 object ids for 5 buffers", ErrInvalidPlan},
		{"object id out of range", chain, &Plan{Offsets: []int64{0, 64, 0, 64, 0}, Footprint: 96, ObjectIDs: []int{0, 1, 0, 2, 0}, ObjectSizes: []int64{64, 32}},
			"buffer 3 has object id 2, want 0..1", ErrInvalidPlan},
		{"negative object id", chain, &Plan{Offsets: []int64{0, 64, 0, 64, 0}, Footprint: 96, ObjectIDs: []int{0, -1, 0, 1, 0}, ObjectSizes: []int64{64, 32}},
			"buffer 1 has object id -1, want 0..1", ErrInvalidPlan},
		{"object too small", chain, objectPlan(chain, []int{0, 1, 0, 1, 0}, []int64{64, 16}),
			"buffer 3 of size 32 is in object 1 of size 16", ErrInvalidPlan},
		{"negative object size", chain, &Plan{Offsets: []int64{0, 64, 0, 64, 0}, Footprint: 96, ObjectIDs: []int{0, 1, 0, 1, 0}, ObjectSizes: []int64{64, -32}},
			"object 1 has negative size -32", ErrInvalidPlan},
		{"offsets inconsistent with objects", chain, &Plan{Offsets: []int64{0, 64, 0, 64, 16}, Footprint: 96, ObjectIDs: []int{0, 1, 0, 1, 0}, ObjectSizes: []int64{64, 32}},
			"buffer 4 has offset 16, but its object 0 starts at 0", ErrInvalidPlan},
		{"objects not aligned", aligned, &Plan{Offsets: []int64{0, 16}, Footprint: 24, ObjectIDs: []int{0, 1}, ObjectSizes: []int64{16, 8}},
			"buffer 1 has offset 16, not a multiple of the alignment 128", ErrInvalidPlan},
		{"object layout ignores alignment", recs(8, [3]int64{4, 0, 1}, [3]int64{8, 1, 2}), &Plan{Offsets: []int64{0, 8}, Footprint: 16, ObjectIDs: []int{1, 0}, ObjectSizes: []int64{8, 4}},
			"buffer 0 has offset 0, but its object 1 starts at 8", ErrInvalidPlan},
		{"footprint too small", chain, withFP(offsetPlan(chain, 0, 64, 0, 64, 0), 64),
			"footprint 64, want max(offset+size) = 96", ErrInvalidPlan},
		{"footprint too large", chain, withFP(offsetPlan(chain, 0, 64, 0, 64, 0), 128),
			"footprint 128, want max(offset+size) = 96", ErrInvalidPlan},
		{"arena below the footprint", chain, &Plan{Offsets: []int64{0, 64, 0, 64, 0}, Footprint: 96, Arena: 90},
			"arena 90 is below the footprint 96", ErrInvalidPlan},
		{"arena below a sized buffer, zero size above", recs(0, [3]int64{16, 0, 0}, [3]int64{0, 1, 1}), &Plan{Offsets: []int64{0, 100}, Footprint: 100, Arena: 8},
			"arena 8 is below the 16 bytes the buffers of positive size reach", ErrInvalidPlan},
		{"negative arena", chain, &Plan{Offsets: []int64{0, 64, 0, 64, 0}, Footprint: 96, Arena: -1},
			"arena -1 is below the footprint 96", ErrInvalidPlan},
		{"footprint of nothing", recs(0), &Plan{Footprint: 1},
			"footprint 1, want max(offset+size) = 0", ErrInvalidPlan},
		{"object footprint is not the sum of sizes", chain, withFP(objectPlan(chain, []int{0, 1, 0, 1, 0}, []int64{64, 40}), 104),
			"footprint 104, want max(offset+size) = 96", ErrInvalidPlan},
		{"offset overflow", recs(0, [3]int64{16, 0, 0}), &Plan{Offsets: []int64{math.MaxInt64 - 8}, Footprint: math.MinInt64 + 7},
			"buffer 0: offset 9223372036854775799 + size 16 overflows int64", ErrInvalidPlan},
		{"object layout overflow", recs(0, [3]int64{16, 0, 0}, [3]int64{16, 1, 1}), &Plan{Offsets: []int64{0, 0}, Footprint: 16, ObjectIDs: []int{0, 0}, ObjectSizes: []int64{math.MaxInt64 - 8, 16}},
			"objects 0..1 laid back to back overflow int64", ErrInvalidPlan},
		{"object alignment overflow", recs(1<<62, [3]int64{16, 0, 0}, [3]int64{16, 1, 1}), &Plan{Offsets: []int64{0, 0}, Footprint: 16, ObjectIDs: []int{0, 0}, ObjectSizes: []int64{1<<62 + 1, 16}},
			"objects 0..1 laid back to back overflow int64", ErrInvalidPlan},
		{"nil plan", chain, nil, "nil plan", ErrInvalidPlan},
		{"first after last", recs(0, [3]int64{16, 0, 1}, [3]int64{8, 3, 2}), offsetPlan(recs(0, [3]int64{16, 0, 1}, [3]int64{8, 3, 2}), 0, 16),
			"buffer 1 has first task 3 > last task 2", ErrInvalidProblem},
		{"negative size", recs(0, [3]int64{-16, 0, 1}), &Plan{Offsets: []int64{0}},
			"buffer 0 has negative size -16", ErrInvalidProblem},
		{"negative alignment", recs(-8, [3]int64{16, 0, 1}), &Plan{Offsets: []int64{0}, Footprint: 16},
			"alignment -8 is negative", ErrInvalidProblem},
		{"nil problem", nil, &Plan{}, "nil problem", ErrInvalidProblem},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.p, tt.plan)
			if err == nil {
				t.Fatalf("Validate = nil, want %q", tt.want)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("Validate = %v, want it to wrap %v", err, tt.is)
			}
			if want := tt.is.Error() + ": " + tt.want; err.Error() != want {
				t.Errorf("Validate =\n  %v\nwant\n  %v", err, want)
			}
		})
	}
}

// TestValidateArenaZeroSize: a runtime's arena need not reach a buffer of
// size 0 (TFLite Micro leaves those unplanned, so a fixed offset on one
// is outside its arena), only those of positive size; found by
// FuzzStrategies on tflm-greedy (testdata/fuzz/FuzzStrategies/72318a8cc10384b2).
func TestValidateArenaZeroSize(t *testing.T) {
	p := recs(0, [3]int64{16, 0, 0}, [3]int64{0, 1, 1})
	for _, arena := range []int64{16, 24} {
		if err := Validate(p, &Plan{Offsets: []int64{0, 100}, Footprint: 100, Arena: arena}); err != nil {
			t.Errorf("arena %d: %v", arena, err)
		}
	}
}

// bruteValidate is the O(n^2) definition of an overlap-free plan.
func bruteOverlap(p *workloads.Problem, offs []int64) (int, int, bool) {
	for i, a := range p.Buffers {
		for j := i + 1; j < len(p.Buffers); j++ {
			b := p.Buffers[j]
			if a.Size == 0 || b.Size == 0 || !workloads.Conflicts(a, b) {
				continue
			}
			if offs[i] < offs[j]+b.Size && offs[j] < offs[i]+a.Size {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// randomPlan returns a random problem and a plan that is valid about half
// the time: first-fit over a shuffled order, then some offsets nudged.
func randomPlan(rng *rand.Rand) (*workloads.Problem, *Plan) {
	n := rng.IntN(40)
	T := 1 + rng.IntN(2*n+1)
	p := &workloads.Problem{}
	for i := range n {
		f := rng.IntN(T)
		l := f + rng.IntN(1+rng.IntN(T-f))
		var size int64
		switch rng.IntN(5) {
		case 0:
			size = 0
		case 1:
			size = 1 << rng.IntN(41)
		default:
			size = 8 * int64(1+rng.IntN(8))
		}
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: size, First: f, Last: l})
	}
	offs := make([]int64, n)
	var placed []int
	fits := func(i int, c int64) bool {
		a := p.Buffers[i]
		for _, j := range placed {
			b := p.Buffers[j]
			if a.Size > 0 && b.Size > 0 && workloads.Conflicts(a, b) && c < offs[j]+b.Size && offs[j] < c+a.Size {
				return false
			}
		}
		return true
	}
	for _, i := range rng.Perm(n) {
		// First fit: the lowest of 0 and the ends of placed buffers.
		cands := []int64{0}
		for _, j := range placed {
			cands = append(cands, offs[j]+p.Buffers[j].Size)
		}
		slices.Sort(cands)
		for _, c := range cands {
			if fits(i, c) {
				offs[i] = c
				break
			}
		}
		placed = append(placed, i)
	}
	if rng.IntN(2) == 0 && n > 0 {
		for range 1 + rng.IntN(3) {
			i := rng.IntN(n)
			offs[i] = max(0, offs[i]+int64(rng.IntN(65))-32)
		}
	}
	return p, offsetPlan(p, offs...)
}

// TestValidateMatchesBruteForce cross-checks the sweep against the O(n^2)
// definition on random plans, valid and corrupted.
func TestValidateMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	valid, invalid := 0, 0
	for iter := range 3000 {
		p, plan := randomPlan(rng)
		err := Validate(p, plan)
		i, j, bad := bruteOverlap(p, plan.Offsets)
		switch {
		case bad && err == nil:
			t.Fatalf("iter %d: Validate accepted overlap of buffers %d and %d\nproblem %v\noffsets %v", iter, i, j, p.Buffers, plan.Offsets)
		case !bad && err != nil:
			t.Fatalf("iter %d: Validate = %v on a valid plan\nproblem %v\noffsets %v", iter, err, p.Buffers, plan.Offsets)
		case bad:
			invalid++
			if !strings.Contains(err.Error(), "overlap") {
				t.Fatalf("iter %d: Validate = %v, want an overlap error", iter, err)
			}
			checkReportedPair(t, p, plan, err)
		default:
			valid++
		}
	}
	if valid < 500 || invalid < 500 {
		t.Errorf("generator too one-sided: %d valid, %d invalid plans", valid, invalid)
	}
}

// checkReportedPair parses an overlap error and checks that the pair it
// names really conflicts and overlaps, at the task it names.
func checkReportedPair(t *testing.T, p *workloads.Problem, plan *Plan, err error) {
	t.Helper()
	var a, b, task int
	var alo, ahi, blo, bhi int64
	msg := strings.TrimPrefix(err.Error(), ErrInvalidPlan.Error()+": ")
	if _, e := fmt.Sscanf(msg, "buffers %d and %d overlap: [%d,%d) and [%d,%d) both live at task %d", &a, &b, &alo, &ahi, &blo, &bhi, &task); e != nil {
		t.Fatalf("cannot parse %q: %v", msg, e)
	}
	A, B := p.Buffers[a], p.Buffers[b]
	if a >= b || alo != plan.Offsets[a] || ahi != alo+A.Size || blo != plan.Offsets[b] || bhi != blo+B.Size {
		t.Fatalf("%q does not describe buffers %v and %v at %d and %d", msg, A, B, plan.Offsets[a], plan.Offsets[b])
	}
	if task < A.First || task > A.Last || task < B.First || task > B.Last || alo >= bhi || blo >= ahi {
		t.Fatalf("%q: the buffers %v and %v do not overlap at that task", msg, A, B)
	}
}

// TestRankSet checks the ordered set against a sorted slice.
func TestRankSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 63, 64, 65, 4095, 4096, 4097, 300000} {
		s := newRankSet(n)
		in := make([]bool, n)
		for range 5000 {
			x := rng.IntN(n)
			switch rng.IntN(3) {
			case 0:
				if !in[x] {
					s.insert(x)
					in[x] = true
				}
			case 1:
				if in[x] {
					s.remove(x)
					in[x] = false
				}
			default:
				want := x
				for want >= 0 && !in[want] {
					want--
				}
				if got := s.pred(x); got != want {
					t.Fatalf("n=%d: pred(%d) = %d, want %d", n, x, got, want)
				}
				want = x
				for want < n && !in[want] {
					want++
				}
				if want == n {
					want = -1
				}
				if got := s.succ(x); got != want {
					t.Fatalf("n=%d: succ(%d) = %d, want %d", n, x, got, want)
				}
			}
		}
		if got := s.pred(-1); got != -1 {
			t.Errorf("pred(-1) = %d", got)
		}
		if got := s.succ(n); got != -1 {
			t.Errorf("succ(%d) = %d", n, got)
		}
	}
}

func TestLowerBounds(t *testing.T) {
	complexRecs := recs(0, [3]int64{32, 0, 1}, [3]int64{32, 1, 4}, [3]int64{8, 2, 5}, [3]int64{16, 3, 5},
		[3]int64{8, 4, 5}, [3]int64{64, 5, 7}, [3]int64{8, 6, 8}, [3]int64{8, 7, 8}, [3]int64{16, 8, 9})
	tests := []struct {
		name string
		p    *workloads.Problem
		want Bounds
	}{
		{"empty", recs(0), Bounds{Load: 0, Objects: 0}},
		{"one", recs(0, [3]int64{16, 0, 1}), Bounds{Load: 16, Objects: 16}},
		{"chain", chain, Bounds{Load: 96, Objects: 96}},
		// Positional maximums 64, 32, 8, 8 (UPSTREAM_TESTS.md internal_test).
		{"complex", complexRecs, Bounds{Load: 96, Objects: 112}},
		{"zero sizes", recs(0, [3]int64{0, 0, 3}, [3]int64{0, 1, 2}), Bounds{Load: 0, Objects: 0}},
		{"disjoint", recs(0, [3]int64{10, 0, 0}, [3]int64{20, 1, 1}, [3]int64{5, 2, 2}), Bounds{Load: 20, Objects: 20}},
		// Load peaks at task 1 (10+20); objects need 20 + 10 + 10.
		{"objects above load", recs(0, [3]int64{10, 0, 1}, [3]int64{20, 1, 1}, [3]int64{10, 0, 2}, [3]int64{10, 2, 2}), Bounds{Load: 40, Objects: 40}},
		{"objects strictly above load", recs(0, [3]int64{30, 0, 0}, [3]int64{1, 0, 0}, [3]int64{15, 1, 1}, [3]int64{15, 1, 1}), Bounds{Load: 31, Objects: 45}},
	}
	for _, tt := range tests {
		if got := LowerBounds(tt.p); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: LowerBounds = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
