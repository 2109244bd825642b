package strategies

import (
	"slices"

	"membench/workloads"
)

// TaskProfiles returns, for every task t in [0, max Last], the indices of
// the buffers live at t, sorted by size descending with ties in index order
// (TFLite's CalculateTaskProfiles, which uses a stable sort). Buffers with
// First < 0 are clamped to 0.
func TaskProfiles(bufs []workloads.Buffer) [][]int32 {
	T := 0
	for _, b := range bufs {
		if b.Last+1 > T {
			T = b.Last + 1
		}
	}
	counts := make([]int32, T)
	for _, b := range bufs {
		for t := max(b.First, 0); t <= b.Last; t++ {
			counts[t]++
		}
	}
	// One flat backing array keeps the L entries contiguous.
	total := 0
	for _, c := range counts {
		total += int(c)
	}
	flat := make([]int32, total)
	profiles := make([][]int32, T)
	pos := 0
	for t, c := range counts {
		profiles[t] = flat[pos : pos : pos+int(c)]
		pos += int(c)
	}
	for i, b := range bufs {
		for t := max(b.First, 0); t <= b.Last; t++ {
			profiles[t] = append(profiles[t], int32(i))
		}
	}
	for _, prof := range profiles {
		slices.SortStableFunc(prof, func(x, y int32) int {
			sx, sy := bufs[x].Size, bufs[y].Size
			switch {
			case sx > sy:
				return -1
			case sx < sy:
				return 1
			}
			return 0
		})
	}
	return profiles
}

// PositionalMaximums returns TFLite's positional maximums: element k is the
// maximum over tasks of the k-th largest size live at that task. The
// sequence is non-increasing; its sum is LB_objects.
func PositionalMaximums(bufs []workloads.Buffer) []int64 {
	return positionalMaximums(bufs, TaskProfiles(bufs))
}

func positionalMaximums(bufs []workloads.Buffer, profiles [][]int32) []int64 {
	var pm []int64
	for _, prof := range profiles {
		for k, i := range prof {
			s := bufs[i].Size
			if k == len(pm) {
				pm = append(pm, s)
			} else if s > pm[k] {
				pm[k] = s
			}
		}
	}
	return pm
}
