package strategies

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"membench/workloads"
)

// ErrUnsupportedSizeType is the refusal of a strategy asked to plan a
// problem whose size type (workloads.SizeType) it has no variant for; its
// text is TFLite's own (memory_management.cc's AssignObjectsToTensors).
// Test with errors.Is. The message names the strategy and the size type:
// "greedy-by-size: 2d sizes: MemoryStrategy is not supported with current
// tensor size type."
var ErrUnsupportedSizeType = errors.New("MemoryStrategy is not supported with current tensor size type.")

// checkSizeType refuses p unless its sizes are bytes or one of the size
// types have, and refuses a problem whose shapes are malformed.
func checkSizeType(name string, p *workloads.Problem, have []workloads.SizeType) error {
	if p.SizeType == workloads.SizeBytes && p.Shapes == nil && p.Reuse == nil {
		return nil
	}
	if err := workloads.CheckShapes(p); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if p.SizeType != workloads.SizeBytes && !slices.Contains(have, p.SizeType) {
		return fmt.Errorf("%s: %s sizes: %w", name, p.SizeType, ErrUnsupportedSizeType)
	}
	if p.Memories != nil {
		// Memory spaces are planned one at a time as problems of their
		// own, which would renumber the records shapes and graphs name.
		return fmt.Errorf("%w: %s: memory spaces with %s sizes or a reallocation graph are not supported", ErrUnsupportedForm, name, p.SizeType)
	}
	return nil
}

// DeclaredSizeTypes returns the size types s plans, bytes first, when s
// was built by Lookup or Declare, which refuse the others with
// ErrUnsupportedSizeType; ok is false for a strategy built otherwise.
func DeclaredSizeTypes(s Strategy) (types []workloads.SizeType, ok bool) {
	n, ok := s.(named)
	if !ok {
		return nil, false
	}
	return SizeTypesOf(Info{SizeTypes: n.sizes}), true
}

// SizeTypesOf returns the size types info's strategy plans: bytes, then
// Info.SizeTypes.
func SizeTypesOf(info Info) []workloads.SizeType {
	return append([]workloads.SizeType{workloads.SizeBytes}, info.SizeTypes...)
}

// shapeAssigner computes a shared-object assignment for buffers sorted by
// First with their shapes: ids[i] is the object of buffer i, objs[k] the
// extents of object k.
type shapeAssigner func(ctx context.Context, bufs []workloads.Buffer, shapes []workloads.Shape) (ids []int, objs []workloads.Shape, err error)

// planSortedShapes is planSortedObjects for a problem of textures or BHWC
// shapes: assign sees the buffers sorted by First with their shapes, and
// the plan keeps its object shapes (Plan.ObjectShapes) and their bytes
// (Plan.ObjectSizes).
func planSortedShapes(ctx context.Context, name string, p *workloads.Problem, assign shapeAssigner) (*Plan, error) {
	if err := workloads.CheckShapes(p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var objs []workloads.Shape
	plan, err := planSorted(ctx, name, p, func(ctx context.Context, bufs []workloads.Buffer, perm []int32) ([]int, []int64, error) {
		shapes := p.Shapes
		if perm != nil {
			shapes = make([]workloads.Shape, len(perm))
			for k, i := range perm {
				shapes[k] = p.Shapes[i]
			}
		}
		ids, o, err := assign(ctx, bufs, shapes)
		if err != nil {
			return nil, nil, err
		}
		objs = o
		return ids, shapeBytes(p, objs), nil
	})
	if err != nil {
		return nil, err
	}
	plan.ObjectShapes = objs
	return plan, nil
}

// shapeBytes returns the bytes of each object shape in p. Every object
// shape is a tensor's (TFLite's texture and BHWC planners never grow an
// object), so none overflows: CheckShapes checked the tensors'.
func shapeBytes(p *workloads.Problem, objs []workloads.Shape) []int64 {
	sizes := make([]int64, len(objs))
	for k, s := range objs {
		sizes[k], _ = p.ShapeBytes(s)
	}
	return sizes
}

// textureElements is TFLite's element count of a texture extent in
// AbsDiffInElements: the product of the extents in uint32 arithmetic
// (uint2 and uint3 hold uint32s, so the product wraps at 2^32).
func textureElements(s workloads.Shape, dims int) uint64 {
	n := uint32(1)
	for _, e := range s[:dims] {
		n *= uint32(e)
	}
	return uint64(n)
}

// absDiff returns |a - b|.
func absDiff(a, b uint64) uint64 {
	if a >= b {
		return a - b
	}
	return b - a
}
