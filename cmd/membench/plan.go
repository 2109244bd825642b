package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/montanaflynn/stats"

	"membench/results"
	"membench/strategies"
	"membench/workloads"
)

func init() {
	register(&command{
		name:    "plan",
		usage:   "--strategy SPEC [--align BYTES] [--repeat N] [--timeout DUR] [--max-input SIZE] [--format text|json|csv] [--plot FILE.png] WORKLOAD",
		summary: "Plan one workload with one strategy, validate the plan and report it.",
		run:     runPlan,
	})
}

// planOutput is the JSON of `plan --format json` (DESIGN §4).
type planOutput struct {
	Strategy  string `json:"strategy"`
	Footprint int64  `json:"footprint"`
	// Arena is the arena the strategy's runtime itself would ask for,
	// where it differs from Footprint (Plan.Arena).
	Arena int64 `json:"arena,omitempty"`
	// Persistent is the bytes kept outside the planned arena (a `.tflite`
	// model's variable tensors).
	Persistent int64   `json:"persistent,omitempty"`
	LowerBound int64   `json:"lower_bound"`
	Seconds    float64 `json:"seconds"`
	Offsets    []int64 `json:"offsets"`
	// Pointers, so that an object plan of no buffers still shows them:
	// LB_objects bounds object plans only.
	LBObjects   *int64   `json:"lb_objects,omitempty"`
	ObjectIDs   *[]int   `json:"object_ids,omitempty"`
	ObjectSizes *[]int64 `json:"object_sizes,omitempty"`

	// Bound and Optimal are what the strategy proved (DESIGN §10).
	Bound   int64 `json:"bound,omitempty"`
	Optimal bool  `json:"optimal,omitempty"`

	// Forms names the problem's forms (DESIGN §15), if any.
	Forms string `json:"forms,omitempty"`
	// Spaces are the memory spaces of a problem with several: each one's
	// footprint, LB_load and capacity; Footprint and LowerBound are their
	// sums.
	Spaces []results.SpaceStat `json:"spaces,omitempty"`
	// Nodes is the number of search nodes the strategy visited, where it
	// says (Plan.Nodes).
	Nodes int64 `json:"nodes,omitempty"`

	// For a workload of textures or BHWC shapes (DESIGN §17): the size
	// type, the bytes of an element and each object's extents (its bytes
	// are object_sizes).
	SizeType     string    `json:"size_type,omitempty"`
	ElementSize  int64     `json:"element_size,omitempty"`
	ObjectShapes [][]int64 `json:"object_shapes,omitempty"`
}

