// Package shippedtest checks the instance sets membench ships as data
// (workloads/minimalloc, workloads/fieldsets) for their tests.
package shippedtest

import (
	"testing"

	"membench/workloads"
)

// Instance is what a shipped instance must load as.
type Instance struct {
	Name string
	N    int
	// LB is its LB_load; Cap the capacity it is posed with (0: none).
	LB, Cap int64
}

// CheckRegistered loads every instance by name, checks its name, buffer
// count, LB_load and capacity, and that problem -> trace -> problem keeps
// the bound on this real data.
func CheckRegistered(t *testing.T, cases []Instance) {
	t.Helper()
	for _, c := range cases {
		w, err := workloads.Load(c.Name)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		p := w.Problem
		if p.Len() != c.N || p.LoadBound() != c.LB || p.Capacity != c.Cap || p.Name != c.Name {
			t.Errorf("%s: name %q, %d buffers, LB_load %d, capacity %d; want %d, %d, %d",
				c.Name, p.Name, p.Len(), p.LoadBound(), p.Capacity, c.N, c.LB, c.Cap)
		}
		tr, err := p.ToTrace()
		if err != nil {
			t.Fatal(err)
		}
		q, err := tr.ToProblem()
		if err != nil {
			t.Fatal(err)
		}
		if q.LoadBound() != c.LB {
			t.Errorf("%s: LB_load after problem -> trace -> problem: %d", c.Name, q.LoadBound())
		}
	}
}
