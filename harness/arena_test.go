package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"membench/internal/tflitebuild"
	"membench/results"
)

// TestRecordsKeepArenaAndPersistent: a sweep's records carry the
// runtime's own arena where it differs from the footprint and the bytes
// kept outside the arena (a .tflite model's variable tensors).
func TestRecordsKeepArenaAndPersistent(t *testing.T) {
	model := filepath.Join(t.TempDir(), "stateful.tflite")
	if err := os.WriteFile(model, tflitebuild.Stateful().Build(), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig("arena.toml", []byte(`
name = "arena"
benchtime = "1ms"
samples = 1
repeats = 1
workloads = ["`+model+`"]
strategies = ["tflm-greedy", "tflite-arena"]
`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), Options{Config: c, Out: t.TempDir(), Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	// tflm-greedy plans the sizes rounded to 16 bytes: footprint 42, arena
	// 48 (see cmd/membench's TestPlanArenaAndPersistent); TFLite's arena
	// is its footprint. Both leave the 40-byte state apart.
	want := map[string][3]int64{"tflm-greedy": {42, 48, 40}, "tflite-arena": {74, 0, 40}}
	recs := keysOnce(t, out.Records, 2)
	for k, r := range recs {
		w := want[k.Subject]
		if got := [3]int64{r.Footprint, r.Arena, r.Persistent}; r.Status != results.StatusOK || got != w {
			t.Errorf("%s: status %s, footprint/arena/persistent %v, want %v", k, r.Status, got, w)
		}
	}
}
