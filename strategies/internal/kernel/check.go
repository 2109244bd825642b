package kernel

import (
	"fmt"

	"membench/workloads"
)

// RecordError reports the first buffer TFLite's planners cannot assign:
// one whose First is after its Last, or with a negative size.
func RecordError(strategy string, bufs []workloads.Buffer) error {
	for i, b := range bufs {
		if b.First > b.Last {
			return fmt.Errorf("%s: Error while calculating the assignment: buffer %d (id %d) has first task %d after last task %d",
				strategy, i, b.ID, b.First, b.Last)
		}
		if b.Size < 0 {
			return fmt.Errorf("%s: buffer %d (id %d) has negative size %d", strategy, i, b.ID, b.Size)
		}
	}
	return nil
}

// CtxCheckEvery is how many tensors a planner places between checks of
// its context: cheap enough to vanish, frequent enough to stop in well
// under 100 ms.
const CtxCheckEvery = 1024
