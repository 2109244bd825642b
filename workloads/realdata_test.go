package workloads

import (
	"os"
	"strings"
	"testing"
)

// sharedMiniMalloc is MiniMalloc's benchmark folder, shared next to the
// repository.
const sharedMiniMalloc = "../../shared/workloads/minimalloc/"

// TestMiniMallocInstances loads all 12 shared instances and checks the
// buffer counts and lower bounds of the folder's README.
func TestMiniMallocInstances(t *testing.T) {
	if _, err := os.Stat(sharedMiniMalloc); err != nil {
		t.Skipf("%s absent: %v", sharedMiniMalloc, err)
	}
	cases := []struct {
		file    string
		n       int
		lb, cap int64
	}{
		{"A.1048576.csv", 154, 1048576, 1048576},
		{"B.1048576.csv", 170, 1048576, 1048576},
		{"C.1048576.csv", 203, 1039360, 1048576},
		{"D.1048576.csv", 213, 986112, 1048576},
		{"E.1048576.csv", 215, 1048576, 1048576},
		{"F.1048576.csv", 296, 1048576, 1048576},
		{"G.1048576.csv", 308, 1048576, 1048576},
		{"H.1048576.csv", 316, 1048576, 1048576},
		{"I.1048576.csv", 374, 1048576, 1048576},
		{"J.1048576.csv", 409, 989184, 1048576},
		{"K.1048576.csv", 454, 1048576, 1048576},
		// MiniMalloc's README example: b1, b3 and b5 (4 bytes each) are
		// live together at time 0.
		{"example.12.csv", 5, 12, 12},
	}
	entries, err := os.ReadDir(sharedMiniMalloc)
	if err != nil {
		t.Fatal(err)
	}
	csvs := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".csv") {
			csvs++
		}
	}
	if csvs != len(cases) {
		t.Errorf("%d CSV files in %s, want %d", csvs, sharedMiniMalloc, len(cases))
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			w, err := Load(sharedMiniMalloc + c.file)
			if err != nil {
				t.Fatal(err)
			}
			p := w.Problem
			if w.Format != FormatMiniMalloc || p.Len() != c.n || p.LoadBound() != c.lb || p.Capacity != c.cap {
				t.Fatalf("format %s, %d buffers, LB_load %d, capacity %d; want %d, %d, %d",
					w.Format, p.Len(), p.LoadBound(), p.Capacity, c.n, c.lb, c.cap)
			}
			// The conversions keep the bound on real data too.
			q, err := p.ToTrace().ToProblem()
			if err != nil {
				t.Fatal(err)
			}
			if q.LoadBound() != c.lb {
				t.Fatalf("LB_load after problem -> trace -> problem: %d", q.LoadBound())
			}
		})
	}
}
