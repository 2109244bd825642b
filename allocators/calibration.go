package allocators

import "membench/workloads"

// Calibration compares a replay of a recorded trace with what the
// recording says of the allocator's own memory (workloads.Recording):
// the evidence that what-if figures from the replay can be trusted.
type Calibration struct {
	// RecordedPeakReserved is the recording's peak of reserved bytes,
	// PeakReserved the replay's.
	RecordedPeakReserved int64 `json:"recorded_peak_reserved"`
	PeakReserved         int64 `json:"peak_reserved"`
	// RecordedStartReserved is what the recording's allocator held when
	// the trace began; FromRecordedCache says the replay started from it.
	RecordedStartReserved int64 `json:"recorded_start_reserved"`
	FromRecordedCache     bool  `json:"from_recorded_cache"`
	// The segment allocations and frees of the recording and of the
	// replay (nil where the allocator does not report them); EmptyCaches
	// the empty_cache() calls the recording's frees became.
	RecordedSegmentAllocs int  `json:"recorded_segment_allocs"`
	RecordedSegmentFrees  int  `json:"recorded_segment_frees"`
	RecordedEmptyCaches   int  `json:"recorded_empty_caches"`
	SegmentAllocs         *int `json:"segment_allocs"`
	SegmentFrees          *int `json:"segment_frees"`
	// Departure is the first segment allocation or free where the replay
	// departs from the recording, by kind and size in order; nil where
	// they agree throughout, or the allocator does not report segments.
	Departure *SegmentDeparture `json:"departure"`
}

// SegmentDeparture is the Index-th segment allocation or free (from 0),
// as recorded and as replayed; nil on the side that had none left.
type SegmentDeparture struct {
	Index    int                     `json:"index"`
	Recorded *workloads.SegmentEvent `json:"recorded"`
	Replayed *workloads.SegmentEvent `json:"replayed"`
}

// Calibrate compares res, a replay of tr, with tr's recording; nil when tr
// has none.
func Calibrate(tr *workloads.Trace, res *ReplayResult) *Calibration {
	r := tr.Recording
	if r == nil {
		return nil
	}
	c := &Calibration{RecordedPeakReserved: r.PeakReserved, PeakReserved: res.PeakReserved,
		RecordedStartReserved: r.Reserved, FromRecordedCache: res.Seeded, RecordedEmptyCaches: r.EmptyCaches}
	c.RecordedSegmentAllocs, c.RecordedSegmentFrees = countSegments(r.Segments)
	if !res.SegmentsLogged {
		return c
	}
	a, f := countSegments(res.Segments)
	c.SegmentAllocs, c.SegmentFrees = &a, &f
	for i := 0; i < max(len(r.Segments), len(res.Segments)); i++ {
		var rec, rep *workloads.SegmentEvent
		if i < len(r.Segments) {
			rec = &r.Segments[i]
		}
		if i < len(res.Segments) {
			rep = &res.Segments[i]
		}
		if rec == nil || rep == nil || rec.Free != rep.Free || rec.Size != rep.Size {
			c.Departure = &SegmentDeparture{Index: i, Recorded: rec, Replayed: rep}
			break
		}
	}
	return c
}

func countSegments(evs []workloads.SegmentEvent) (allocs, frees int) {
	for _, e := range evs {
		if e.Free {
			frees++
		} else {
			allocs++
		}
	}
	return allocs, frees
}
