package exact

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// BenchmarkMinimiseReach minimises MiniMalloc's D and J within a node
// budget (MEMBENCH_REACH_NODES, 500,000 when unset) and reports, load
// independently, the nodes of the whole run at which minimise first held
// a plan within each target footprint (-1: not reached), and the
// footprint at the end.
func BenchmarkMinimiseReach(b *testing.B) {
	nodes := int64(500000)
	if s := os.Getenv("MEMBENCH_REACH_NODES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		nodes = n
	}
	for _, tc := range []struct {
		name    string
		targets []int64
	}{
		{"D", []int64{1031168, 1029120, 1026048, 1025024, 1024000}},
		{"J", []int64{1035264, 1031168, 1029120}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := MiniMallocInstance(b, tc.name)
			for range b.N {
				at := make([]int64, len(tc.targets))
				for i := range at {
					at[i] = -1
				}
				e := exact{nodes: nodes, trace: func(ev traceEvent) {
					for i, c := range tc.targets {
						if at[i] < 0 && ev.Hi <= c {
							at[i] = ev.Total
						}
					}
				}}
				plan, err := e.Plan(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				for i, c := range tc.targets {
					b.ReportMetric(float64(at[i]), "nodes-to-"+strconv.FormatInt(c, 10))
				}
				b.ReportMetric(float64(plan.Footprint), "footprint")
			}
		})
	}
}

// TestTraceTotal: the trace a run hears counts the nodes of the whole
// run: each step adds its own to the total, and the last step's total
// and best footprint are the plan's nodes and footprint.
func TestTraceTotal(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2))
	traced := 0
	for range 20 {
		p := randomProblem(rng, 40+rng.IntN(40))
		var evs []traceEvent
		e := exact{nodes: 20000, trace: func(ev traceEvent) { evs = append(evs, ev) }}
		plan, err := e.Plan(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			continue
		}
		traced++
		for i := 1; i < len(evs); i++ {
			if evs[i].Total != evs[i-1].Total+evs[i].Nodes {
				t.Fatalf("step %d: total %d, want %d + %d", i, evs[i].Total, evs[i-1].Total, evs[i].Nodes)
			}
		}
		last := evs[len(evs)-1]
		if last.Total != plan.Nodes || last.Hi != plan.Footprint {
			t.Fatalf("last step: total %d and footprint %d, the plan's %d and %d", last.Total, last.Hi, plan.Nodes, plan.Footprint)
		}
	}
	if traced == 0 {
		t.Fatal("no run took a step of minimise")
	}
}

// TestMinimiseReachesTargets guards issue 24's targets in nodes, which
// do not depend on the machine's load: minimise must hold a plan within
// 1,024,000 bytes on MiniMalloc's D and within 1,029,120 on J inside
// the node budgets below (held at 188,689 and 378,262 nodes, as this test counts, when the
// test was written; the budgets leave some room). The run stops once the
// target is held (Plan then returns the cancelled context's error).
func TestMinimiseReachesTargets(t *testing.T) {
	for _, tc := range []struct {
		name          string
		target, nodes int64
	}{
		{"D", 1024000, 250000},
		{"J", 1029120, 450000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := MiniMallocInstance(t, tc.name)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			at := int64(-1)
			e := exact{nodes: tc.nodes, trace: func(ev traceEvent) {
				if at < 0 && ev.Hi <= tc.target {
					at = ev.Total
					cancel()
				}
			}}
			// Stopped by the trace, Plan returns ctx's error; the trace
			// has seen the plan held.
			plan, err := e.Plan(ctx, p)
			switch {
			case at >= 0 && (err == nil || errors.Is(err, context.Canceled)):
			case err != nil:
				t.Fatal(err)
			default:
				t.Fatalf("footprint %d after %d nodes, want at most %d within %d nodes",
					plan.Footprint, plan.Nodes, tc.target, tc.nodes)
			}
			t.Logf("a plan within %d held at %d nodes", tc.target, at)
		})
	}
}
