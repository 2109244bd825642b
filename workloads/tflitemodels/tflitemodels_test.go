package tflitemodels

import (
	"bytes"
	"flag"
	"os"
	"slices"
	"testing"

	"membench/workloads"
	"membench/workloads/derived"
)

var update = flag.Bool("update", false, "rewrite data/*.json and data/*.gpu.csv from ../shared/models/tflite")

const shared = "../../../shared/models/tflite/"

// TestDerived re-derives every model's usage records from its file in
// ../shared and checks the committed data and the recorded sha256.
func TestDerived(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s absent: %v", shared, err)
	}
	for _, m := range Models {
		derived.Check(t, shared, m.File, m.SHA256, workloads.FormatTFLiteModel, "data/"+m.Name+".json", *update)
		w, err := workloads.Load(shared + m.File + "?storage=bhwc")
		if err != nil {
			t.Fatal(err)
		}
		w.Problem.Name = m.File + "?storage=bhwc"
		var b bytes.Buffer
		if err := workloads.WriteTFLite(&b, w.Problem); err != nil {
			t.Fatal(err)
		}
		derived.Golden(t, "data/"+m.Name+".gpu.csv", b.Bytes(), *update)
	}
}

// TestGPUStorages checks that every registered model, in every storage
// and precision, holds the records its `.tflite` file gives with the same
// options.
func TestGPUStorages(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s absent: %v", shared, err)
	}
	for _, m := range Models {
		for _, st := range workloads.GPUStorageNames()[1:] {
			for _, prec := range []string{"f32", "f16"} {
				opts := "?storage=" + st + "&precision=" + prec
				reg, err := workloads.Load("tflite/" + m.Name + opts)
				if err != nil {
					t.Fatal(err)
				}
				file, err := workloads.Load(shared + m.File + opts)
				if err != nil {
					t.Fatal(err)
				}
				r, f := reg.Problem, file.Problem
				if r.SizeType != f.SizeType || r.ElementSize != f.ElementSize || !slices.Equal(r.Buffers, f.Buffers) || !slices.Equal(r.Shapes, f.Shapes) {
					t.Errorf("%s%s: the registered records differ from the file's", m.Name, opts)
				}
			}
		}
	}
}

// TestRegistered checks each registered model's tensor count and LB_load,
// and the GPU delegate's record count (its tensors less the DEQUANTIZE
// outputs of FLOAT16 weights).
func TestRegistered(t *testing.T) {
	cases := []struct {
		name    string
		tensors int
		lb      int64
		gpu     int // the GPU delegate's records (storage=bhwc)
	}{
		{"face-detection-short-range", 165, 1376256, 91},
		{"face-detection-full-range", 355, 3538944, 177},
		{"selfie-segmentation", 247, 3670016, 137},
		{"selfie-segmentation-landscape", 247, 2064384, 137},
		{"hand-landmark-lite", 168, 4217344, 66},
		{"hand-landmark-full", 166, 4018432, 64},
		{"pose-landmark-lite", 306, 6963488, 130},
		{"pose-landmark-full", 333, 9044992, 141},
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
		g, err := workloads.Load("tflite/" + c.name + "?storage=bhwc")
		if err != nil {
			t.Fatal(err)
		}
		if g.Problem.Len() != c.gpu || g.Problem.SizeType != workloads.SizeBHWC {
			t.Errorf("%s?storage=bhwc: %d %s records, want %d bhwc", c.name, g.Problem.Len(), g.Problem.SizeType, c.gpu)
		}
		if f := w.Problem.Format; f != workloads.FormatTFLiteModel {
			t.Errorf("%s: format %q, want %q (a .tflite's records)", c.name, f, workloads.FormatTFLiteModel)
		}
	}
}
