package main

// Plug-in packages register themselves from init().
import (
	_ "membench/strategies/exact"
	_ "membench/workloads/synthetic"
	_ "membench/workloads/zoo"
)
