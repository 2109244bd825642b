package main

import (
	"path/filepath"
	"strings"
	"testing"

	"membench/harness"
)

// TestConfigsRunOnFreshClone expands every example config with every
// plug-in registered, as `membench run --config` does: each workload loads
// and each subject resolves, and none reads from ../shared, so that every
// config runs on a fresh clone with nothing beside it.
func TestConfigsRunOnFreshClone(t *testing.T) {
	paths, _ := filepath.Glob("../../scripts/configs/*.toml")
	if len(paths) < 5 {
		t.Fatalf("found %d example configs, want at least 5", len(paths))
	}
	for _, p := range paths {
		c, err := harness.LoadConfig(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		m, err := c.Expand()
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, w := range m.Workloads {
			if strings.Contains(w, "shared/") {
				t.Errorf("%s: workload %s needs ../shared", p, w)
			}
		}
	}
}
