package exact

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// randomProblem returns n buffers with sizes that share the factor 4 and
// short lifetimes over 30 tasks: problems whose optimum is often above
// LB_load, where minimise has to probe.
func randomProblem(rng *rand.Rand, n int) *workloads.Problem {
	p := &workloads.Problem{Name: "random"}
	for i := range n {
		first := rng.IntN(20)
		p.Buffers = append(p.Buffers, workloads.Buffer{
			ID: i, Size: 4 * int64(1+rng.IntN(40)), First: first, Last: first + rng.IntN(12),
		})
	}
	return p
}

// TestMinimiseSchedule follows every step minimise takes on random
// problems and checks its rules: each probe asks a multiple of the
// quantum strictly between slo and the best footprint, inside its band
// and its round's reach of the band's anchor; each step brings a probe
// to its band's limit; a band doubles its limit only once every capacity
// within the round's reach has had the limit before; the
// question at slo asks slo and goes exactly when it has had no more nodes
// than the bands together, or than a third of theirs once the best plan
// has stalled (proofShare).
func TestMinimiseSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	ctx := context.Background()
	probed, doubled := 0, 0
	shares := map[int64]int{} // steps taken at each share of the bands
	// MiniMalloc's D, whose optimum is open, keeps the probes busy; the
	// random problems are mostly settled at their bound.
	var ps []*workloads.Problem
	if w, err := workloads.Load("../../../shared/workloads/minimalloc/D.1048576.csv"); err == nil {
		ps = append(ps, w.Problem)
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for range 30 {
		ps = append(ps, randomProblem(rng, 40+rng.IntN(40)))
	}
	for i, p := range ps {
		in, err := newInstance(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		// D's probes stall (proofShare) after some 40,000 nodes.
		budget := &budget{ctx: ctx, nodes: 40000}
		if i == 0 && len(p.Buffers) > 200 {
			budget.nodes = 100000
		}
		sv := &solver{in: in, b: budget, offs: greedy(p, in)}
		for _, pt := range in.parts {
			sv.lo = max(sv.lo, pt.lb, pt.alb)
		}
		sv.lo = roundUp(sv.lo, in.quantum)
		for k, i := range in.idx {
			sv.hi = max(sv.hi, sv.offs[i]+in.size[k])
		}
		sv.slo = sv.lo
		q := in.quantum
		lo, hi := sv.slo, sv.hi
		var boundGiven, bandsGiven int64
		// The nodes spent, and when the best plan last improved.
		var spent, improved int64
		lastHi := sv.hi
		given := map[int64]int64{} // per capacity, while its probe lives
		limits := map[int]int64{}  // per band, its limit this round
		reach := map[int]int64{}   // and its reach
		seen := map[int64]int{}    // per capacity, the layout it was last asked in
		epoch := 0
		var top, elo int64 = -1, -1 // the layout the rounds belong to
		fail := func(ev traceEvent, format string, args ...any) {
			t.Helper()
			t.Fatalf("problem %d, step %+v (slo %d, hi %d before): "+format, append([]any{i, ev, lo, hi}, args...)...)
		}
		sv.trace = func(ev traceEvent) {
			per := proofShare(spent, improved, int64(len(in.size)))
			shares[per]++
			if ev.Band < 0 {
				if ev.C != lo {
					fail(ev, "the question at slo asks %d", ev.C)
				}
				if boundGiven*per > bandsGiven {
					fail(ev, "the question at slo had %d nodes, the bands %d (share %d)", boundGiven, bandsGiven, per)
				}
				boundGiven += ev.Nodes
			} else {
				probed++
				if bandsGiven >= boundGiven*per {
					fail(ev, "a band went with %d nodes given to the bands and %d to the question at slo (share %d)", bandsGiven, boundGiven, per)
				}
				bandsGiven += ev.Nodes
				if ev.C%q != 0 || ev.C <= lo || ev.C >= hi {
					fail(ev, "probe outside (slo, hi) or off the quantum %d", q)
				}
				if ev.C > ev.Top-(ev.BandLo-1)*q || ev.C < ev.Top-(ev.BandHi-2)*q {
					fail(ev, "probe outside its band")
				}
				if ev.Top != top || lo != elo {
					top, elo = ev.Top, lo
					clear(limits)
					clear(reach)
					epoch++
				}
				if ev.Given == 0 && seen[ev.C] != epoch {
					// Closed when the bands were laid out anew.
					delete(given, ev.C)
				}
				seen[ev.C] = epoch
				if ev.Given != given[ev.C] || ev.Given+ev.Step != ev.Limit {
					fail(ev, "the probe had %d nodes; a step must bring it to the limit", given[ev.C])
				}
				if d := (ev.Top-ev.C)/q + 1; d < ev.Anchor-ev.R || d > ev.Anchor+ev.R {
					fail(ev, "depth %d is not within the round's reach", d)
				}
				if l, ok := limits[ev.Band]; ok && ev.Limit > l {
					doubled++
					r := reach[ev.Band]
					for d := max(ev.BandLo, ev.Anchor-r); d < min(ev.BandHi, ev.Anchor+r+1); d++ {
						if c := ev.Top - (d-1)*q; c > lo && given[c] < l {
							fail(ev, "the band doubled its limit %d before capacity %d had it (%d)", l, c, given[c])
						}
					}
				}
				reach[ev.Band] = ev.R
				limits[ev.Band] = ev.Limit
				given[ev.C] += ev.Step
			}
			if ev.Res != aborted {
				delete(given, ev.C)
			}
			lo, hi = ev.Lo, ev.Hi
			spent += ev.Nodes
			if hi < lastHi {
				lastHi, improved = hi, spent
			}
			for c := range given {
				if c >= hi || c < lo {
					delete(given, c)
				}
			}
		}
		sv.minimise()
	}
	if probed == 0 || doubled == 0 || shares[1] == 0 || shares[3] == 0 {
		t.Fatalf("%d probes below the first plans, %d rounds that doubled a limit, steps at each share of the bands %v; want some of each",
			probed, doubled, shares)
	}
}

// TestTrialWeights: a trial's orders share its nodes evenly until an
// order has found plans in contested steps; then each takes its weight,
// and an order's wins count up to maxWins.
func TestTrialWeights(t *testing.T) {
	w, err := workloads.Load("../../../shared/workloads/minimalloc/D.1048576.csv")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("the shared MiniMalloc instances are absent")
	} else if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in, err := newInstance(ctx, w.Problem)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		wins [3]int64
		want []int64 // each order's nodes after one step of 600
	}{
		{[3]int64{0, 0, 0}, []int64{600, 600, 600}},
		{[3]int64{1, 0, 0}, []int64{900, 450, 450}},
		{[3]int64{3, 0, 0}, []int64{1200, 300, 300}},
		{[3]int64{9, 0, 0}, []int64{1200, 300, 300}},
		{[3]int64{1, 1, 0}, []int64{720, 720, 360}},
	} {
		// No plan within 1,024,000 is found in 1,200 nodes by any order.
		sv := &solver{in: in, b: &budget{ctx: ctx, nodes: -1}, offs: greedy(w.Problem, in), wins: tc.wins}
		tr := sv.newTrial(1024000)
		if res := sv.step(tr, 600); res != aborted {
			t.Fatalf("wins %v: step ended %v", tc.wins, res)
		}
		var got []int64
		for _, r := range tr.runs {
			got = append(got, r.s.pacer().count-1) // the node that paused it
		}
		tr.close()
		if !slices.Equal(got, tc.want) {
			t.Errorf("wins %v: the orders spent %v nodes, want %v", tc.wins, got, tc.want)
		}
	}
}

// TestProofShare: the bands have one node for each of the question at
// slo until the best plan has stood longer than it took to find, and at
// least 64 nodes a buffer; then three.
func TestProofShare(t *testing.T) {
	for _, tc := range []struct{ spent, improved, n, want int64 }{
		{0, 0, 10, 1},
		{640, 0, 10, 1},     // 64 nodes a buffer
		{641, 0, 10, 3},     // past them, no plan found
		{2000, 1000, 10, 1}, // standing as long as it took
		{2001, 1000, 10, 3},
		{1200, 1000, 10, 1}, // a recent plan
	} {
		if got := proofShare(tc.spent, tc.improved, tc.n); got != tc.want {
			t.Errorf("proofShare(%d, %d, %d) = %d, want %d", tc.spent, tc.improved, tc.n, got, tc.want)
		}
	}
}
