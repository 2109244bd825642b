package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"membench/results"
	"membench/results/plot"
	"membench/strategies"
	"membench/workloads"
)

// Plot kinds, as `membench plot --kind` takes them.
var PlotKinds = []string{"footprint", "scaling", "layout", "timeline", "distribution"}

// layoutMaxN bounds the workloads drawn as layouts: beyond it the
// rectangles are too thin to read.
const layoutMaxN = 1000

// drawPlots writes the figures of kind ("" for all) into dir from the
// records. Layouts and timelines are recomputed from the recorded specs,
// since plans and replays are deterministic: the layout of the best
// strategy and the timeline of every allocator, on the first workload of
// at most layoutMaxN buffers.
func drawPlots(ctx context.Context, dir string, recs []results.Record, kind string) ([]string, error) {
	files, err := plot.WriteAll(dir, recs, kind)
	if err != nil {
		return files, err
	}
	var groups []*results.Group
	if kind == "" || kind == "layout" || kind == "timeline" {
		groups = results.Aggregate(recs)
	}
	if kind == "" || kind == "layout" {
		var best *results.Group
		for _, g := range groups {
			if g.Kind != results.KindStrategy || g.OK == 0 || g.N > layoutMaxN || g.N == 0 {
				continue
			}
			if best != nil && g.Workload != best.Workload {
				break
			}
			if best == nil || g.Footprint < best.Footprint {
				best = g
			}
		}
		if best != nil {
			f := filepath.Join(dir, "layout.png")
			if err := drawLayout(ctx, f, best.Workload, best.Subject); err != nil {
				return files, err
			}
			files = append(files, f)
		}
	}
	if kind == "" || kind == "timeline" {
		workload := ""
		for _, g := range groups {
			if g.Kind != results.KindAllocator || g.OK == 0 || g.N > layoutMaxN*10 {
				continue
			}
			if workload == "" {
				workload = g.Workload
			}
			if g.Workload != workload {
				continue
			}
			f := filepath.Join(dir, "timeline-"+results.Slug(g.Subject)+".png")
			if err := drawTimeline(ctx, f, g.Workload, g.Subject); err != nil {
				return files, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// drawLayout re-plans a workload and draws the plan.
func drawLayout(ctx context.Context, file, workload, subject string) error {
	w, err := workloads.Load(workload)
	if err != nil {
		return err
	}
	s, err := strategies.Lookup(subject)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pl, err := s.Plan(ctx, w.Problem)
	if err != nil {
		return fmt.Errorf("layout: %s on %s: %w", subject, workload, err)
	}
	if err := strategies.Validate(w.Problem, pl); err != nil {
		return fmt.Errorf("layout: %s on %s: invalid plan: %w", subject, workload, err)
	}
	return plot.Layout(file, w.Problem.Buffers, pl.Offsets, subject+" on "+workload)
}

// Replot regenerates the plots of a sweep folder from its results. It
// holds the folder's lock, and removes what an interrupted write left.
func Replot(ctx context.Context, dir, kind string) ([]string, error) {
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
	return drawPlots(ctx, plotDir, recs, kind)
}
