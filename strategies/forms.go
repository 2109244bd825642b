package strategies

import (
	"context"
	"errors"
	"fmt"

	"membench/workloads"
)

// ErrUnsupportedForm is the refusal of a strategy asked to plan a problem
// form it does not honour (workloads.Forms); test with errors.Is. The
// message names the strategy and the forms: "xla-heap: gaps are not
// supported".
var ErrUnsupportedForm = errors.New("unsupported problem form")

// ErrOverCapacity is the error of a plan of a memory space that needs
// more than the space's capacity (workloads.Memory.Capacity), from a
// strategy that plans spaces one at a time without regard to it; test
// with errors.Is.
var ErrOverCapacity = errors.New("over capacity")

// DeclaredForms returns the forms s honours (Info.Forms) when s was built
// by Lookup or Declare, which then refuse the others; ok is false for a
// strategy built otherwise, which sees every problem as it is.
func DeclaredForms(s Strategy) (forms workloads.Forms, ok bool) {
	n, ok := s.(named)
	return n.forms, ok
}

// Declare wraps s as Lookup wraps a registered strategy honouring forms
// and byte sizes only: its Plan refuses the other forms and plans memory spaces one at a time
// unless forms has FormMemories. It is for strategies built outside the
// registry (tests, programs embedding a planner).
func Declare(s Strategy, forms workloads.Forms) Strategy {
	return named{s, s.Name(), s.Name(), forms, nil}
}

// checkForms refuses the forms of p that a strategy honouring have does
// not. Hints are advice and never refused; memory spaces are planned one
// space at a time (planSpaces) for strategies that do not plan them
// together themselves, so they are never refused either.
func checkForms(name string, p *workloads.Problem, have workloads.Forms) error {
	missing := p.Forms() &^ have &^ (workloads.FormHints | workloads.FormMemories)
	if missing == 0 {
		return nil
	}
	verb := "are"
	if missing == workloads.FormAlign {
		verb = "is" // the one form whose name is singular
	}
	return fmt.Errorf("%w: %s: %s %s not supported", ErrUnsupportedForm, name, missing, verb)
}

// planForms plans p with s, which honours the forms have: it refuses the
// forms s does not honour and, unless s plans memory spaces itself, plans
// each space of a problem with several as a problem of its own.
func planForms(ctx context.Context, s Strategy, name string, have workloads.Forms, p *workloads.Problem) (*Plan, error) {
	if err := checkForms(name, p, have); err != nil {
		return nil, err
	}
	if have&workloads.FormMemories == 0 && p.Forms()&workloads.FormMemories != 0 {
		return planSpaces(ctx, s, p)
	}
	return s.Plan(ctx, p)
}

// SpaceProblems splits p into one problem per memory space, in
// p.Memories' order, and returns each space's buffer indexes in p. Each
// keeps p's alignment and the forms of its buffers, and takes its space's
// capacity.
func SpaceProblems(p *workloads.Problem) ([]*workloads.Problem, [][]int) {
	k := max(len(p.Memories), 1)
	idx := make([][]int, k)
	for i := range p.Buffers {
		m := p.MemoryOf(i)
		idx[m] = append(idx[m], i)
	}
	subs := make([]*workloads.Problem, k)
	for m := range subs {
		sp := &workloads.Problem{Name: p.Name, Alignment: p.Alignment, Capacity: p.Capacity, Format: p.Format}
		if m < len(p.Memories) {
			sp.Capacity = p.Memories[m].Capacity
		}
		for _, i := range idx[m] {
			sp.Buffers = append(sp.Buffers, p.Buffers[i])
			if p.Labels != nil {
				sp.Labels = append(sp.Labels, p.Labels[i])
			}
			if p.Aligns != nil {
				sp.Aligns = append(sp.Aligns, p.Aligns[i])
			}
			if p.Gaps != nil {
				sp.Gaps = append(sp.Gaps, p.Gaps[i])
			}
			if p.Fixed != nil {
				sp.Fixed = append(sp.Fixed, p.Fixed[i])
			}
			if p.Hints != nil {
				sp.Hints = append(sp.Hints, p.Hints[i])
			}
		}
		subs[m] = sp
	}
	return subs, idx
}

// planSpaces plans each memory space of p apart with s and joins the
// plans: offsets are within each space, Footprints holds each space's
// footprint and Footprint their sum. Object plans are joined with their
// object ids renumbered space by space. A space planned past its capacity
// is an error wrapping ErrOverCapacity.
func planSpaces(ctx context.Context, s Strategy, p *workloads.Problem) (*Plan, error) {
	subs, idx := SpaceProblems(p)
	out := &Plan{Offsets: make([]int64, len(p.Buffers)), Footprints: make([]int64, len(subs))}
	objects, bounded, optimal := true, true, true
	var arena int64
	for m, sp := range subs {
		plan, err := s.Plan(ctx, sp)
		if err != nil {
			if len(subs) > 1 {
				return nil, fmt.Errorf("memory space %q: %w", p.Memories[m].Name, err)
			}
			return nil, err
		}
		if c := sp.Capacity; m < len(p.Memories) && c > 0 && plan.Footprint > c {
			return nil, fmt.Errorf("%w: memory space %q: footprint %d exceeds its capacity %d", ErrOverCapacity, p.Memories[m].Name, plan.Footprint, c)
		}
		for j, i := range idx[m] {
			out.Offsets[i] = plan.Offsets[j]
		}
		out.Footprints[m] = plan.Footprint
		out.Footprint += plan.Footprint
		arena += max(plan.Arena, plan.Footprint)
		objects = objects && plan.IsObjects()
		bounded = bounded && plan.Bound > 0
		optimal = optimal && plan.Optimal
		if plan.IsObjects() {
			base := len(out.ObjectSizes)
			if out.ObjectIDs == nil {
				out.ObjectIDs = make([]int, len(p.Buffers))
			}
			for j, i := range idx[m] {
				out.ObjectIDs[i] = base + plan.ObjectIDs[j]
			}
			out.ObjectSizes = append(out.ObjectSizes, plan.ObjectSizes...)
		}
		out.Bound += plan.Bound
		out.Nodes += plan.Nodes
	}
	if !objects {
		out.ObjectIDs, out.ObjectSizes = nil, nil
	}
	if !bounded {
		out.Bound = 0
	}
	out.Optimal = bounded && optimal
	if arena != out.Footprint {
		out.Arena = arena
	}
	return out, nil
}
