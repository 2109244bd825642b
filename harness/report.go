package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"membench/results"
	"membench/results/best"
	"membench/results/plot"
	"membench/strategies"
	"membench/workloads"
)

// PlotKinds lists the plot kinds, as `membench plot --kind` takes them.
var PlotKinds = plot.Kinds

// layoutMaxN bounds the workloads drawn as layouts: beyond it the
// rectangles are too thin to read.
const layoutMaxN = 1000

// drawPlots writes the figures of kind ("" for all) into dir from the
// records, as PNG at page width, comparing footprints with the shipped
// best-known table.
func drawPlots(ctx context.Context, dir string, recs []results.Record, kind string, load loader) ([]string, error) {
	return drawPlotsWith(ctx, dir, recs, plot.Options{Kind: kind, Best: best.Known()}, load)
}

// drawPlotsWith writes the figures o asks for into dir from the records.
// Layouts and timelines are recomputed from the recorded specs, since
// plans and replays are deterministic. Unless o names them, the layout is
// the best strategy's on the first workload of at most layoutMaxN buffers,
// and the timeline compares every allocator on the first workload of at
// most 10×layoutMaxN buffers.
func drawPlotsWith(ctx context.Context, dir string, recs []results.Record, o plot.Options, load loader) ([]string, error) {
	if o.Runtimes == nil {
		o.Runtimes = subjectRuntimes(recs)
	}
	files, err := plot.WriteAll(dir, recs, o)
	if err != nil {
		return files, err
	}
	if o.Kind != "" && o.Kind != "layout" && o.Kind != "timeline" {
		return files, nil
	}
	groups := results.Aggregate(recs, o.Best)
	chosen := func(g *results.Group, kind string) bool {
		return g.Kind == kind && g.OK > 0 && g.N > 0 &&
			(o.Workload == "" || g.Workload == o.Workload) && (o.Subject == "" || g.Subject == o.Subject)
	}
	if o.Kind == "" || o.Kind == "layout" {
		var best *results.Group
		for _, g := range groups {
			if !chosen(g, results.KindStrategy) || o.Workload == "" && g.N > layoutMaxN {
				continue
			}
			if best != nil && g.Workload != best.Workload {
				break
			}
			if best == nil || g.Footprint < best.Footprint {
				best = g
			}
		}
		if best == nil && (o.Workload != "" || o.Subject != "") {
			return files, noChoice(dir, "strategy", o)
		}
		if best != nil {
			fs, err := drawLayout(ctx, dir, layoutName(o, best), best.Workload, best.Subject, o, load)
			files = append(files, fs...)
			if err != nil {
				return files, err
			}
		}
	}
	if o.Kind == "" || o.Kind == "timeline" {
		var tl []*results.Group
		for _, g := range groups {
			if !chosen(g, results.KindAllocator) || o.Workload == "" && g.N > layoutMaxN*10 {
				continue
			}
			if len(tl) > 0 && g.Workload != tl[0].Workload {
				continue
			}
			tl = append(tl, g)
		}
		if len(tl) == 0 && (o.Workload != "" || o.Subject != "") {
			return files, noChoice(dir, "allocator", o)
		}
		if len(tl) > 0 {
			fs, err := drawTimelines(ctx, dir, layoutName(o, tl[0]), tl, plot.NewStyles(recs), o, load)
			files = append(files, fs...)
			if err != nil {
				return files, err
			}
		}
	}
	return files, nil
}

// subjectRuntimes maps the recorded strategy specs to the runtime their
// planner is registered with; specs of no registered planner (exec:) are
// left out.
func subjectRuntimes(recs []results.Record) map[string]string {
	runtime := map[string]string{}
	for _, in := range strategies.All() {
		runtime[in.Name] = in.Runtime
	}
	m := map[string]string{}
	for _, r := range recs {
		name, _, _ := strings.Cut(r.Subject, "?")
		if rt, ok := runtime[name]; ok && r.Kind == results.KindStrategy {
			m[r.Subject] = rt
		}
	}
	return m
}

// layoutName names a layout or timeline figure: plain when the harness
// chose it, after the choice where the user made it.
func layoutName(o plot.Options, g *results.Group) string {
	name := "layout"
	if g.Kind == results.KindAllocator {
		name = "timeline"
	}
	if o.Subject != "" {
		name += "-" + results.Slug(results.ShortLabel(g.Subject))
	}
	if o.Workload != "" {
		name += "-" + results.Slug(results.ShortLabel(g.Workload))
	}
	return name
}

// noChoice says that no ok result matches the layout or timeline asked for.
func noChoice(dir, kind string, o plot.Options) error {
	what := "a strategy"
	if kind == "allocator" {
		what = "an allocator"
	}
	if o.Subject != "" {
		what = fmt.Sprintf("%s %q", kind, o.Subject)
	}
	if o.Workload != "" {
		what += fmt.Sprintf(" on workload %q", o.Workload)
	}
	return &workloads.InputError{File: filepath.Join(filepath.Dir(dir), "results.jsonl"),
		Msg: "no ok result of " + what + " to draw"}
}

// drawLayout re-plans a workload and draws the plan.
func drawLayout(ctx context.Context, dir, name, workload, subject string, o plot.Options, load loader) ([]string, error) {
	w, err := load(workload)
	if err != nil {
		return nil, err
	}
	s, err := strategies.Lookup(subject)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pl, err := s.Plan(ctx, w.Problem)
	if err != nil {
		return nil, fmt.Errorf("layout: %s on %s: %w", subject, workload, err)
	}
	if err := strategies.Validate(w.Problem, pl); err != nil {
		return nil, fmt.Errorf("layout: %s on %s: invalid plan: %w", subject, workload, err)
	}
	fig, err := plot.LayoutFigure(w.Problem.Buffers, pl.Offsets, results.ShortLabel(subject)+" on "+results.ShortLabel(workload))
	if err != nil {
		return nil, err
	}
	return o.Write(fig, dir, name)
}

// Replot regenerates the plots of a sweep folder from its results, with
// o.Best as the best-known table. It holds the folder's lock, and removes
// what an interrupted write left.
func Replot(ctx context.Context, dir string, o plot.Options) ([]string, error) {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		release, err := lockDir(dir)
		if err != nil {
			return nil, err
		}
		defer release()
		removeTemps(dir, io.Discard)
	}
	recs, _, err := results.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		return nil, &workloads.InputError{File: filepath.Join(dir, "results.jsonl"), Msg: err.Error()}
	}
	plotDir := filepath.Join(dir, "plots")
	if err := os.MkdirAll(plotDir, 0o755); err != nil {
		return nil, err
	}
	return drawPlotsWith(ctx, plotDir, recs, o, workloads.Load)
}
