package strategies

import (
	"context"
	"fmt"
	"strings"

	"membench/workloads"
)

// bestOfDefault is what best-of runs when given no ?of=: one production
// planner per runtime in this file set, and TFLite's offset planner.
const bestOfDefault = "xla-heap,tflite-arena,tflm-greedy,ort-mem-pattern,offset-greedy-by-size"

func init() {
	Register(Info{
		Name: "best-of", Runtime: "membench", Kind: Offsets,
		Doc: "runs several strategies and keeps the plan with the smallest footprint (ties: the first listed), " +
			"as XLA's ChooseBestHeapAlgorithm and MindSpore SOMAS do; returns its offsets; stops once a plan reaches LB_load; " +
			"honours the forms every member honours; memory spaces are planned one at a time, each keeping its best",
		Params: []workloads.ParamDoc{{Name: "of", Default: bestOfDefault,
			Doc: "comma-separated strategy specs to run, in order (a spec's own & must be written %26)"}},
		// The default members honour no form in common; an instance
		// honours those all its members do (bestOf.honours).
		New: newBestOf,
	})
}

// bestOf runs its members in order and keeps the first plan with the
// smallest footprint. It stops early once the best plan reaches LB_load,
// which no later member can beat. It returns the winner's offsets only, so that one
// kind (offsets) covers members of either kind: an object plan's offsets
// are TFLite's ObjectsToOffsets layout, whose footprint is recomputed from
// the offsets.
type bestOf struct {
	members []Strategy
}

func newBestOf(args *workloads.Args) (Strategy, error) {
	of := args.String("of", bestOfDefault)
	var s bestOf
	for _, spec := range strings.Split(of, ",") {
		if spec == "" {
			return nil, workloads.Usagef("best-of: empty strategy in of=%q", of)
		}
		m, err := Lookup(spec)
		if err != nil {
			return nil, fmt.Errorf("best-of: %w", err)
		}
		s.members = append(s.members, m)
	}
	return s, nil
}

func (bestOf) Name() string { return "best-of" }

// honours returns the forms every member honours, which Lookup declares
// for the instance: each member then plans a problem best-of accepts.
// Memory spaces are left to the registry, one space at a time, as best-of
// compares one footprint per plan.
func (s bestOf) honours() workloads.Forms {
	all := workloads.AllForms
	for _, m := range s.members {
		f, _ := DeclaredForms(m)
		all &= f
	}
	return all &^ workloads.FormMemories
}

func (s bestOf) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	var best *Plan
	var winner Strategy
	lb := int64(-1) // LB_load, once a member has run
	for k, m := range s.members {
		plan, err := m.Plan(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("best-of: %s: %w", m.Name(), err)
		}
		if len(plan.Offsets) != len(p.Buffers) {
			return nil, fmt.Errorf("best-of: %s returned %d offsets for %d buffers", m.Name(), len(plan.Offsets), len(p.Buffers))
		}
		fp := Footprint(p.Buffers, plan.Offsets)
		if best == nil || fp < best.Footprint {
			best, winner = &Plan{Offsets: plan.Offsets, Footprint: fp}, m
		}
		// No plan beats LB_load, so the later members cannot win.
		if k+1 < len(s.members) {
			if lb < 0 {
				lb = p.LoadBound()
			}
			if best.Footprint <= lb {
				break
			}
		}
	}
	// Only the winner's plan is reported, so only it needs checking.
	if err := Validate(p, best); err != nil {
		return nil, fmt.Errorf("best-of: %s returned an invalid plan: %w", winner.Name(), err)
	}
	return best, nil
}
