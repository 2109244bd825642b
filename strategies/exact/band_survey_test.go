package exact_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"membench/strategies"
	"membench/strategies/exact"
	"membench/workloads"
	"membench/workloads/synthetic"
)

// TestBandSurvey runs the banded engine alone (BandPlan, forward and
// repairing, 100,000 nodes a part) on every known-optimum family and size
// law at n = 1,000, seeds 1-3 (60 instances), and logs which are packed
// at the planted optimum. It is a diagnostic of the pairing, not a check
// (minutes of CPU): it runs only with EXACT_BAND_SURVEY set, to a
// comma-separated list of families or "all".
func TestBandSurvey(t *testing.T) {
	which := os.Getenv("EXACT_BAND_SURVEY")
	if which == "" {
		t.Skip("EXACT_BAND_SURVEY not set")
	}
	packed, total := 0, 0
	for _, fam := range []string{"tiling", "pinwheel", "tiling-contention", "pinwheel-contention"} {
		if which != "all" && !strings.Contains(","+which+",", ","+fam+",") {
			continue
		}
		for _, sizes := range synthetic.Distributions {
			for seed := 1; seed <= 3; seed++ {
				spec := fmt.Sprintf("synthetic/%s?n=1000&sizes=%s&seed=%d", fam, sizes, seed)
				w, err := workloads.Load(spec)
				if err != nil {
					t.Fatal(err)
				}
				p := w.Problem
				start := time.Now()
				offs, ok, err := exact.BandPlan(p, p.Capacity, 100000)
				if err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
				total++
				if ok {
					plan := &strategies.Plan{Offsets: offs, Footprint: strategies.Footprint(p.Buffers, offs)}
					if err := strategies.Validate(p, plan); err != nil || plan.Footprint != p.Capacity {
						t.Fatalf("%s: footprint %d: %v", spec, plan.Footprint, err)
					}
					packed++
				}
				t.Logf("%s packed=%v %.2fs", spec, ok, time.Since(start).Seconds())
			}
		}
	}
	t.Logf("packed %d of %d", packed, total)
}
