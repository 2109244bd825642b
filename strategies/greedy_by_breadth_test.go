package strategies

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
	"membench/workloads/synthetic"
)

// refGreedyByBreadth is a line-by-line port of TFLite's
// GreedyByBreadthAssignment (every object scanned per tensor, with its
// size filter): the reference the ordered version must match exactly.
func refGreedyByBreadth(bufs []workloads.Buffer) ([]int, []int64) {
	profiles := TaskProfiles(bufs)
	tasks := make([]int, len(profiles))
	breadth := make([]int64, len(profiles))
	for t, prof := range profiles {
		tasks[t] = t
		for _, i := range prof {
			breadth[t] += bufs[i].Size
		}
	}
	slices.SortStableFunc(tasks, func(x, y int) int {
		switch {
		case breadth[x] > breadth[y]:
			return -1
		case breadth[x] < breadth[y]:
			return 1
		}
		return 0
	})
	ids := make([]int, len(bufs))
	for i := range ids {
		ids[i] = -1
	}
	var sizes []int64
	var sched [][]workloads.Buffer // by first task, as TFLite's std::set
	for _, t := range tasks {
		for _, i := range profiles[t] {
			if ids[i] >= 0 {
				continue
			}
			rec := bufs[i]
			best := len(sizes)
			for o := range sizes {
				if best != len(sizes) {
					bestSize, cur := sizes[best], sizes[o]
					if bestSize < rec.Size {
						if cur <= bestSize {
							continue
						}
					} else if cur < rec.Size || cur >= bestSize {
						continue
					}
				}
				s := sched[o]
				k := 0
				for k < len(s) && s[k].First < rec.First {
					k++
				}
				ok := true
				if k < len(s) && s[k].First <= rec.Last {
					ok = false
				}
				if ok && k > 0 && s[k-1].Last >= rec.First {
					ok = false
				}
				if ok {
					best = o
				}
			}
			if best == len(sizes) {
				sched = append(sched, []workloads.Buffer{rec})
				sizes = append(sizes, rec.Size)
			} else {
				k := 0
				for k < len(sched[best]) && sched[best][k].First < rec.First {
					k++
				}
				sched[best] = slices.Insert(sched[best], k, rec)
				sizes[best] = max(sizes[best], rec.Size)
			}
			ids[i] = best
		}
	}
	return ids, sizes
}

func TestGreedyByBreadthMatchesReference(t *testing.T) {
	problems := randomTieProblems(300)
	// TFLite's task profiles count first tasks below 0 as 0; and task ids
	// may be sparse.
	for k, p := range randomTieProblems(40) {
		for i := range p.Buffers {
			if k%2 == 0 && i%3 == 0 {
				p.Buffers[i].First -= 5
			} else if k%2 == 1 {
				p.Buffers[i].First *= 97
				p.Buffers[i].Last *= 97
			}
		}
		problems = append(problems, p)
	}
	// Large enough for objects of thousands of tensors (chunk splits).
	big := synthetic.DefaultDAG(5000, 9)
	problems = append(problems, synthetic.RandomDAG(big))
	big.K = 3
	problems = append(problems, synthetic.RandomDAG(big))
	// Dense: every tensor overlaps every other, or all but one in ten.
	mixed := denseOverlap(1500, 64)
	for i := range mixed.Buffers {
		if i%10 == 0 {
			mixed.Buffers[i].Last = mixed.Buffers[i].First
		}
	}
	problems = append(problems, denseOverlap(1500, 64), mixed)
	// Objects mark their tasks in bitsets while the budget lasts, then
	// keep schedules: all bitsets, none, and a mix.
	defer func(w int) { breadthMaxBitWords = w }(breadthMaxBitWords)
	for _, words := range []int{breadthMaxBitWords, 0, 700} {
		breadthMaxBitWords = words
		for k, p := range problems {
			wantIDs, wantSizes := refGreedyByBreadth(p.Buffers)
			got, err := greedyByBreadthObjects(context.Background(), p.Buffers)
			if err != nil {
				t.Fatalf("problem %d (%s): %v", k, p.Name, err)
			}
			if !slices.Equal(got.ObjectIDs, wantIDs) || !slices.Equal(got.ObjectSizes, wantSizes) {
				t.Fatalf("bit budget %d, problem %d (%s): objects differ from the reference", words, k, p.Name)
			}
		}
	}
}

