package strategies

import "membench/workloads"

// Bounds are the lower bounds on a problem's footprint.
type Bounds struct {
	// Load is LB_load: the peak of live bytes over tasks.
	Load int64
	// Objects is LB_objects: the sum of TFLite's positional maximums.
	Objects int64
}

// LowerBounds computes both lower bounds of p.
func LowerBounds(p *workloads.Problem) Bounds {
	panic("TODO")
}

// Validate checks plan against p and returns an error describing the first
// violation found, or nil.
func Validate(p *workloads.Problem, plan *Plan) error {
	panic("TODO")
}
