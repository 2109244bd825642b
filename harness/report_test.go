package harness

import (
	"maps"
	"testing"

	"membench/results"
)

// TestSubjectRuntimes maps recorded strategy specs to their registered
// runtimes, parameters and all; exec: planners and allocators have none.
func TestSubjectRuntimes(t *testing.T) {
	var recs []results.Record
	for _, s := range []struct{ subject, kind string }{
		{"xla-heap", results.KindStrategy}, {"greedy-by-size", results.KindStrategy},
		{"tflite-arena?align=16", results.KindStrategy}, {"best-of?of=naive,tflm-greedy", results.KindStrategy},
		{"exec:./planner --fast", results.KindStrategy}, {"bfc", results.KindAllocator},
	} {
		recs = append(recs, results.Record{Subject: s.subject, Kind: s.kind})
	}
	want := map[string]string{
		"xla-heap": "xla", "greedy-by-size": "tflite-gpu", "tflite-arena?align=16": "tflite",
		"best-of?of=naive,tflm-greedy": "membench",
	}
	if got := subjectRuntimes(recs); !maps.Equal(got, want) {
		t.Errorf("subjectRuntimes = %v, want %v", got, want)
	}
}
