package strategies

import (
	"cmp"
	"slices"

	"membench/workloads"
)

// validateShapes checks the size-type part of a plan (DESIGN §17). For a
// problem of textures or BHWC shapes the plan must assign objects, give
// each object its extents (Plan.ObjectShapes) and their bytes
// (Plan.ObjectSizes), put each tensor in an object that covers it in
// every dimension, and never put two conflicting tensors in one object,
// whatever their sizes (a texture is bound whole). A plan of byte sizes
// has no object shapes. The byte checks (Validate) hold as well: an
// object's bytes cover each of its tensors' bytes.
func validateShapes(p *workloads.Problem, plan *Plan) error {
	if p.SizeType == workloads.SizeBytes && p.Shapes == nil && p.Reuse == nil {
		if plan.ObjectShapes != nil {
			return planErr("%d object shapes for a problem of byte sizes", len(plan.ObjectShapes))
		}
		return nil
	}
	if err := workloads.CheckShapes(p); err != nil {
		return problemErr("%v", err)
	}
	if p.SizeType == workloads.SizeBytes {
		if plan.ObjectShapes != nil {
			return planErr("%d object shapes for a problem of byte sizes", len(plan.ObjectShapes))
		}
		return nil
	}
	dims, top := p.SizeType.Dims(), p.SizeType.MaxExtent()
	if !plan.IsObjects() || len(plan.ObjectShapes) != len(plan.ObjectSizes) {
		return planErr("a plan of %s sizes must assign objects with one shape each: %d object shapes for %d objects", p.SizeType, len(plan.ObjectShapes), len(plan.ObjectSizes))
	}
	for k, s := range plan.ObjectShapes {
		for d, e := range s {
			if d < dims && (e < 0 || e > top) || d >= dims && e != 0 {
				return planErr("object %d: shape %v is not %d extents in [0, %d]", k, s, dims, top)
			}
		}
		if n, ok := p.ShapeBytes(s); !ok || n != plan.ObjectSizes[k] {
			return planErr("object %d of shape %s has size %d, want its %d-byte elements' bytes", k, s.Format(dims), plan.ObjectSizes[k], p.ElementSize)
		}
	}
	members := make([][]int, len(plan.ObjectShapes))
	for i, id := range plan.ObjectIDs {
		// validateObjects has checked the ids are in range.
		if obj := plan.ObjectShapes[id]; !obj.Covers(p.Shapes[i], dims) {
			return planErr("buffer %d of shape %s is in object %d of shape %s, which does not cover it", i, p.Shapes[i].Format(dims), id, obj.Format(dims))
		}
		members[id] = append(members[id], i)
	}
	for k, m := range members {
		slices.SortFunc(m, func(a, b int) int { return cmp.Compare(p.Buffers[a].First, p.Buffers[b].First) })
		for j := 1; j < len(m); j++ {
			// Sorted by First, a conflict shows up with the member before
			// that ends last; keep it in m[j-1]'s place.
			prev, cur := p.Buffers[m[j-1]], p.Buffers[m[j]]
			if workloads.Conflicts(prev, cur) {
				a, b := min(m[j-1], m[j]), max(m[j-1], m[j])
				return planErr("buffers %d and %d conflict but share object %d", a, b, k)
			}
			if prev.Last > cur.Last {
				m[j] = m[j-1]
			}
		}
	}
	return nil
}
