package strategies_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

func TestValidateShapes(t *testing.T) {
	rows := [][]int64{{2, 8, 0, 1}, {1, 12, 0, 1}, {2, 4, 2, 3}}
	good := func(t *testing.T) (*workloads.Problem, *strategies.Plan) {
		p := shapeProblem(t, workloads.SizeTexture2D, 4, rows)
		s, _ := strategies.Lookup("greedy-in-order")
		plan, err := s.Plan(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if err := strategies.Validate(p, plan); err != nil {
			t.Fatal(err)
		}
		return p, plan
	}
	tests := []struct {
		name   string
		mutate func(p *workloads.Problem, plan *strategies.Plan)
		want   string
	}{
		{"object does not cover in one dimension", func(p *workloads.Problem, plan *strategies.Plan) {
			// Tensor 2 (2x4) moves into object 1 (1x12), 12 elements >= 8
			// but 1 < 2 in x; the bytes alone would pass.
			plan.ObjectIDs[2] = 1
			strategies.ObjectsToOffsets(plan, p.Buffers, p.Alignment)
		}, "buffer 2 of shape 2x4 is in object 1 of shape 1x12, which does not cover it"},
		{"conflicting tensors share an object", func(p *workloads.Problem, plan *strategies.Plan) {
			p.Shapes[1], p.Buffers[1].Size = workloads.Shape{0, 0}, 0
			plan.ObjectIDs[1] = 0
			strategies.ObjectsToOffsets(plan, p.Buffers, p.Alignment)
		}, "buffers 0 and 1 conflict but share object 0"},
		{"object shape missing", func(p *workloads.Problem, plan *strategies.Plan) {
			plan.ObjectShapes = plan.ObjectShapes[:1]
		}, "must assign objects with one shape each"},
		{"object bytes are not its shape's", func(p *workloads.Problem, plan *strategies.Plan) {
			plan.ObjectShapes[0] = workloads.Shape{2, 9}
		}, "object 0 of shape 2x9 has size 64"},
		{"byte plan of a texture problem", func(p *workloads.Problem, plan *strategies.Plan) {
			plan.ObjectShapes = nil
		}, "must assign objects"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, plan := good(t)
			tc.mutate(p, plan)
			err := strategies.Validate(p, plan)
			if !errors.Is(err, strategies.ErrInvalidPlan) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want an invalid plan: %s", err, tc.want)
			}
		})
	}
}
