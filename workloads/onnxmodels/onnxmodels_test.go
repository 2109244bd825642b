package onnxmodels

import (
	"flag"
	"os"
	"testing"

	"membench/workloads"
	"membench/workloads/derived"
)

var update = flag.Bool("update", false, "rewrite data/*.json from the .onnx files")

// dir is where the exported files are: MEMBENCH_ONNX_DIR (then required:
// CI exports them there), else ../shared/models/onnx.
func dir() string {
	if d := os.Getenv("MEMBENCH_ONNX_DIR"); d != "" {
		return d
	}
	return "../../../shared/models/onnx"
}

// TestDerived re-derives every model's usage records from its file and
// checks the committed data and the recorded sha256.
func TestDerived(t *testing.T) {
	if _, err := os.Stat(dir()); err != nil {
		if os.Getenv("MEMBENCH_ONNX_DIR") != "" {
			t.Fatalf("MEMBENCH_ONNX_DIR: %v", err)
		}
		t.Skipf("%s absent (export with scripts/onnx/export.py and set MEMBENCH_ONNX_DIR): %v", dir(), err)
	}
	for _, m := range Models {
		derived.Check(t, dir(), m.Name+".onnx", m.SHA256, workloads.FormatONNXModel, "data/"+m.Name+".json", *update)
	}
}

// TestRegistered checks each registered model's buffer count, task count
// and LB_load: ResNet-50's 123 buffers are its input and the outputs of
// its 53 Conv, 49 Relu, 16 Add, MaxPool, GlobalAveragePool, Flatten and
// Gemm (the 47 Identity nodes of weights are folded).
func TestRegistered(t *testing.T) {
	cases := []struct {
		name           string
		buffers, tasks int
		lb             int64
	}{
		{"resnet-50", 123, 122, 9633792},
		{"mobilenet-v2", 101, 100, 9633792},
		{"bert-base", 401, 400, 5111808},
	}
	if len(cases) != len(Models) {
		t.Fatalf("%d models, %d cases", len(Models), len(cases))
	}
	for _, c := range cases {
		w, err := workloads.Load("onnx/" + c.name)
		if err != nil {
			t.Fatal(err)
		}
		p := w.Problem
		tasks := 0
		for _, b := range p.Buffers {
			tasks = max(tasks, b.Last+1)
		}
		if p.Len() != c.buffers || tasks != c.tasks || p.LoadBound() != c.lb {
			t.Errorf("%s: %d buffers, %d tasks, LB_load %d; want %d, %d, %d", c.name, p.Len(), tasks, p.LoadBound(), c.buffers, c.tasks, c.lb)
		}
		if p.Format != workloads.FormatONNXModel {
			t.Errorf("%s: format %q, want %q", c.name, p.Format, workloads.FormatONNXModel)
		}
	}
}
