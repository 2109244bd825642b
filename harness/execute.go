package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"membench/results"
	"membench/strategies"
	"membench/workloads"
)

// executor runs cells inside a worker. It caches the last workload it
// loaded, since consecutive cells share it.
type executor struct {
	spec string
	w    *workloads.Workload
}

func (x *executor) load(spec string) (*workloads.Workload, error) {
	if x.spec == spec && x.w != nil {
		return x.w, nil
	}
	x.w, x.spec = nil, ""
	w, err := workloads.Load(spec)
	if err != nil {
		return nil, err
	}
	x.w, x.spec = w, spec
	return w, nil
}

// Execute runs one cell and returns its record. A panic in the subject is
// recorded as an error; it never escapes.
func (x *executor) Execute(ctx context.Context, c Cell) (rec results.Record) {
	rec = c.record()
	defer func() {
		if v := recover(); v != nil {
			rec.Status = results.StatusError
			rec.Error = fmt.Sprintf("panic: %v\n%s", v, debug.Stack())
			rec.TimesNs = []float64{}
		}
	}()
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	w, err := x.load(c.Workload)
	if err != nil {
		rec.Status, rec.Error = results.StatusError, err.Error()
		return rec
	}
	runtime.GC()
	switch c.Kind {
	case results.KindStrategy:
		err = runStrategy(ctx, c, w.Problem, &rec)
	case results.KindAllocator:
		err = runAllocator(ctx, c, w, &rec)
	default:
		err = fmt.Errorf("unknown kind %q", c.Kind)
	}
	switch {
	case err == nil:
		rec.Status = results.StatusOK
	case errors.Is(err, context.DeadlineExceeded):
		rec.Status, rec.Error = results.StatusTimeout, fmt.Sprintf("cell timed out after %v", c.Timeout)
	case rec.Status == "":
		rec.Status, rec.Error = results.StatusError, err.Error()
	}
	if rec.Status != results.StatusOK {
		rec.TimesNs = []float64{}
	}
	return rec
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func runStrategy(ctx context.Context, c Cell, p *workloads.Problem, rec *results.Record) error {
	s, err := strategies.Lookup(c.Subject)
	if err != nil {
		return err
	}
	// The first call gives the plan to validate and a first duration.
	start := time.Now()
	plan, err := s.Plan(ctx, p)
	first := time.Since(start)
	if errors.Is(err, strategies.ErrInvalidPlan) {
		// An answer that is no plan (an exec: planner's bad output).
		rec.Status, rec.Error = results.StatusInvalid, err.Error()
		return err
	}
	if err != nil {
		return err
	}
	if err := strategies.Validate(p, plan); err != nil {
		rec.Status, rec.Error = results.StatusInvalid, err.Error()
		return err
	}
	rec.Footprint, rec.Arena, rec.Persistent = plan.Footprint, plan.Arena, p.PersistentBytes()
	rec.Ratio = ratio(plan.Footprint, c.Info.LBLoad)
	rec.RatioObjects = ratio(plan.Footprint, c.Info.LBObjects)
	if plan.IsObjects() {
		rec.Objects = len(plan.ObjectSizes)
	}
	rec.Bound, rec.Optimal = plan.Bound, plan.Optimal
	iters, samples, err := measure(ctx, c, first, func() error {
		_, err := s.Plan(ctx, p)
		return err
	})
	rec.Iters, rec.TimesNs = iters, samples
	return err
}

// measure times op the way testing.B does: it grows the iteration count
// until one sample takes BenchTime, then takes Samples samples of that
// many iterations. It returns ns per iteration for each sample.
func measure(ctx context.Context, c Cell, first time.Duration, op func() error) (int, []float64, error) {
	target := c.BenchTime
	n := 1
	d := first
	for d < target && n < 1e9 {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		// Predict the count that reaches the target, grow by at most 100x
		// and by at least one, as testing.B does.
		next := n * 100
		if d > 0 {
			next = int(float64(n) * 1.2 * float64(target) / float64(d))
		}
		next = min(max(next, n+1), n*100)
		n = next
		var err error
		if d, err = timeN(n, op); err != nil {
			return 0, nil, err
		}
	}
	samples := make([]float64, c.Samples)
	for i := range samples {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		d, err := timeN(n, op)
		if err != nil {
			return 0, nil, err
		}
		samples[i] = float64(d.Nanoseconds()) / float64(n)
	}
	return n, samples, nil
}

func timeN(n int, op func() error) (time.Duration, error) {
	start := time.Now()
	for range n {
		if err := op(); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}
