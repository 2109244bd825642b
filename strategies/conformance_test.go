package strategies_test

import (
	"maps"
	"slices"
	"testing"

	"membench/strategies"
	"membench/strategies/strategytest"
)

// designStrategies are the planners DESIGN §4 requires, with their kinds.
var designStrategies = map[string]strategies.Kind{
	"naive":                 strategies.Objects,
	"equality":              strategies.Objects,
	"greedy-in-order":       strategies.Objects,
	"greedy-by-breadth":     strategies.Objects,
	"greedy-by-size":        strategies.Objects,
	"greedy-best":           strategies.Objects,
	"min-cost-flow":         strategies.Objects,
	"offset-greedy-by-size": strategies.Offsets,
}

// TestConformance runs the strategytest suite over every registered
// strategy, and requires the eight planners of DESIGN §4.
func TestConformance(t *testing.T) {
	registered := map[string]strategies.Info{}
	for _, info := range strategies.All() {
		registered[info.Name] = info
	}
	for _, name := range slices.Sorted(maps.Keys(designStrategies)) {
		kind := designStrategies[name]
		info, ok := registered[name]
		switch {
		case !ok:
			t.Errorf("strategy %q of DESIGN §4 is not registered (registered: %v)", name, strategies.Names())
		case info.Kind != kind:
			t.Errorf("strategy %q is registered as kind %q, want %q", name, info.Kind, kind)
		}
	}
	for _, info := range strategies.All() {
		if info.Kind == strategies.External {
			continue // needs an external program; tested where it is built
		}
		t.Run(info.Name, func(t *testing.T) {
			s, err := strategies.Lookup(suiteSpec(info.Name))
			if err != nil {
				t.Fatalf("Lookup(%q): %v", suiteSpec(info.Name), err)
			}
			if solverMissing(s) {
				t.Skip("its solver is not installed")
			}
			strategytest.Run(t, s, info.Kind)
		})
	}
}
