package strategies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// TestTFLMCompiledPlanners compares tflm-greedy and tflm-linear with TFLite
// Micro's own planners, compiled and run on random problems at alignments
// 1, 16 and 64 (testdata/upstream/tflm_compiled.json, which holds the
// problems and TFLite Micro's answers): every offset of a
// buffer of positive size, and the arena (Plan.Arena, or the footprint
// where they agree) equal to GetMaximumMemorySize. Most cases at 16 and 64
// have ties between rounded sizes that differ as given.
func TestTFLMCompiledPlanners(t *testing.T) {
	data, err := os.ReadFile("testdata/upstream/tflm_compiled.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Seed      uint64     `json:"seed"`
			Alignment int64      `json:"alignment"`
			Buffers   [][3]int64 `json:"buffers"`
			Greedy    []int64    `json:"greedy"`
			Linear    []int64    `json:"linear"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 100 {
		t.Fatalf("%d cases, want the 106 recorded", len(f.Cases))
	}
	for _, c := range f.Cases {
		p := &workloads.Problem{Name: fmt.Sprintf("seed %d", c.Seed), Alignment: c.Alignment}
		for i, b := range c.Buffers {
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: b[0], First: int(b[1]), Last: int(b[2])})
		}
		for _, run := range []struct {
			name string
			want []int64
		}{{"tflm-greedy", c.Greedy}, {"tflm-linear", c.Linear}} {
			s, err := strategies.Lookup(run.name)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := s.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.want) != len(p.Buffers)+1 {
				t.Fatalf("%s seed %d: %d values for %d buffers", run.name, c.Seed, len(run.want), len(p.Buffers))
			}
			arena := plan.Arena
			if arena == 0 {
				arena = plan.Footprint
			}
			if arena != run.want[0] {
				t.Errorf("%s on %s at alignment %d: arena %d, TFLite Micro's %d", run.name, p.Name, c.Alignment, arena, run.want[0])
			}
			for i, b := range p.Buffers {
				if b.Size > 0 && plan.Offsets[i] != run.want[1+i] {
					t.Errorf("%s on %s at alignment %d: buffer %d at %d, TFLite Micro's %d", run.name, p.Name, c.Alignment, i, plan.Offsets[i], run.want[1+i])
					break
				}
			}
		}
	}
}
