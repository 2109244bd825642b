package strategies

import (
	"context"
	"slices"
	"testing"

	"membench/workloads"
)

func TestNaive(t *testing.T) {
	p := &workloads.Problem{Buffers: []workloads.Buffer{
		{ID: 0, Size: 16, First: 3, Last: 4}, {ID: 1, Size: 8, First: 0, Last: 2}, {ID: 2, Size: 0, First: 1, Last: 1}, {ID: 3, Size: 32, First: 1, Last: 5},
	}}
	plan, err := naive{}.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2, 3}; !slices.Equal(plan.ObjectIDs, want) {
		t.Errorf("ids = %v, want %v", plan.ObjectIDs, want)
	}
	if want := []int64{16, 8, 0, 32}; !slices.Equal(plan.ObjectSizes, want) {
		t.Errorf("sizes = %v, want %v", plan.ObjectSizes, want)
	}
	if want := []int64{0, 16, 24, 24}; !slices.Equal(plan.Offsets, want) || plan.Footprint != 56 {
		t.Errorf("offsets = %v footprint %d, want %v 56", plan.Offsets, plan.Footprint, want)
	}
}

func TestNaiveCases(t *testing.T)    { testPlanCases(t, naive{}) }
func TestNaiveBadInput(t *testing.T) { testBadInput(t, naive{}) }
func TestNaiveCancel(t *testing.T)   { testCancel(t, naive{}) }
func BenchmarkNaive(b *testing.B)    { benchObjects(b, naive{}) }

// objectCase is a hand-made problem with its exact expected assignment.
type objectCase struct {
	name  string
	bufs  [][3]int64 // size, first, last
	ids   []int
	sizes []int64
}

// runObjectCases plans each case with s and checks the exact object ids
// and sizes, and the plan's validity.
func runObjectCases(t *testing.T, s Strategy, cases []objectCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &workloads.Problem{}
			for i, r := range c.bufs {
				p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: r[0], First: int(r[1]), Last: int(r[2])})
			}
			plan, err := s.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(plan.ObjectIDs, c.ids) || !slices.Equal(plan.ObjectSizes, c.sizes) {
				t.Errorf("got %v %v, want %v %v", plan.ObjectIDs, plan.ObjectSizes, c.ids, c.sizes)
			}
			checkPlan(t, p, plan)
		})
	}
}
