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
