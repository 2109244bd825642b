package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"
	"unsafe"

	"membench/results"
	"membench/strategies"
	"membench/workloads"
)

// executor runs cells inside a worker. Its workload cache keeps what it
// loaded, so that a worker loads each workload once although a sweep runs
// its cells repeat by repeat.
type executor struct {
	workloadCache
}

// workloadCache keeps the workloads a process loaded, up to keep bytes of
// their buffers and events, least recently used out first, so that the
// process loads each once. A workload larger than keep is kept alone,
// until the next one. The zero value keeps the last workload only.
type workloadCache struct {
	mu    sync.Mutex
	keep  int64
	kept  []keptWorkload // least recently used first
	bytes int64
}

// keptWorkloadBytes is what a process keeps of the workloads it loaded
// (a worker: unless its memory limit is under 16 times that).
const keptWorkloadBytes = 64 << 20

// keptWorkload is one workload an executor keeps, with its size.
type keptWorkload struct {
	spec  string
	w     *workloads.Workload
	bytes int64
}

func (x *workloadCache) load(spec string) (*workloads.Workload, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, k := range x.kept {
		if k.spec == spec {
			x.kept = append(append(x.kept[:i:i], x.kept[i+1:]...), k)
			return k.w, nil
		}
	}
	w, err := workloads.Load(spec)
	if err != nil {
		return nil, err
	}
	k := keptWorkload{spec, w, workloadBytes(w)}
	for len(x.kept) > 0 && x.bytes+k.bytes > x.keep {
		x.bytes -= x.kept[0].bytes
		x.kept = x.kept[1:]
	}
	x.kept = append(x.kept, k)
	x.bytes += k.bytes
	return w, nil
}

// workloadBytes is about what w holds in memory: its buffers and events.
func workloadBytes(w *workloads.Workload) int64 {
	var n int64
	if w.Problem != nil {
		n += int64(len(w.Problem.Buffers)) * int64(unsafe.Sizeof(workloads.Buffer{}))
	}
	if w.Trace != nil {
		n += int64(len(w.Trace.Events)) * int64(unsafe.Sizeof(workloads.Event{}))
	}
	return n
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
	case errors.Is(err, strategies.ErrUnsupportedForm) || errors.Is(err, strategies.ErrUnsupportedSizeType):
		rec.Status, rec.Error = results.StatusUnsupported, err.Error()
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
	rec.Bound, rec.Optimal, rec.Nodes = plan.Bound, plan.Optimal, plan.Nodes
	if plan.Footprints != nil && len(plan.Footprints) == len(c.Info.Spaces) {
		rec.Spaces = slices.Clone(c.Info.Spaces)
		for m := range rec.Spaces {
			rec.Spaces[m].Footprint = plan.Footprints[m]
		}
	}
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
