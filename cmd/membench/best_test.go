package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membench/results"
)

// TestPlanJSONExact: exact reports what it proved.
func TestPlanJSONExact(t *testing.T) {
	r := expect(t, 0, nil, "plan", "--format", "json", "--strategy", "exact?nodes=10000", complexCSV)
	var got struct {
		Footprint int64 `json:"footprint"`
		Bound     int64 `json:"bound"`
		Optimal   bool  `json:"optimal"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Footprint != 96 || got.Bound != 96 || !got.Optimal {
		t.Errorf("got %+v, want footprint 96, bound 96, optimal", got)
	}
}

// TestPlanNodes: minimalloc reports its search nodes, in JSON and text
// (MiniMalloc's README example takes 8).
func TestPlanNodes(t *testing.T) {
	r := expect(t, 0, nil, "plan", "--format", "json", "--strategy", "minimalloc", "minimalloc/example")
	var got struct {
		Footprint int64 `json:"footprint"`
		Nodes     int64 `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Footprint != 12 || got.Nodes != 8 {
		t.Errorf("got %+v, want footprint 12, nodes 8", got)
	}
	r = expect(t, 0, nil, "plan", "--strategy", "minimalloc", "minimalloc/example")
	if !strings.Contains(r.stdout, "search nodes           8\n") {
		t.Errorf("text output lacks the search nodes:\n%s", r.stdout)
	}
}

// sweepDir writes a minimal sweep folder holding recs.
func sweepDir(t *testing.T, recs []results.Record) string {
	dir := t.TempDir()
	man := `{"git_revision": "abc123", "start": "2026-11-23T10:00:00Z"}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFile(filepath.Join(dir, "results.jsonl"), recs); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBest(t *testing.T) {
	rec := func(subject, status string, fp, bound int64) results.Record {
		return results.Record{Workload: "zoo/x", N: 4, Hash: "h", Subject: subject, Kind: results.KindStrategy,
			Status: status, Footprint: fp, LBLoad: 100, Bound: bound, TimesNs: []float64{}}
	}
	dir := sweepDir(t, []results.Record{
		rec("greedy", results.StatusOK, 120, 0),
		rec("broken", results.StatusInvalid, 90, 0),
		rec("exact", results.StatusOK, 110, 110),
	})
	table := filepath.Join(t.TempDir(), "best.json")
	r := expect(t, 0, nil, "best", "--table", table, "update", dir)
	want := "zoo/x: footprint 0 -> 120 (greedy)\n" +
		"zoo/x: footprint 120 -> 110 (exact)\n" +
		"zoo/x: bound 100 -> 110 (exact)\n" +
		table + ": 1 problems\n"
	if r.stdout != want {
		t.Errorf("update printed\n%s\nwant\n%s", r.stdout, want)
	}
	r = expect(t, 0, nil, "best", "--table", table, "show")
	want = "workload  n  LB_load  best  bound  best/LB  optimal  best by\n" +
		"zoo/x     4  100      110   110    1.1000   yes      exact\n"
	if r.stdout != want {
		t.Errorf("show printed\n%q\nwant\n%q", r.stdout, want)
	}
	// A second update with nothing better changes nothing.
	r = expect(t, 0, nil, "best", "--table", table, "update", sweepDir(t, []results.Record{rec("greedy", results.StatusOK, 130, 0)}))
	if r.stdout != table+": 1 problems\n" {
		t.Errorf("second update printed %q", r.stdout)
	}
	expect(t, 2, []string{"best: want `show` or `update DIR...`"}, "best", "--table", table, "frob")
	expect(t, 2, []string{"manifest.json", "not a sweep folder"}, "best", "--table", table, "update", t.TempDir())
}

// TestBestShipped: the committed table parses and shows.
func TestBestShipped(t *testing.T) {
	expect(t, 0, nil, "best", "--table", "../../results/best/best.json", "show")
}
