package allocators_test

import (
	"context"
	"strings"
	"testing"

	"membench/allocators"
	"membench/workloads"
	_ "membench/workloads/recorded"
)

// TestRecordedTraces replays every recorded PyTorch trace through every
// registered allocator behind the Verifier: 0 overlaps, every byte stamped
// and checked, and peak in use equal to the trace's LB_load.
func TestRecordedTraces(t *testing.T) {
	n := 0
	for _, w := range workloads.All() {
		if !strings.HasPrefix(w.Name, "recorded/") || strings.HasSuffix(w.Name, "/graph") {
			continue
		}
		n++
		wl, err := workloads.Load(w.Name)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := wl.Problem.ToTrace()
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range allocators.All() {
			res, err := allocators.Replay(context.Background(), mustNew(t, info.Name), tr, allocators.ReplayOptions{Verify: true})
			if err != nil {
				t.Errorf("%s under %s: %v", w.Name, info.Name, err)
				continue
			}
			if res.PeakInUse != wl.Problem.LoadBound() {
				t.Errorf("%s under %s: peak in use %d, LB_load %d", w.Name, info.Name, res.PeakInUse, wl.Problem.LoadBound())
			}
		}
	}
	if n < 18 {
		t.Errorf("%d recorded traces, want at least 18 (infer and train of 9 models)", n)
	}
}
