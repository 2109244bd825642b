package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membench/results"
)

// TestCompareRefusesMixedKinds: a strategy and an allocator do not
// compare, whether from a results folder or in a fresh sweep (which then
// writes nothing).
func TestCompareRefusesMixedKinds(t *testing.T) {
	const msg = `compare: baseline "naive" is a strategy but candidate "bump" is an allocator; compare strategies with strategies and allocators with allocators`
	out := filepath.Join(t.TempDir(), "cmp")
	expect(t, 2, []string{msg}, "compare", "--baseline", "naive", "--candidate", "bump",
		"--config", "testdata/tiny.toml", "--out", out)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused compare created %s", out)
	}
	dir := t.TempDir()
	recs := []results.Record{
		{Workload: "w", Subject: "naive", Kind: results.KindStrategy, Status: results.StatusOK, Footprint: 10},
		{Workload: "w", Subject: "bump", Kind: results.KindAllocator, Status: results.StatusOK, Footprint: 10},
	}
	if err := results.WriteFile(filepath.Join(dir, "results.jsonl"), recs); err != nil {
		t.Fatal(err)
	}
	expect(t, 2, []string{msg}, "compare", "--baseline", "naive", "--candidate", "bump", dir)
}

// TestCompareReusesSweep: compare with run flags reuses a complete sweep
// of the same config, resumes an incomplete one, refuses another config's
// folder and reruns with --force.
func TestCompareReusesSweep(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cmp")
	args := []string{"compare", "--baseline", "naive", "--candidate", "greedy-by-size",
		"--config", "testdata/tiny.toml", "--out", out}
	const verdict = "over 2 workloads: 2 wins, 0 ties, 0 losses"
	first := expect(t, 0, nil, args...)
	if !strings.Contains(first.stdout, verdict) || strings.Contains(first.stderr, "reusing") {
		t.Fatalf("first compare:\n%s\nstderr:\n%s", first.stdout, first.stderr)
	}
	jsonl := filepath.Join(out, "results.jsonl")
	before, _ := os.ReadFile(jsonl)

	again := expect(t, 0, []string{"membench: reusing " + out + " (same config, complete)\n"}, args...)
	if after, _ := os.ReadFile(jsonl); !bytes.Equal(before, after) {
		t.Error("the reused sweep's results.jsonl changed")
	}
	if stableTable(again.stdout) != stableTable(first.stdout) {
		t.Errorf("reused compare printed\n%s\nwant\n%s", again.stdout, first.stdout)
	}

	// Drop the last cell: the sweep is resumed, not rerun.
	lines := strings.SplitAfter(string(before), "\n")
	os.WriteFile(jsonl, []byte(strings.Join(lines[:len(lines)-2], "")), 0o644)
	r := expect(t, 0, []string{"membench: resuming " + out + " (same config, 3 of 4 cells done)\n"}, args...)
	if !strings.Contains(r.stdout, verdict) {
		t.Errorf("resumed compare:\n%s", r.stdout)
	}
	if after, _ := os.ReadFile(jsonl); !bytes.HasPrefix(after, []byte(strings.Join(lines[:len(lines)-2], ""))) || len(recordsOf(t, out)) != 4 {
		t.Errorf("resume did not keep the 3 cells and add the missing one:\n%s", after)
	}

	other := append(args[:len(args):len(args)], "--workloads", "synthetic/chain?n=8&seed=1")
	expect(t, 2, []string{"compare: " + out + " holds a sweep of another config: choose another --out, or pass --force to replace it"}, other...)
	r = expect(t, 0, nil, append(other, "--force")...)
	if strings.Contains(r.stderr, "reusing") || !strings.Contains(r.stdout, "over 1 workloads: 1 wins") || len(recordsOf(t, out)) != 2 {
		t.Errorf("compare --force:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}
