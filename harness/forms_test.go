package harness

import (
	"context"
	"reflect"
	"testing"

	"membench/results"
	"membench/workloads"
)

func formsProblem() *workloads.Problem {
	return &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 16, First: 0, Last: 1}, {ID: 1, Size: 8, First: 1, Last: 2}}}
}

// TestHashForms: a problem without forms hashes as before they existed
// (sha256 of the little-endian words 0,0,2, 16,0,1, 8,1,2), and each
// form changes the hash.
func TestHashForms(t *testing.T) {
	p := formsProblem()
	base := Hash(p)
	if base != "20265320f5a8bb29" {
		t.Fatalf("Hash without forms = %s, want the value of before forms", base)
	}
	seen := map[string]string{base: "none"}
	for name, set := range map[string]func(q *workloads.Problem){
		"align": func(q *workloads.Problem) { q.Aligns = []int64{0, 8} },
		"gaps":  func(q *workloads.Problem) { q.Gaps = [][]workloads.Gap{{{First: 1, Last: 1}}, nil} },
		"window": func(q *workloads.Problem) {
			q.Gaps = [][]workloads.Gap{{{First: 1, Last: 1, Window: &workloads.Window{Lo: 0, Hi: 4}}}, nil}
		},
		"fixed": func(q *workloads.Problem) { q.Fixed = []int64{0, workloads.NoOffset} },
		"hints": func(q *workloads.Problem) { q.Hints = []int64{workloads.NoOffset, 16} },
		"spaces": func(q *workloads.Problem) {
			q.Memories = []workloads.Memory{{Name: "a"}, {Name: "b"}}
			q.Spaces = []int{0, 1}
		},
		"capacity": func(q *workloads.Problem) { q.Memories = []workloads.Memory{{Name: "a", Capacity: 64}} },
	} {
		q := formsProblem()
		set(q)
		h := Hash(q)
		if prev, dup := seen[h]; dup {
			t.Errorf("%s hashes as %s: %s", name, prev, h)
		}
		seen[h] = name
	}
}

// TestSpacesInRecords: the parent learns each space's LB_load, and a
// strategy cell records each space's footprint.
func TestSpacesInRecords(t *testing.T) {
	p := formsProblem()
	p.Memories = []workloads.Memory{{Name: "sram", Capacity: 64}, {Name: "dram"}}
	p.Spaces = []int{0, 1}
	l := learn("w", &workloads.Workload{Problem: p})
	want := []results.SpaceStat{{Name: "sram", LBLoad: 16, Capacity: 64}, {Name: "dram", LBLoad: 8}}
	if !reflect.DeepEqual(l.info.Spaces, want) || l.info.LBLoad != 24 {
		t.Fatalf("learn: %+v, want spaces %+v and LB_load 24", l.info, want)
	}
	c := Cell{Workload: "w", Subject: "naive", Kind: results.KindStrategy, Info: l.info, Samples: 1}
	rec := c.record()
	if err := runStrategy(context.Background(), c, p, &rec); err != nil {
		t.Fatal(err)
	}
	want[0].Footprint, want[1].Footprint = 16, 8
	if !reflect.DeepEqual(rec.Spaces, want) || rec.Footprint != 24 {
		t.Fatalf("record: spaces %+v, footprint %d; want %+v, 24", rec.Spaces, rec.Footprint, want)
	}
}
