package fieldsets_test

import (
	"strings"
	"testing"

	"membench/harness"
	_ "membench/plugins"
	"membench/results/best"
	"membench/workloads"
	"membench/workloads/fieldsets"
)

// TestBestKnown: the shipped best-known table has an entry for every
// shipped instance (the field's sets, MiniMalloc's, the TFLite and ONNX
// models) and every known-optimum instance of the default suite,
// and reaches the optimum each of those was built with (capacity), proved.
func TestBestKnown(t *testing.T) {
	cfg, err := harness.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	var specs []string
	for _, s := range fieldsets.Sets {
		specs = append(specs, s.Name)
	}
	// The other shipped instances and models: MiniMalloc's, the TFLite and
	// ONNX models' records.
	for _, info := range workloads.All() {
		for _, prefix := range []string{"minimalloc/", "tflite/", "onnx/"} {
			if strings.HasPrefix(info.Name, prefix) {
				specs = append(specs, info.Name)
			}
		}
	}
	planted := map[string]bool{}
	for _, e := range cfg.Workloads {
		expanded, err := harness.Expand(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range expanded {
			if strings.HasPrefix(s, "synthetic/tiling") || strings.HasPrefix(s, "synthetic/pinwheel") {
				specs, planted[s] = append(specs, s), true
			}
		}
	}
	if len(planted) < 4 {
		t.Errorf("the default suite has %d known-optimum instances, want one of each of the 4 families", len(planted))
	}
	table := best.Shipped()
	for _, s := range specs {
		w, err := workloads.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		p := w.Problem
		e := table[harness.Hash(p)]
		switch {
		case e == nil:
			t.Errorf("%s: no best-known entry (scripts/configs/best-known.toml)", s)
		case e.N != p.Len() || e.LBLoad != p.LoadBound():
			t.Errorf("%s: entry for %d buffers, LB_load %d; the problem has %d, %d", s, e.N, e.LBLoad, p.Len(), p.LoadBound())
		case planted[s] && (e.Footprint != p.Capacity || !e.Optimal):
			t.Errorf("%s: best %d (optimal %v), want the planted optimum %d, proved", s, e.Footprint, e.Optimal, p.Capacity)
		}
	}
}
