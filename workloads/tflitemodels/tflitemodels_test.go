package tflitemodels

import (
	"flag"
	"os"
	"testing"

	"membench/workloads"
	"membench/workloads/derived"
)

var update = flag.Bool("update", false, "rewrite data/*.json from ../shared/models/tflite")

const shared = "../../../shared/models/tflite/"

// TestDerived re-derives every model's usage records from its file in
// ../shared and checks the committed data and the recorded sha256.
func TestDerived(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s absent: %v", shared, err)
	}
	for _, m := range Models {
		derived.Check(t, shared, m.File, m.SHA256, workloads.FormatTFLiteModel, "data/"+m.Name+".json", *update)
	}
}

// TestRegistered checks each registered model's tensor count and LB_load,
// and that its largest tensor and operator count are those of the source.
func TestRegistered(t *testing.T) {
	cases := []struct {
		name    string
		tensors int
		lb      int64
	}{
		{"face-detection-short-range", 165, 1376256},
		{"face-detection-full-range", 355, 3538944},
		{"selfie-segmentation", 247, 3670016},
		{"selfie-segmentation-landscape", 247, 2064384},
		{"hand-landmark-lite", 168, 4217344},
		{"hand-landmark-full", 166, 4018432},
		{"pose-landmark-lite", 306, 6963488},
		{"pose-landmark-full", 333, 9044992},
	}
	if len(cases) != len(Models) {
		t.Fatalf("%d models, %d cases", len(Models), len(cases))
	}
	for _, c := range cases {
		w, err := workloads.Load("tflite/" + c.name)
		if err != nil {
			t.Fatal(err)
		}
		if p := w.Problem; p.Len() != c.tensors || p.LoadBound() != c.lb {
			t.Errorf("%s: %d buffers, LB_load %d; want %d, %d", c.name, p.Len(), p.LoadBound(), c.tensors, c.lb)
		}
		if f := w.Problem.Format; f != workloads.FormatTFLiteModel {
			t.Errorf("%s: format %q, want %q (a .tflite's records)", c.name, f, workloads.FormatTFLiteModel)
		}
	}
}
