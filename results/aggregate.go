package results

import (
	"cmp"
	"slices"

	"github.com/montanaflynn/stats"
)

// Group aggregates the repeats of one (workload, subject) pair.
type Group struct {
	Workload, Subject, Kind string
	N                       int
	// OK counts repeats with status ok; Failed holds the statuses of the rest.
	OK     int
	Failed []string
	// Footprint, LBLoad and Ratio come from the ok repeats (the median where
	// they differ, as allocators with randomness might).
	Footprint int64
	LBLoad    int64
	Ratio     float64
	// TimesNs pools every time sample of the ok repeats.
	TimesNs []float64
	// MedianNs is the median of TimesNs (0 when there are none).
	MedianNs float64
	// Alloc is the allocator statistics of the first ok repeat.
	Alloc *AllocStats
	// Spaces is the memory spaces of the first ok repeat (Record.Spaces).
	Spaces []SpaceStat
	// Best is the best known of the workload's problem (BestKnown), and
	// BestRatio the footprint over its footprint; zero where none is known.
	Best      Best
	BestRatio float64
}

// Aggregate groups records by (workload, subject), in order of first
// appearance of the workload and then of the subject; table gives the best
// known of each problem beyond the records' own (BestKnown).
func Aggregate(recs []Record, table BestTable) []*Group {
	type gk struct{ w, s string }
	idx := map[gk]*Group{}
	var order []*Group
	wOrder := map[string]int{}
	sOrder := map[string]int{}
	for i := range recs {
		r := &recs[i]
		if _, ok := wOrder[r.Workload]; !ok {
			wOrder[r.Workload] = len(wOrder)
		}
		if _, ok := sOrder[r.Subject]; !ok {
			sOrder[r.Subject] = len(sOrder)
		}
		k := gk{r.Workload, r.Subject}
		g := idx[k]
		if g == nil {
			g = &Group{Workload: r.Workload, Subject: r.Subject, Kind: r.Kind, N: r.N, LBLoad: r.LBLoad}
			idx[k] = g
			order = append(order, g)
		}
		if r.Status != StatusOK {
			g.Failed = append(g.Failed, r.Status)
			continue
		}
		g.OK++
		g.TimesNs = append(g.TimesNs, r.TimesNs...)
		if g.Alloc == nil {
			g.Alloc = r.Alloc
		}
		if g.Spaces == nil {
			g.Spaces = r.Spaces
		}
	}
	// Footprints per group: the median over ok repeats.
	fps := map[gk][]float64{}
	ratios := map[gk][]float64{}
	for i := range recs {
		r := &recs[i]
		if r.Status == StatusOK {
			k := gk{r.Workload, r.Subject}
			fps[k] = append(fps[k], float64(r.Footprint))
			ratios[k] = append(ratios[k], r.Ratio)
		}
	}
	best := BestKnown(recs, table)
	hashes := map[string]string{}
	for i := range recs {
		hashes[recs[i].Workload] = recs[i].Hash
	}
	for k, g := range idx {
		if len(fps[k]) > 0 {
			fp, _ := stats.Median(fps[k])
			g.Footprint = int64(fp)
			g.Ratio, _ = stats.Median(ratios[k])
		}
		if b, ok := best[hashes[g.Workload]]; ok {
			g.Best = b
			if g.Footprint > 0 {
				g.BestRatio = float64(g.Footprint) / float64(b.Footprint)
			}
		}
		if len(g.TimesNs) > 0 {
			g.MedianNs, _ = stats.Median(g.TimesNs)
		}
	}
	slices.SortStableFunc(order, func(a, b *Group) int {
		if c := cmp.Compare(wOrder[a.Workload], wOrder[b.Workload]); c != 0 {
			return c
		}
		return cmp.Compare(sOrder[a.Subject], sOrder[b.Subject])
	})
	return order
}

// GeoMean returns the geometric mean of the positive values in xs, and
// false when there are none.
func GeoMean(xs []float64) (float64, bool) {
	var pos []float64
	for _, x := range xs {
		if x > 0 {
			pos = append(pos, x)
		}
	}
	if len(pos) == 0 {
		return 0, false
	}
	g, err := stats.GeometricMean(pos)
	return g, err == nil
}
