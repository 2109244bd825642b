// Package plugins links every plug-in of membench: the packages that
// register strategies and workload families from init() outside packages
// strategies, allocators and workloads themselves. Every binary
// (cmd/membench, scripts/slurm/samecells) and every test that needs the
// full registries imports it blank, so that what a binary knows does not
// depend on which packages it happens to link:
//
//	import _ "membench/plugins"
//
// A new plug-in package is added here and nowhere else.
package plugins

import (
	// The exact offset planner (strategy "exact").
	_ "membench/strategies/exact"
	// MiniMalloc's solver (strategy "minimalloc").
	_ "membench/strategies/minimalloc"
	// idealloc (strategy "idealloc").
	_ "membench/strategies/idealloc"
	// TelaMalloc as OmniMalloc adapts it (strategy "telamalloc").
	_ "membench/strategies/telamalloc"
	// Workload families: MiniMalloc's instances, recorded traces,
	// the field's instance sets (idealloc's, MiniMalloc's small set),
	// synthetic generators, TFLite and ONNX models and the model zoo.
	_ "membench/workloads/fieldsets"
	_ "membench/workloads/minimalloc"
	_ "membench/workloads/onnxmodels"
	_ "membench/workloads/recorded"
	_ "membench/workloads/synthetic"
	_ "membench/workloads/tflitemodels"
	_ "membench/workloads/zoo"
)
