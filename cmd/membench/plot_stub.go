package main

import (
	"errors"

	"membench/strategies"
	"membench/workloads"
)

func plotLayout(file string, p *workloads.Problem, plan *strategies.Plan, title string) error {
	return errors.New("plot: not yet available")
}
