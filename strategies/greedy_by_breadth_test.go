package strategies

import (
	"context"
	"errors"
	"fmt"
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
	for k, p := range randomTieProblems(300) {
		wantIDs, wantSizes := refGreedyByBreadth(p.Buffers)
		got, err := greedyByBreadthObjects(context.Background(), p.Buffers)
		if err != nil {
			t.Fatalf("problem %d (%s): %v", k, p.Name, err)
		}
		if !slices.Equal(got.ObjectIDs, wantIDs) || !slices.Equal(got.ObjectSizes, wantSizes) {
			t.Fatalf("problem %d (%s): objects differ from the reference", k, p.Name)
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
				bo.sched = append(bo.sched, slices.Clone(s))
			}
			for o := range bo.sizes {
				bo.bySize = slices.Insert(bo.bySize, bo.rank(bo.sizes[o], int32(o)), int32(o))
			}
			if got := bo.choose(tc.size, tc.f, tc.l); got != tc.want {
				t.Errorf("choose(%d, [%d,%d]) = %d, want %d", tc.size, tc.f, tc.l, got, tc.want)
			}
		})
	}
}

func TestBreadthAssignGrows(t *testing.T) {
	var bo breadthObjects
	a := bo.assign(-1, 8, 0, 1)
	b := bo.assign(-1, 16, 0, 1)
	if a != 0 || b != 1 {
		t.Fatalf("new objects got ids %d, %d", a, b)
	}
	bo.assign(a, 32, 2, 3) // object 0 grows past object 1
	if !slices.Equal(bo.sizes, []int64{32, 16}) || !slices.Equal(bo.bySize, []int32{1, 0}) {
		t.Errorf("sizes %v bySize %v, want [32 16] [1 0]", bo.sizes, bo.bySize)
	}
	if !slices.Equal(bo.sched[0], []breadthSpan{{0, 1}, {2, 3}}) {
		t.Errorf("schedule %v", bo.sched[0])
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
		{"first after last", workloads.Buffer{ID: 9, Size: 4, First: 3, Last: 2}, "buffer 1 (id 9) has first task 3 after last task 2"},
		{"no task", workloads.Buffer{ID: 9, Size: 4, First: -3, Last: -1}, "buffer 1 (id 9) is live at no task"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 4, First: 0, Last: 1}, tc.buf}}
			_, err := s.Plan(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), "Error while calculating the assignment") ||
				!strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := synthetic.RandomDAG(synthetic.DefaultDAG(100_000, 1))
	if _, err := s.Plan(ctx, big); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
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
