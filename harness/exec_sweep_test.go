package harness

import (
	"context"
	"errors"
	"strings"
	"testing"

	"membench/results"
	"membench/workloads"
)

// TestExecSweep runs external planners (DESIGN §3) in a sweep: they are
// planned in workers, validated and recorded like built-in strategies.
func TestExecSweep(t *testing.T) {
	const dir = "exec:../strategies/testdata/exec/"
	c := tinyConfig(t, "naive", dir+"backtoback.sh", dir+"hygiene.sh", dir+"overlap.sh", dir+"fail.sh")
	c.Repeats = 1
	c.Workloads = entries("synthetic/chain?n=12", "synthetic/random-dag?n=30")
	out, err := Run(context.Background(), Options{Config: c, Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "4 of 10 cells failed") {
		t.Fatalf("err = %v, want 4 of 10 cells failed", err)
	}
	recs := keysOnce(t, out.Records, 10)
	for k, r := range recs {
		naive := recs[results.Key{Workload: k.Workload, Subject: "naive"}]
		switch strings.TrimPrefix(r.Subject, dir) {
		// hygiene.sh also checks that the worker's marker and record pipe
		// do not reach the planner.
		case "backtoback.sh", "hygiene.sh":
			// Back to back is what naive does without alignment.
			if r.Status != results.StatusOK || r.Footprint != naive.Footprint || len(r.TimesNs) != 2 || r.Kind != results.KindStrategy {
				t.Errorf("%s: %+v; want ok with naive's footprint %d", k, r, naive.Footprint)
			}
		case "overlap.sh":
			if r.Status != results.StatusInvalid || !strings.Contains(r.Error, "overlap") {
				t.Errorf("%s: status %s (%s), want invalid with an overlap", k, r.Status, r.Error)
			}
		case "fail.sh":
			if r.Status != results.StatusError || !strings.HasPrefix(r.Error, dir+"fail.sh: exit status 3: capacity none\nid,lower,upper,size\n0,0,") {
				t.Errorf("%s: status %s (%q), want error with the planner's stderr", k, r.Status, r.Error)
			}
		}
	}
	// A missing planner is refused before anything runs.
	c = tinyConfig(t, "naive", dir+"nope.sh")
	var ue *workloads.UsageError
	if _, err := Run(context.Background(), Options{Config: c, Out: t.TempDir()}); !errors.As(err, &ue) ||
		!strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing planner: err = %v, want a usage error", err)
	}
}