func TestBreadthChoose(t *testing.T) {
	// Objects 0..4 and their tensors' lifetimes.
	sizes := []int64{64, 32, 32, 16, 64}
	sched := [][]breadthSpan{
		{{0, 1}},  // 0: busy at 0..1
		{{5, 6}},  // 1: busy at 5..6
		{{8, 9}},  // 2: busy at 8..9
		{{2, 3}},  // 3: busy at 2..3
		{{9, 10}}, // 4: busy at 9..10
	}
	tests := []struct {
		name string
		size int64
		f, l int
		want int32
	}{
		{"smallest object that fits", 20, 3, 3, 1},            // 16 is too small; of the 32s, lowest id
		{"equal sizes: lowest free id", 30, 5, 5, 2},          // 1 is busy at 5
		{"exact fit wins", 16, 4, 4, 3},                       // 16 is the smallest >= 16
		{"larger free object when smaller busy", 33, 0, 0, 4}, // 0 busy at 0, 4 free
		{"none fits: largest free, lowest id", 100, 4, 4, 0},  // 64s both free: 0
		{"none fits: largest free smaller one", 100, 0, 0, 4}, // 0 busy
		{"adjacent lifetimes conflict", 10, 1, 2, 1},          // 0 busy at 1, 3 busy at 2
		{"nothing free", 1, 0, 10, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bo := breadthObjects{sizes: slices.Clone(sizes)}
			for _, s := range sched {
				var bs breadthSchedule
				for _, sp := range s {
					bs.insert(sp)
				}
				bo.sched = append(bo.sched, bs)
				bo.bits = append(bo.bits, nil)
			}
			for o := range bo.sizes {
				bo.bySize = slices.Insert(bo.bySize, bo.rank(bo.sizes[o], int32(o)), int32(o))
			}
			if got := bo.choose(tc.size, breadthLife{f: tc.f, l: tc.l}); got != tc.want {
				t.Errorf("choose(%d, [%d,%d]) = %d, want %d", tc.size, tc.f, tc.l, got, tc.want)
			}
		})
	}
}

func TestBreadthAssignGrows(t *testing.T) {
	var bo breadthObjects
	a := bo.assign(-1, 8, breadthLife{f: 0, l: 1})
	b := bo.assign(-1, 16, breadthLife{f: 0, l: 1})
	if a != 0 || b != 1 {
		t.Fatalf("new objects got ids %d, %d", a, b)
	}
	bo.assign(a, 32, breadthLife{f: 2, l: 3}) // object 0 grows past object 1
	if !slices.Equal(bo.sizes, []int64{32, 16}) || !slices.Equal(bo.bySize, []int32{1, 0}) {
		t.Errorf("sizes %v bySize %v, want [32 16] [1 0]", bo.sizes, bo.bySize)
	}
	if !slices.Equal(bo.sched[0].all(), []breadthSpan{{0, 1}, {2, 3}}) {
		t.Errorf("schedule %v", bo.sched[0].all())
	}
}

// TestBreadthSchedule checks the chunked schedule against a plain sorted
// slice through enough inserts to split chunks many times.
func TestBreadthSchedule(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var s breadthSchedule
	var plain []breadthSpan
	freePlain := func(f, l int) bool {
		for _, sp := range plain {
			if sp.first <= l && f <= sp.last {
				return false
			}
		}
		return true
	}
	for range 20_000 {
		f := r.IntN(100_000)
		l := f + r.IntN(4)
		got, want := s.free(f, l), freePlain(f, l)
		if got != want {
			t.Fatalf("free(%d, %d) = %v, want %v", f, l, got, want)
		}
		if want {
			s.insert(breadthSpan{f, l})
			k, _ := slices.BinarySearchFunc(plain, f, func(x breadthSpan, f int) int { return cmp.Compare(x.first, f) })
			plain = slices.Insert(plain, k, breadthSpan{f, l})
		}
	}
	if !slices.Equal(s.all(), plain) || len(s.chunks) < 10 {
		t.Errorf("schedule holds %d spans in %d chunks; want the %d inserted, in order", len(s.all()), len(s.chunks), len(plain))
	}
	for c, ch := range s.chunks {
		if len(ch) == 0 || len(ch) > breadthChunk || s.heads[c] != ch[0].first {
			t.Fatalf("chunk %d: %d entries, head %d", c, len(ch), s.heads[c])
		}
	}
}

func TestGreedyByBreadthErrors(t *testing.T) {
	s, err := Lookup("greedy-by-breadth")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		buf  workloads.Buffer
		want string
	}{
		{"first after last", workloads.Buffer{ID: 9, Size: 4, First: 3, Last: 2}, "Error while calculating the assignment: buffer 1 (id 9) has first task 3 after last task 2"},
		{"no task", workloads.Buffer{ID: 9, Size: 4, First: -3, Last: -1}, "Error while calculating the assignment: buffer 1 (id 9) is live at no task >= 0"},
		{"negative size", workloads.Buffer{ID: 9, Size: -4, First: 0, Last: 1}, "buffer 1 (id 9) has negative size -4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 4, First: 0, Last: 1}, tc.buf}}
			_, err := s.Plan(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}

	checkCancelled(t, s)
}

func TestGreedyByBreadthPlanShape(t *testing.T) {
	s, err := Lookup("greedy-by-breadth")
	if err != nil {
		t.Fatal(err)
	}
	empty, err := s.Plan(context.Background(), &workloads.Problem{})
	if err != nil || empty.ObjectIDs == nil || len(empty.ObjectIDs) != 0 || len(empty.ObjectSizes) != 0 || empty.Footprint != 0 {
		t.Errorf("empty problem: plan %+v, err %v", empty, err)
	}
	p := synthetic.RandomDAG(synthetic.DefaultDAG(300, 5))
	p.Alignment = 128
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := &Plan{ObjectIDs: plan.ObjectIDs, ObjectSizes: plan.ObjectSizes}
	ObjectsToOffsets(want, p.Buffers, 128)
	if !slices.Equal(plan.Offsets, want.Offsets) || plan.Footprint != want.Footprint {
		t.Errorf("offsets are not the objects laid out with alignment 128")
	}
}

func BenchmarkGreedyByBreadth(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchPlan(b, "greedy-by-breadth", n) })
	}
}
