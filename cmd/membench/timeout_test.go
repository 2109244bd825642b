package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"membench/internal/proctest"
	"membench/strategies"
	"membench/workloads"
)

// staller ignores its context and never answers: a run that waited for it
// would never end.
type staller struct{}

func (staller) Name() string { return "test-stall" }
func (staller) Plan(context.Context, *workloads.Problem) (*strategies.Plan, error) {
	select {}
}

func init() {
	strategies.Register(strategies.Info{Name: "test-stall", Runtime: "membench", Kind: strategies.Offsets, Doc: "test only: ignores its context and never returns",
		New: strategies.Simple(func() strategies.Strategy { return staller{} })})
}

// TestTimeout: plan and replay give up after --timeout with exit 1 and a
// clear message, whether the work honours its context (an exec: planner is
// killed, a replay stops) or not (test-stall never returns, so waiting for
// it would hang the test). The checks are on what happened, not on how
// long it took: a killed planner leaves no process behind; that a replay
// stops when cancelled is allocators' TestReplayStops.
func TestTimeout(t *testing.T) {
	const chain = "synthetic/chain?n=8"
	mark := proctest.Mark(t, "MEMBENCH_TIMEOUT_TEST")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plan", "--strategy", execDir + "sleep.sh", "--timeout", "300ms", chain}, 1,
			"membench: plan: " + execDir + "sleep.sh on " + chain + ": timed out after 300ms; use --timeout DUR to raise it (0: no limit)\n"},
		{[]string{"plan", "--strategy", "test-stall", "--timeout", "100ms", chain}, 1,
			"membench: plan: test-stall on " + chain + ": timed out after 100ms; use --timeout DUR to raise it (0: no limit)\n"},
		{[]string{"replay", "--allocator", "first-fit", "--repeat", "1000000", "--timeout", "200ms", "synthetic/random-dag?n=2000"}, 1,
			"membench: replay: first-fit on synthetic/random-dag?n=2000: timed out after 200ms; use --timeout DUR to raise it (0: no limit)\n"},
		{[]string{"plan", "--strategy", "naive", "--timeout", "-1s", chain}, 2,
			"membench: plan: --timeout -1s: want a positive duration, or 0 for no limit\n"},
		{[]string{"replay", "--allocator", "bump", "--timeout", "-1s", chain}, 2,
			"membench: replay: --timeout -1s: want a positive duration, or 0 for no limit\n"},
	} {
		r := membench(t, tc.args...)
		if r.code != tc.code || r.stderr != tc.want || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d, stderr %q", tc.args, r.code, r.stderr, r.stdout, tc.code, tc.want)
		}
		if left := proctest.Marked(mark); len(left) > 0 {
			t.Errorf("%q: processes %v outlived the timeout", tc.args, left)
			for _, pid := range left {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			}
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
