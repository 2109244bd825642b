package main

import (
	"membench/allocators"
	"membench/results/plot"
	"membench/strategies"
	"membench/workloads"
)

// plotLayout draws a plan's layout for `plan --plot`.
func plotLayout(file string, p *workloads.Problem, pl *strategies.Plan, title string) error {
	return plot.Layout(file, p.Buffers, pl.Offsets, title+" on "+p.Name)
}

// plotTimeline draws a replay's in-use and reserved bytes for `replay --plot`.
func plotTimeline(file string, res *allocators.ReplayResult, title string) error {
	pts := make([]plot.TimelinePoint, len(res.Timeline))
	for i, p := range res.Timeline {
		pts[i] = plot.TimelinePoint{InUse: p.InUse, Reserved: p.Reserved}
	}
	return plot.Timeline(file, pts, title)
}