func runPlan(ctx context.Context, e *env, args []string) error {
	c := commands["plan"]
	fs := newFlags(e, c)
	spec := fs.String("strategy", "", "strategy `SPEC` (see 'membench list strategies')")
	alignStr := fs.String("align", "", "offset alignment in `BYTES` (K/M/G suffixes); overrides the workload's")
	repeat := fs.Int("repeat", 1, "time the planning call `N` times and report the median")
	format := fs.String("format", "text", "output format: text, json or csv")
	plotFile := fs.String("plot", "", "also draw the plan's layout to `FILE.png`")
	timeout := fs.Duration("timeout", planTimeout, "give up loading and planning after `DUR` (0: no limit); an exec: planner is killed")
	maxInput := maxInputFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *spec == "" {
		return badUsage("plan: --strategy is required")
	}
	if fs.NArg() != 1 {
		return badUsage("plan: want exactly one WORKLOAD, got %d", fs.NArg())
	}
	if *repeat < 1 {
		return badUsage("plan: --repeat must be >= 1")
	}
	if *timeout < 0 {
		return badUsage("plan: --timeout %s: want a positive duration, or 0 for no limit", *timeout)
	}
	switch *format {
	case "text", "json", "csv":
	default:
		return badUsage("plan: unknown --format %q (valid: text, json, csv)", *format)
	}
	s, err := strategies.Lookup(*spec)
	if err != nil {
		return err
	}
	ctx, cancel := deadline(ctx, *timeout)
	defer cancel()
	w, err := loadTimed(ctx, e, *timeout, "plan", fs.Arg(0), *maxInput)
	if err != nil {
		return err
	}
	p := w.Problem
	if err := setAlign("plan", p, *alignStr); err != nil {
		return err
	}

	var plan *strategies.Plan
	var secs float64
	err = withTimeout(ctx, *timeout, func(ctx context.Context) (err error) {
		plan, secs, err = timePlan(ctx, s, p, *repeat)
		return err
	})
	if err != nil {
		return fmt.Errorf("plan: %s on %s: %w", *spec, w.Spec, err)
	}
	if err := strategies.Validate(p, plan); err != nil {
		return fmt.Errorf("plan: %s on %s returned an invalid plan: %w", *spec, w.Spec, err)
	}
	lb := strategies.LowerBounds(p)
	if *plotFile != "" {
		if err := plotLayout(*plotFile, p, plan, *spec); err != nil {
			return err
		}
	}

	switch *format {
	case "json":
		out := planOutput{
			Strategy: *spec, Footprint: plan.Footprint, Arena: plan.Arena, Persistent: p.PersistentBytes(),
			LowerBound: lb.Load,
			Seconds:    secs, Offsets: plan.Offsets,
			Bound: plan.Bound, Optimal: plan.Optimal, Nodes: plan.Nodes,
			Forms: p.Forms().String(), Spaces: spaceStats(p, plan, lb),
		}
		if out.Offsets == nil {
			out.Offsets = []int64{}
		}
		if plan.IsObjects() {
			out.LBObjects = &lb.Objects
			ids := plan.ObjectIDs
			out.ObjectIDs = &ids
			sizes := plan.ObjectSizes
			if sizes == nil {
				sizes = []int64{}
			}
			out.ObjectSizes = &sizes
		}
		if plan.ObjectShapes != nil {
			out.SizeType, out.ElementSize = p.SizeType.String(), p.ElementSize
			out.ObjectShapes = make([][]int64, len(plan.ObjectShapes))
			for k, o := range plan.ObjectShapes {
				out.ObjectShapes[k] = o[:p.SizeType.Dims()]
			}
		}
		enc := json.NewEncoder(e.stdout)
		return enc.Encode(out)
	case "csv":
		fmt.Fprintln(e.stdout, "id,offset")
		for i := range p.Buffers {
			fmt.Fprintf(e.stdout, "%s,%d\n", p.IDText(i), plan.Offsets[i])
		}
		return nil
	}
	fmt.Fprintf(e.stdout, labelFormat+"%s (%d buffers)\n", "workload", w.Spec, len(p.Buffers))
	fmt.Fprintf(e.stdout, labelFormat+"%s\n", "strategy", *spec)
	if f := p.Forms(); f != 0 {
		fmt.Fprintf(e.stdout, labelFormat+"%s\n", "forms", f)
	}
	writeBounds(e.stdout, plan, lb)
	writeSpaces(e.stdout, spaceStats(p, plan, lb))
	if plan.Arena != 0 {
		fmt.Fprintf(e.stdout, labelFormat+"%d bytes (%s): what the runtime asks for, sizes rounded up\n", "arena (runtime)", plan.Arena, humanBytes(plan.Arena))
	}
	if n := p.PersistentBytes(); n > 0 {
		fmt.Fprintf(e.stdout, labelFormat+"%d bytes of variable tensors, outside the planned arena\n", "persistent", n)
	}
	if plan.IsObjects() {
		fmt.Fprintf(e.stdout, labelFormat+"%d\n", "objects", len(plan.ObjectSizes))
	}
	if plan.ObjectShapes != nil {
		writeShapes(e.stdout, p, plan)
	}
	if plan.Bound > 0 {
		fmt.Fprintf(e.stdout, labelFormat+"%d bytes  %s\n", "bound (proved)", plan.Bound, provedWord(plan.Optimal))
	}
	if plan.Nodes > 0 {
		fmt.Fprintf(e.stdout, labelFormat+"%d\n", "search nodes", plan.Nodes)
	}
	fmt.Fprintf(e.stdout, labelFormat+"%s (median of %d)\n", "time", time.Duration(secs*float64(time.Second)), *repeat)
	return nil
}

// writeShapes prints the texture or BHWC assignment of a plan as TFLite
// reports it (ObjectsAssignment: each tensor's object id, each object's
// extents), with each object's bytes beside its extents.
func writeShapes(w io.Writer, p *workloads.Problem, plan *strategies.Plan) {
	dims := p.SizeType.Dims()
	fmt.Fprintf(w, labelFormat+"%s (%s), %d-byte elements; footprints are bytes\n", "size type", p.SizeType, strings.Join(p.SizeType.Columns(), ","), p.ElementSize)
	ids := make([]string, len(plan.ObjectIDs))
	for i, id := range plan.ObjectIDs {
		ids[i] = strconv.Itoa(id)
	}
	fmt.Fprintf(w, labelFormat+"%s\n", "object ids", strings.Join(ids, " "))
	for k, o := range plan.ObjectShapes {
		fmt.Fprintf(w, labelFormat+"%s  %d bytes\n", fmt.Sprintf("  object %d", k), o.Format(dims), plan.ObjectSizes[k])
	}
}

// provedWord says whether a proved bound makes the plan optimal.
func provedWord(optimal bool) string {
	if optimal {
		return "optimal"
	}
	return "not proved optimal"
}

// labelFormat prints the label column of plan's and validate's text.
const labelFormat = "%-23s"

