package harness

import (
	"maps"
	"testing"
)

// TestBenchConfigLeavesOutSweepName: benchstat compares only results whose
// configuration lines agree, so two sweeps of one setup under different
// names must write the same configuration.
func TestBenchConfigLeavesOutSweepName(t *testing.T) {
	a, b := tinyConfig(t), tinyConfig(t)
	a.Name, b.Name = "before", "after"
	ca, cb := newManifest(a, "", 1, 1).benchConfig(), newManifest(b, "", 1, 1).benchConfig()
	if !maps.Equal(ca, cb) {
		t.Errorf("results.txt configuration differs between sweep names: %v vs %v", ca, cb)
	}
	for k, v := range ca {
		if v == "before" {
			t.Errorf("configuration key %q holds the sweep name", k)
		}
	}
}
