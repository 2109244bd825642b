package main

import (
	"strings"

	"membench/allocators"
	"membench/results"
	"membench/results/plot"
	"membench/strategies"
	"membench/workloads"
)

// plotLayout draws a plan's layout for `plan --plot`, in the format of
// file's extension (.png, .svg or .pdf).
func plotLayout(file string, p *workloads.Problem, pl *strategies.Plan, title string) error {
	if _, err := plot.FormatOf(file); err != nil {
		return &workloads.UsageError{Msg: "--plot: " + err.Error()}
	}
	fig, err := plot.LayoutFigure(p.Buffers, pl.Offsets, results.ShortLabel(title)+" on "+results.ShortLabel(p.Name))
	if err != nil {
		return err
	}
	return fig.Save(file, plot.Page)
}

// plotTimeline draws a replay's in-use and reserved bytes for `replay
// --plot`, in the format of file's extension; title is "SPEC on WORKLOAD".
func plotTimeline(file string, res *allocators.ReplayResult, title string) error {
	if _, err := plot.FormatOf(file); err != nil {
		return &workloads.UsageError{Msg: "--plot: " + err.Error()}
	}
	subject, workload, _ := strings.Cut(title, " on ")
	pn := plot.TimelinePanel{Subject: subject, Points: make([]plot.TimelinePoint, len(res.Timeline))}
	for i, p := range res.Timeline {
		pn.Points[i] = plot.TimelinePoint{InUse: p.InUse, Reserved: p.Reserved, Allocated: p.Allocated}
	}
	fig, err := plot.TimelineFigure(results.ShortLabel(subject)+" on "+results.ShortLabel(workload), []plot.TimelinePanel{pn}, nil)
	if err != nil {
		return err
	}
	return fig.Save(file, plot.Page)
}
