package recorded

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"membench/workloads"
)

// TestRecorder runs scripts/record/record.py on a tiny model where a
// Python with torch is at hand (Debian's python3-torch; skipped elsewhere:
// the recorder is optional for membench) and loads what it wrote: an
// inference trace, a training-step trace and a static graph, each with its
// provenance.
func TestRecorder(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import torch, torchvision").Run(); err != nil {
		t.Skipf("%s has no torch and torchvision: %v", py, err)
	}
	out := t.TempDir()
	cmd := exec.Command(py, "../../scripts/record/record.py", "tinymodel:build", "--name", "tiny", "--out", out)
	cmd.Env = append(os.Environ(), "PYTHONPATH=../../scripts/record/testdata")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("record.py: %v\n%s", err, b)
	}
	// The graph: the input (4x64 fp32), both linear outputs and the ReLU's.
	want := map[string]int{"tiny.infer.trace": 0, "tiny.train.trace": 0, "tiny.graph.json": 4}
	for file, n := range want {
		path := filepath.Join(out, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"torch", "torchvision", "model", "batch", "dtype", "command", "date"} {
			if !strings.Contains(string(data), p) {
				t.Errorf("%s: no provenance %q", file, p)
			}
		}
		w, err := workloads.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if w.Problem.Len() == 0 || n > 0 && w.Problem.Len() != n {
			t.Errorf("%s: %d tensors, want %d (0: any)", file, w.Problem.Len(), n)
		}
		// The ReLU reads the first layer's 4 KiB output and writes its own.
		if lb := w.Problem.LoadBound(); n > 0 && lb != 8192 {
			t.Errorf("%s: LB_load %d, want 8192", file, lb)
		}
	}
}