// writeBounds prints a plan's footprint and the lower bounds it is
// measured against, named as in the JSON: lower_bound is "lower bound
// (LB_load)", lb_objects "LB_objects", the latter for object plans only,
// which alone it bounds.
func writeBounds(w io.Writer, plan *strategies.Plan, lb strategies.Bounds) {
	fmt.Fprintf(w, labelFormat+"%d bytes (%s)\n", "footprint", plan.Footprint, humanBytes(plan.Footprint))
	fmt.Fprintf(w, labelFormat+"%d bytes  ratio %s\n", "lower bound (LB_load)", lb.Load, ratio(plan.Footprint, lb.Load))
	if plan.IsObjects() {
		fmt.Fprintf(w, labelFormat+"%d bytes  ratio %s\n", "LB_objects", lb.Objects, ratio(plan.Footprint, lb.Objects))
	}
}

// spaceStats returns each memory space's footprint, LB_load and capacity
// for a problem with several (plan.Footprints), else nil.
func spaceStats(p *workloads.Problem, plan *strategies.Plan, lb strategies.Bounds) []results.SpaceStat {
	if plan.Footprints == nil || lb.Loads == nil {
		return nil
	}
	out := make([]results.SpaceStat, len(plan.Footprints))
	for m, fp := range plan.Footprints {
		out[m] = results.SpaceStat{Name: p.Memories[m].Name, Footprint: fp, LBLoad: lb.Loads[m], Capacity: p.Memories[m].Capacity}
	}
	return out
}

// writeSpaces prints one line per memory space: its footprint, LB_load
// and capacity.
func writeSpaces(w io.Writer, spaces []results.SpaceStat) {
	for _, s := range spaces {
		line := fmt.Sprintf("%d bytes (%s)  LB_load %d bytes  ratio %s", s.Footprint, humanBytes(s.Footprint), s.LBLoad, ratio(s.Footprint, s.LBLoad))
		if s.Capacity > 0 {
			line += fmt.Sprintf("  capacity %d bytes", s.Capacity)
		}
		fmt.Fprintf(w, labelFormat+"%s\n", "  space "+s.Name, line)
	}
}

// planTimeout is plan's default --timeout: a planner that runs longer on
// one workload is stuck or far outside its range, and says so rather than
// hanging.
const planTimeout = 10 * time.Minute

// timeoutGrace is how long a timed-out command waits for its work to
// return after cancelling it: long enough for an exec: planner to be
// killed and reaped (strategies wait a second for its pipes).
const timeoutGrace = 3 * time.Second

// timeoutError is a --timeout that expired: the work failed (exit 1).
type timeoutError struct{ d time.Duration }

func (e timeoutError) Error() string {
	return fmt.Sprintf("timed out after %s; use --timeout DUR to raise it (0: no limit)", e.d)
}

// deadline returns ctx ending after d (0: no limit): the --timeout that
// covers loading the workload and the work on it, each run by withTimeout
// under it.
func deadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d == 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// loadTimed loads a workload under --timeout d and --max-input: a file
// that takes longer to read than d is a timeout, as slow work is.
func loadTimed(ctx context.Context, e *env, d time.Duration, cmd, spec, maxInput string) (*workloads.Workload, error) {
	var w *workloads.Workload
	err := withTimeout(ctx, d, func(context.Context) (err error) {
		w, err = e.loadMax(spec, maxInput)
		return err
	})
	var te timeoutError
	if errors.As(err, &te) {
		return nil, fmt.Errorf("%s: loading %s: %w", cmd, spec, err)
	}
	return w, err
}

// withTimeout runs work under a context that ends after d (0: no limit).
// It returns once the context has ended and work has returned, or
// timeoutGrace later if work ignores its context: the process is about to
// exit, so the abandoned goroutine costs nothing.
func withTimeout(ctx context.Context, d time.Duration, work func(context.Context) error) error {
	if d == 0 {
		return work(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- work(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case err = <-done:
		case <-time.After(timeoutGrace):
			err = ctx.Err()
		}
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return timeoutError{d}
	}
	return err
}

// setAlign applies an --align flag value (empty: keep the workload's).
func setAlign(cmd string, p *workloads.Problem, s string) error {
	if s == "" {
		return nil
	}
	a, err := workloads.ParseBytes(s)
	if err != nil || a < 1 {
		return badUsage("%s: --align %q: want a positive byte size", cmd, s)
	}
	p.Alignment = a
	return nil
}

// timePlan runs the planning call repeat times and returns the last plan
// and the median wall time in seconds of the call alone.
func timePlan(ctx context.Context, s strategies.Strategy, p *workloads.Problem, repeat int) (*strategies.Plan, float64, error) {
	var plan *strategies.Plan
	times := make([]float64, repeat)
	for i := range times {
		start := time.Now()
		pl, err := s.Plan(ctx, p)
		times[i] = time.Since(start).Seconds()
		if err != nil {
			return nil, 0, err
		}
		plan = pl
	}
	med, _ := stats.Median(times)
	return plan, med, nil
}

func ratio(a, b int64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", float64(a)/float64(b))
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.2f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
