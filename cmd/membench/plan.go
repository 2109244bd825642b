package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/montanaflynn/stats"

	"membench/strategies"
	"membench/workloads"
)

func init() {
	register(&command{
		name:    "plan",
		usage:   "--strategy SPEC [--align BYTES] [--repeat N] [--format text|json|csv] [--plot FILE.png] WORKLOAD",
		summary: "Plan one workload with one strategy, validate the plan and report it.",
		run:     runPlan,
	})
}

// planOutput is the JSON of `plan --format json` (DESIGN §4).
type planOutput struct {
	Strategy   string  `json:"strategy"`
	Footprint  int64   `json:"footprint"`
	LowerBound int64   `json:"lower_bound"`
	LBObjects  int64   `json:"lb_objects"`
	Seconds    float64 `json:"seconds"`
	Offsets    []int64 `json:"offsets"`
	// Pointers, so that an object plan of no buffers still shows both.
	ObjectIDs   *[]int   `json:"object_ids,omitempty"`
	ObjectSizes *[]int64 `json:"object_sizes,omitempty"`

	// Bound and Optimal are what the strategy proved (DESIGN §10).
	Bound   int64 `json:"bound,omitempty"`
	Optimal bool  `json:"optimal,omitempty"`
}

func runPlan(ctx context.Context, e *env, args []string) error {
	c := commands["plan"]
	fs := newFlags(e, c)
	spec := fs.String("strategy", "", "strategy `SPEC` (see 'membench list strategies')")
	alignStr := fs.String("align", "", "offset alignment in `BYTES` (K/M/G suffixes); overrides the workload's")
	repeat := fs.Int("repeat", 1, "time the planning call `N` times and report the median")
	format := fs.String("format", "text", "output format: text, json or csv")
	plotFile := fs.String("plot", "", "also draw the plan's layout to `FILE.png`")
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
	switch *format {
	case "text", "json", "csv":
	default:
		return badUsage("plan: unknown --format %q (valid: text, json, csv)", *format)
	}
	s, err := strategies.Lookup(*spec)
	if err != nil {
		return err
	}
	w, err := workloads.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	p := w.Problem
	if err := setAlign("plan", p, *alignStr); err != nil {
		return err
	}

	plan, secs, err := timePlan(ctx, s, p, *repeat)
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
			Strategy: *spec, Footprint: plan.Footprint, LowerBound: lb.Load,
			LBObjects: lb.Objects, Seconds: secs, Offsets: plan.Offsets,
			Bound: plan.Bound, Optimal: plan.Optimal,
		}
		if out.Offsets == nil {
			out.Offsets = []int64{}
		}
		if plan.IsObjects() {
			ids := plan.ObjectIDs
			out.ObjectIDs = &ids
			sizes := plan.ObjectSizes
			if sizes == nil {
				sizes = []int64{}
			}
			out.ObjectSizes = &sizes
		}
		enc := json.NewEncoder(e.stdout)
		return enc.Encode(out)
	case "csv":
		fmt.Fprintln(e.stdout, "id,offset")
		for i, b := range p.Buffers {
			fmt.Fprintf(e.stdout, "%d,%d\n", b.ID, plan.Offsets[i])
		}
		return nil
	}
	fmt.Fprintf(e.stdout, "workload     %s (%d buffers)\n", w.Spec, len(p.Buffers))
	fmt.Fprintf(e.stdout, "strategy     %s\n", *spec)
	fmt.Fprintf(e.stdout, "footprint    %d bytes (%s)\n", plan.Footprint, humanBytes(plan.Footprint))
	fmt.Fprintf(e.stdout, "LB_load      %d bytes  ratio %s\n", lb.Load, ratio(plan.Footprint, lb.Load))
	fmt.Fprintf(e.stdout, "LB_objects   %d bytes  ratio %s\n", lb.Objects, ratio(plan.Footprint, lb.Objects))
	if plan.IsObjects() {
		fmt.Fprintf(e.stdout, "objects      %d\n", len(plan.ObjectSizes))
	}
	if plan.Bound > 0 {
		fmt.Fprintf(e.stdout, "bound        %d bytes  %s\n", plan.Bound, provedWord(plan.Optimal))
	}
	fmt.Fprintf(e.stdout, "time         %s (median of %d)\n", time.Duration(secs*float64(time.Second)), *repeat)
	return nil
}

// provedWord says whether a proved bound makes the plan optimal.
func provedWord(optimal bool) string {
	if optimal {
		return "proved optimal"
	}
	return "proved lower bound"
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
