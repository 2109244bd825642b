package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"membench/strategies"
	"membench/workloads"
)

// staller ignores its context and never answers in time.
type staller struct{}

func (staller) Name() string { return "test-stall" }
func (staller) Plan(context.Context, *workloads.Problem) (*strategies.Plan, error) {
	time.Sleep(time.Minute)
	return nil, nil
}

func init() {
	strategies.Register(strategies.Info{Name: "test-stall", Kind: strategies.Offsets, Doc: "test only: ignores its context for a minute",
		New: strategies.Simple(func() strategies.Strategy { return staller{} })})
}

// TestTimeout: plan and replay give up after --timeout with exit 1 and a
// clear message, whether the work honours its context (an exec: planner is
// killed, a replay stops) or not.
func TestTimeout(t *testing.T) {
	const chain = "synthetic/chain?n=8"
	for _, tc := range []struct {
		args  []string
		code  int
		want  string
		limit time.Duration
	}{
		{[]string{"plan", "--strategy", execDir + "sleep.sh", "--timeout", "300ms", chain}, 1,
			"membench: plan: " + execDir + "sleep.sh on " + chain + ": timed out after 300ms; use --timeout DUR to raise it (0: no limit)\n", 2500 * time.Millisecond},
		{[]string{"plan", "--strategy", "test-stall", "--timeout", "100ms", chain}, 1,
			"membench: plan: test-stall on " + chain + ": timed out after 100ms; use --timeout DUR to raise it (0: no limit)\n", timeoutGrace + 2*time.Second},
		{[]string{"replay", "--allocator", "first-fit", "--repeat", "1000000", "--timeout", "200ms", "synthetic/random-dag?n=2000"}, 1,
			"membench: replay: first-fit on synthetic/random-dag?n=2000: timed out after 200ms; use --timeout DUR to raise it (0: no limit)\n", 2 * time.Second},
		{[]string{"plan", "--strategy", "naive", "--timeout", "-1s", chain}, 2,
			"membench: plan: --timeout -1s: want a positive duration, or 0 for no limit\n", time.Second},
		{[]string{"replay", "--allocator", "bump", "--timeout", "-1s", chain}, 2,
			"membench: replay: --timeout -1s: want a positive duration, or 0 for no limit\n", time.Second},
	} {
		start := time.Now()
		r := membench(t, tc.args...)
		if el := time.Since(start); el > tc.limit {
			t.Errorf("%q took %v, want under %v", tc.args, el, tc.limit)
		}
		if r.code != tc.code || r.stderr != tc.want || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d, stderr %q", tc.args, r.code, r.stderr, r.stdout, tc.code, tc.want)
		}
	}
	// plan gives up after 10 minutes unless told otherwise.
	if r := membench(t, "plan", "--help"); !strings.Contains(r.stdout+r.stderr, "no limit); an exec: planner is killed (default 10m0s)") {
		t.Errorf("plan --help does not show the default --timeout of 10m0s:\n%s%s", r.stdout, r.stderr)
	}
	// A generous timeout changes nothing.
	r := membench(t, "plan", "--strategy", "naive", "--timeout", "1m", "--format", "csv", chain)
	want := membench(t, "plan", "--strategy", "naive", "--format", "csv", chain)
	if r.code != 0 || r.stdout != want.stdout {
		t.Errorf("plan --timeout 1m: exit %d\n%s\nwant\n%s", r.code, r.stdout, want.stdout)
	}
}
