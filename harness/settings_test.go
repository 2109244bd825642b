package harness

import (
	"context"
	"testing"
	"time"

	"membench/allocators"
	"membench/results"
	"membench/workloads"
)

// TestCellReplaysRecordedSettings: a sweep cell replays a snapshot under
// its recorded allocator settings, as replay does (settings.pickle was
// recorded with expandable segments: 40 MiB; under the defaults 60 MiB).
func TestCellReplaysRecordedSettings(t *testing.T) {
	const snap = "../workloads/testdata/pytorch/settings.pickle"
	w, err := workloads.Load(snap)
	if err != nil {
		t.Fatal(err)
	}
	f, err := allocators.LookupFor("torch-caching", w.Trace)
	if err != nil {
		t.Fatal(err)
	}
	res, err := allocators.Replay(context.Background(), f.New(), w.Trace, allocators.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var x executor
	rec := x.Execute(context.Background(), Cell{Workload: snap, Subject: "torch-caching", Kind: results.KindAllocator,
		BenchTime: time.Microsecond, Samples: 1})
	if rec.Status != results.StatusOK {
		t.Fatalf("cell: %s %s", rec.Status, rec.Error)
	}
	if rec.Footprint != res.PeakReserved || rec.Footprint != 40<<20 {
		t.Fatalf("cell footprint %d, replay %d; want both %d", rec.Footprint, res.PeakReserved, 40<<20)
	}
}
