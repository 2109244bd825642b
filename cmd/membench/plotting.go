package main

import (
	"membench/results/plot"
	"membench/strategies"
	"membench/workloads"
)

// plotLayout draws a plan's layout for `plan --plot`.
func plotLayout(file string, p *workloads.Problem, pl *strategies.Plan, title string) error {
	return plot.Layout(file, p.Buffers, pl.Offsets, title+" on "+p.Name)
}
