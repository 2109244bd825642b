package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAllowFailedCells checks that --allow-failed-cells turns a sweep that
// ran to the end with failed cells into exit 0 (the failure list is still
// printed), and leaves exit 1 and 2 for work not done and bad usage.
func TestAllowFailedCells(t *testing.T) {
	// test-overlap plans everything at offset 0: an invalid cell, a result.
	sweep := []string{"run", "--strategies", "naive,test-overlap", "--workloads", "synthetic/chain?n=8&seed=1",
		"--repeats", "1", "--timeout", "30s"}
	failList := "membench: 1 of 2 cells failed:\n  synthetic/chain?n=8&seed=1 × test-overlap #0: invalid: invalid plan: buffers 0 and 1 overlap"
	for _, tc := range []struct {
		name   string
		extra  []string
		code   int
		stdout string
		stderr string
	}{
		{"without the flag the sweep fails", nil, 1, ": 2 cells run, 0 already done, 1 failed\n", failList},
		{"with the flag it succeeds", []string{"--allow-failed-cells"}, 0, ": 2 cells run, 0 already done, 1 failed\n", failList},
		{"a resumed shard too", []string{"--allow-failed-cells", "--resume"}, 0, ": 0 cells run, 2 already done, 1 failed\n", failList},
		{"bad usage stays exit 2", []string{"--allow-failed-cells", "--shard", "1/1"}, 2, "", `--shard "1/1": want I/N with 0 <= I < N`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "s")
			if tc.name == "a resumed shard too" {
				expect(t, 1, nil, append(sweep, "--out", out)...)
			}
			args := append(append(append([]string{}, sweep...), "--out", out), tc.extra...)
			r := membench(t, args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.stdout != "" && !strings.HasPrefix(r.stdout, out+tc.stdout) {
				t.Errorf("stdout does not start with %q:\n%s", out+tc.stdout, r.stdout)
			}
			if tc.stdout == "" && r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, r.stderr)
			}
			if tc.code == 0 && len(recordsOf(t, out)) != 2 {
				t.Errorf("want 2 records in %s", out)
			}
		})
	}
}

// TestMergeAllowFailedCells checks the same rule for merge: shards with a
// failed cell merge with exit 0 under the flag, 1 without.
func TestMergeAllowFailedCells(t *testing.T) {
	base := t.TempDir()
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(base, "shard"+s[:1])
		shards = append(shards, d)
		membench(t, "run", "--strategies", "naive,test-overlap", "--workloads", "synthetic/chain?n=8&seed=1",
			"--repeats", "1", "--timeout", "30s", "--shard", s, "--out", d)
	}
	for _, tc := range []struct {
		flag []string
		code int
	}{{nil, 1}, {[]string{"--allow-failed-cells"}, 0}} {
		out := filepath.Join(base, "merged"+strings.Join(tc.flag, ""))
		r := membench(t, append(append([]string{"merge", "--out", out}, tc.flag...), shards...)...)
		if r.code != tc.code || r.stdout != out+": merged 2 folders, 1 failed cells\n" ||
			!strings.Contains(r.stderr, "membench: 1 of 2 cells failed:\n  synthetic/chain?n=8&seed=1 × test-overlap #0: invalid: ") {
			t.Errorf("merge %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.flag, r.code, tc.code, r.stdout, r.stderr)
		}
	}
}
