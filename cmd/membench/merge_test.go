package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMergeWritesNothingPartial: merge refuses a non-empty --out without
// --force, replaces it with --force, and leaves nothing behind when it
// fails.
func TestMergeWritesNothingPartial(t *testing.T) {
	base := t.TempDir()
	var shards []string
	for i, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(base, "shard"+string(rune('0'+i)))
		shards = append(shards, d)
		expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", d, "--shard", s)
	}
	listDir := func(dir string) []string {
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}

	busy := filepath.Join(base, "busy")
	os.Mkdir(busy, 0o755)
	os.WriteFile(filepath.Join(busy, "keep"), []byte("mine"), 0o644)
	expect(t, 2, []string{"membench: merge: --out " + busy + " is not empty: pass --force to replace it\n"},
		append([]string{"merge", "--out", busy}, shards...)...)
	if got := listDir(busy); !slices.Equal(got, []string{"keep"}) {
		t.Errorf("a refused merge changed %s: %v", busy, got)
	}
	r := expect(t, 0, nil, append([]string{"merge", "--force", "--out", busy}, shards...)...)
	if !strings.Contains(r.stdout, busy+": merged 2 folders, 0 failed cells") {
		t.Errorf("merge --force:\n%s", r.stdout)
	}
	if got := listDir(busy); slices.Contains(got, "keep") || !slices.Contains(got, "results.jsonl") || !slices.Contains(got, "manifest.json") {
		t.Errorf("merge --force left %v", got)
	}
	if n := len(recordsOf(t, busy)); n != 6 {
		t.Errorf("merged %d cells, want 6", n)
	}

	// An empty folder is fine.
	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o755)
	expect(t, 0, nil, append([]string{"merge", "--out", empty}, shards...)...)

	// An unsharded folder with a shard: named as such.
	whole := filepath.Join(base, "whole")
	expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", whole)
	expect(t, 2, []string{"membench: merge: " + whole + " holds an unsharded sweep, but " + shards[0] + " holds shard 0/2: merge the 2 shards of one sharded sweep\n"},
		"merge", "--out", filepath.Join(base, "mixed"), shards[0], whole)
	expect(t, 2, []string{"membench: merge: " + shards[0] + " holds shard 0/2, but " + whole + " holds an unsharded sweep: merge the 2 shards of one sharded sweep\n"},
		"merge", "--out", filepath.Join(base, "mixed"), whole, shards[0])

	// A shard with a cell missing: an error, and no output at all.
	jsonl := filepath.Join(shards[1], "results.jsonl")
	data, _ := os.ReadFile(jsonl)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(jsonl, []byte(strings.Join(lines[:len(lines)-2], "")), 0o644)
	before := listDir(base)
	out := filepath.Join(base, "partial")
	expect(t, 1, []string{"membench: merge: 5 of 6 cells have results; finish the shards with --resume\n"},
		append([]string{"merge", "--out", out}, shards...)...)
	if got := listDir(base); !slices.Equal(got, before) {
		t.Errorf("a failed merge left files: %v, before %v", got, before)
	}
}

// TestMergeFailedCells: a merge of shards with failed cells is complete:
// it lands in --out and exits 1 listing them, naming --out, not the
// staging folder.
func TestMergeFailedCells(t *testing.T) {
	base := t.TempDir()
	cfg := filepath.Join(base, "fail.toml")
	os.WriteFile(cfg, []byte(`name = "fail"
repeats = 1
benchtime = "1ms"
samples = 1
workloads = [{ spec = "synthetic/chain", params = { n = [4, 5, 6, 7] } }]
strategies = ["naive", "test-overlap", "`+execDir+`overlap.sh", "`+execDir+`fail.sh"]
`), 0o644)
	var shards []string
	for i, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(base, "shard"+string(rune('0'+i)))
		shards = append(shards, d)
		expect(t, 1, nil, "run", "--config", cfg, "--out", d, "--shard", s)
	}
	out := filepath.Join(base, "merged")
	r := expect(t, 1, []string{"membench: 12 of 16 cells failed:", "\n  ... and 2 more (see " + filepath.Join(out, "results.jsonl") + ")\n"},
		append([]string{"merge", "--out", out}, shards...)...)
	if strings.Contains(r.stderr, ".merge-") || !strings.Contains(r.stdout, out+": merged 2 folders, 12 failed cells") {
		t.Errorf("merge with failed cells:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if n := len(recordsOf(t, out)); n != 16 {
		t.Errorf("merged %d cells, want 16", n)
	}
	for _, f := range []string{"manifest.json", "results.txt", "summary.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
