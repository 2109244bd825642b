package main

// Plug-in packages register themselves from init().
import (
	_ "membench/strategies/exact"
	_ "membench/workloads/minimalloc"
	_ "membench/workloads/recorded"
	_ "membench/workloads/synthetic"
	_ "membench/workloads/tflitemodels"
	_ "membench/workloads/zoo"
)
