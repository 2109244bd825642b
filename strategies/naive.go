package strategies

import (
	"context"
	"fmt"
	"slices"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

func init() {
	Register(Info{
		Name:    "naive",
		Runtime: "tflite-gpu",
		Kind:    Objects,
		Doc:     "TFLite NAIVE: every tensor gets its own object (no reuse); the worst case",
		// TFLite's NaiveAssignment serves every size type.
		SizeTypes: []workloads.SizeType{workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC},
		New:       Simple(func() Strategy { return naive{} }),
	})
}

// naive is TFLite's NaiveAssignment: object i holds tensor i, and has its
// size (its extents, for textures and BHWC shapes).
type naive struct{}

func (naive) Name() string { return "naive" }

func (naive) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	if err := kernel.RecordError("naive", p.Buffers); err != nil {
		return nil, err
	}
	if p.SizeType != workloads.SizeBytes {
		if err := workloads.CheckShapes(p); err != nil {
			return nil, fmt.Errorf("naive: %w", err)
		}
	}
	n := len(p.Buffers)
	plan := &Plan{ObjectIDs: make([]int, n), ObjectSizes: make([]int64, n)}
	for i, b := range p.Buffers {
		if i%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		plan.ObjectIDs[i] = i
		plan.ObjectSizes[i] = b.Size
	}
	if p.SizeType != workloads.SizeBytes {
		plan.ObjectShapes = slices.Clone(p.Shapes)
	}
	ObjectsToOffsets(plan, p.Buffers, p.Alignment)
	return plan, nil
}
