package minimalloc

import (
	"bytes"
	"os"
	"testing"

	"membench/workloads"
)

// TestRegistered loads every shipped instance by name and checks its size,
// lower bound and capacity against MiniMalloc's README table, and that the
// conversions keep the bound on this real data.
func TestRegistered(t *testing.T) {
	cases := []struct {
		name    string
		n       int
		lb, cap int64
	}{
		{"minimalloc/a", 154, 1048576, 1048576},
		{"minimalloc/b", 170, 1048576, 1048576},
		{"minimalloc/c", 203, 1039360, 1048576},
		{"minimalloc/d", 213, 986112, 1048576},
		{"minimalloc/e", 215, 1048576, 1048576},
		{"minimalloc/f", 296, 1048576, 1048576},
		{"minimalloc/g", 308, 1048576, 1048576},
		{"minimalloc/h", 316, 1048576, 1048576},
		{"minimalloc/i", 374, 1048576, 1048576},
		{"minimalloc/j", 409, 989184, 1048576},
		{"minimalloc/k", 454, 1048576, 1048576},
		{"minimalloc/example", 5, 12, 12},
	}
	if len(cases) != len(Files) {
		t.Fatalf("%d registered instances, want %d", len(Files), len(cases))
	}
	for _, c := range cases {
		w, err := workloads.Load(c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p := w.Problem
		if p.Len() != c.n || p.LoadBound() != c.lb || p.Capacity != c.cap || p.Name != c.name {
			t.Errorf("%s: name %q, %d buffers, LB_load %d, capacity %d; want %d, %d, %d",
				c.name, p.Name, p.Len(), p.LoadBound(), p.Capacity, c.n, c.lb, c.cap)
		}
		tr, err := p.ToTrace()
		if err != nil {
			t.Fatal(err)
		}
		q, err := tr.ToProblem()
		if err != nil {
			t.Fatal(err)
		}
		if q.LoadBound() != c.lb {
			t.Errorf("%s: LB_load after problem -> trace -> problem: %d", c.name, q.LoadBound())
		}
	}
}

// TestSameAsShared checks that the shipped files are byte for byte the ones
// in ../shared, so that a result keyed by content hash matches either.
func TestSameAsShared(t *testing.T) {
	const shared = "../../../shared/workloads/minimalloc/"
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s absent: %v", shared, err)
	}
	for _, file := range append(mapValues(Files), "LICENSE") {
		want, err := os.ReadFile(shared + file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile("data/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("data/%s differs from %s%s", file, shared, file)
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
