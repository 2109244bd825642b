package workloads

import "slices"

// LoadBound returns the maximum over tasks of the summed size of the
// buffers live at that task (LB_load).
func LoadBound(bufs []Buffer) int64 {
	type edge struct {
		t     int
		delta int64
	}
	edges := make([]edge, 0, 2*len(bufs))
	for _, b := range bufs {
		if b.Size == 0 {
			continue
		}
		edges = append(edges, edge{b.First, b.Size}, edge{b.Last + 1, -b.Size})
	}
	// Frees at t+1 sort before allocations at t+1: a buffer ending at t and
	// one starting at t+1 are never live together.
	slices.SortFunc(edges, func(a, b edge) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		switch {
		case a.delta < b.delta:
			return -1
		case a.delta > b.delta:
			return 1
		}
		return 0
	})
	var live, peak int64
	for _, e := range edges {
		live += e.delta
		if live > peak {
			peak = live
		}
	}
	return peak
}
