package harness

import (
	"context"
	"errors"

	"membench/results"
	"membench/workloads"
)

func runAllocator(ctx context.Context, c Cell, w *workloads.Workload, rec *results.Record) error {
	return errors.New("allocator cells: not yet available")
}

func drawTimeline(ctx context.Context, file, workload, subject string) error {
	return errors.New("timeline: not yet available")
}
