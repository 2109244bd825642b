package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"membench/strategies"
	"membench/workloads"
)

func init() {
	register(&command{
		name:    "validate",
		usage:   "--plan FILE [--align BYTES] [--format text|json] [--max-input SIZE] WORKLOAD",
		summary: "Score an external solution: check it against the workload and report footprint and lower bounds.",
		run:     runValidate,
	})
}

func runValidate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["validate"])
	planFile := fs.String("plan", "", "the solution `FILE`: id,offset lines (CSV, ids as in the workload) or plan JSON as 'membench plan --format json' prints")
	alignStr := fs.String("align", "", "offset alignment in `BYTES` (K/M/G suffixes) the plan must honour; overrides the workload's")
	format := fs.String("format", "text", "output format: text or json")
	maxInput := maxInputFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *planFile == "" || fs.NArg() != 1 {
		return badUsage("validate: want --plan FILE and one WORKLOAD")
	}
	if *format != "text" && *format != "json" {
		return badUsage("validate: unknown --format %q (valid: text, json)", *format)
	}
	w, err := e.loadMax(fs.Arg(0), *maxInput)
	if err != nil {
		return err
	}
	p := w.Problem
	if err := setAlign("validate", p, *alignStr); err != nil {
		return err
	}
	data, err := os.ReadFile(*planFile)
	if err != nil {
		return &workloads.InputError{File: *planFile, Msg: "cannot read: " + unwrapPath(err).Error()}
	}
	plan, err := strategies.ReadPlan(*planFile, data, p)
	if err != nil {
		return err
	}
	spacePlan(p, plan)
	lb := strategies.LowerBounds(p)
	verr := strategies.Validate(p, plan)
	if *format == "json" {
		out := map[string]any{"valid": verr == nil, "footprint": plan.Footprint, "lower_bound": lb.Load,
			"ratio": ratioValue(plan.Footprint, lb.Load)}
		if plan.IsObjects() {
			out["lb_objects"] = lb.Objects
		}
		if verr != nil {
			out["error"] = verr.Error()
		}
		if p.Capacity > 0 {
			out["capacity"] = p.Capacity
			out["fits"] = plan.Footprint <= p.Capacity
		}
		if s := spaceStats(p, plan, lb); s != nil {
			out["spaces"] = s
		}
		if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, labelFormat+"%s (%d buffers)\n", "workload", w.Spec, len(p.Buffers))
		if f := p.Forms(); f != 0 {
			fmt.Fprintf(e.stdout, labelFormat+"%s\n", "forms", f)
		}
		writeBounds(e.stdout, plan, lb)
		writeSpaces(e.stdout, spaceStats(p, plan, lb))
		if p.Capacity > 0 {
			fmt.Fprintf(e.stdout, labelFormat+"%d bytes  fits: %v\n", "capacity", p.Capacity, plan.Footprint <= p.Capacity)
		}
		valid := "yes"
		if verr != nil {
			valid = "no"
		}
		fmt.Fprintf(e.stdout, labelFormat+"%s\n", "valid", valid)
	}
	if verr != nil {
		return fmt.Errorf("validate: %s is not a valid plan for %s: %w", *planFile, w.Spec, verr)
	}
	return nil
}

// spacePlan gives a plan read from a file, whose offsets are within each
// memory space, the footprints of a problem with several spaces: each
// space's max(offset+size), and their sum.
func spacePlan(p *workloads.Problem, plan *strategies.Plan) {
	if p.Forms()&workloads.FormMemories == 0 || plan.Footprints != nil || len(plan.Offsets) != len(p.Buffers) {
		return
	}
	plan.Footprints = make([]int64, len(p.Memories))
	for i, b := range p.Buffers {
		m := p.MemoryOf(i)
		plan.Footprints[m] = max(plan.Footprints[m], plan.Offsets[i]+b.Size)
	}
	plan.Footprint = 0
	for _, f := range plan.Footprints {
		plan.Footprint += f
	}
}

// unwrapPath drops the operation and path of a *os.PathError, which the
// caller names itself.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func ratioValue(a, b int64) any {
	if b == 0 {
		return nil
	}
	return float64(a) / float64(b)
}
