package strategies

import (
	"context"
	"errors"
	"slices"
	"testing"

	"membench/workloads"
)

// TestFormsRefusalAndSpaces: the registry's wrapper names the forms it
// refuses, plans spaces apart (offsets within each, Footprints, their
// sum) and refuses a space planned past its capacity.
func TestFormsRefusalAndSpaces(t *testing.T) {
	// naive as declaring no form, whatever the registry says of it.
	reg, err := Lookup("naive")
	if err != nil {
		t.Fatal(err)
	}
	s := Declare(reg.(interface{ Unwrap() Strategy }).Unwrap(), 0)
	base := func() *workloads.Problem {
		return recs(0, [3]int64{16, 0, 1}, [3]int64{8, 0, 1}, [3]int64{8, 1, 3})
	}
	for _, tt := range []struct {
		name string
		set  func(p *workloads.Problem)
		err  string
		is   error
	}{
		{"gaps", func(p *workloads.Problem) { p.Gaps = [][]workloads.Gap{{{First: 1, Last: 1}}, nil, nil} },
			"unsupported problem form: naive: gaps are not supported", ErrUnsupportedForm},
		{"alignment", func(p *workloads.Problem) { p.Aligns = []int64{0, 8, 0} },
			"unsupported problem form: naive: per-buffer alignment is not supported", ErrUnsupportedForm},
		{"fixed and gaps", func(p *workloads.Problem) {
			p.Fixed = []int64{0, workloads.NoOffset, workloads.NoOffset}
			p.Gaps = [][]workloads.Gap{{{First: 1, Last: 1}}, nil, nil}
		}, "unsupported problem form: naive: gaps, fixed offsets are not supported", ErrUnsupportedForm},
		{"hints ignored", func(p *workloads.Problem) { p.Hints = []int64{8, workloads.NoOffset, 0} }, "", nil},
		{"over capacity", func(p *workloads.Problem) {
			p.Memories = []workloads.Memory{{Name: "sram", Capacity: 20}, {Name: "dram"}}
			p.Spaces = []int{0, 1, 0}
		}, `over capacity: memory space "sram": footprint 24 exceeds its capacity 20`, ErrOverCapacity},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := base()
			tt.set(p)
			plan, err := s.Plan(context.Background(), p)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if err := Validate(p, plan); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tt.err || !errors.Is(err, tt.is) {
				t.Fatalf("Plan = %v, want %q", err, tt.err)
			}
		})
	}
	// Two spaces: naive gives each buffer its own object, space by space.
	p := base()
	p.Memories = []workloads.Memory{{Name: "sram", Capacity: 24}, {Name: "dram"}}
	p.Spaces = []int{0, 1, 0}
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 0, 16}; !slices.Equal(plan.Offsets, want) || !slices.Equal(plan.Footprints, []int64{24, 8}) || plan.Footprint != 32 {
		t.Fatalf("plan %+v, want offsets %v, footprints [24 8], footprint 32", plan, want)
	}
	if err := Validate(p, plan); err != nil {
		t.Fatal(err)
	}
	if f, ok := DeclaredForms(s); !ok || f != 0 {
		t.Fatalf("DeclaredForms(naive) = %v, %v", f, ok)
	}
}
