package results

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"membench/workloads"
)

// CompareRow is one workload of a comparison.
type CompareRow struct {
	Workload string
	// BaseFootprint and CandFootprint are the two subjects' footprints.
	BaseFootprint, CandFootprint int64
	// Ratio is CandFootprint / BaseFootprint.
	Ratio float64
	// Outcome is "win" (candidate smaller), "tie" (within TieTolerance)
	// or "loss".
	Outcome string
	// BaseNs and CandNs are the median times; TimeDelta is benchstat's
	// delta ("~" where the difference is not significant) and TimeTest the
	// test's p-value and sample sizes.
	BaseNs, CandNs      float64
	TimeDelta, TimeTest string
	// BaseBest and CandBest are the footprints over the best known
	// (0 where none is known); Optimal reports that the best known is
	// proved optimal, so that they are gaps to the optimum.
	BaseBest, CandBest float64
	Optimal            bool
}

// Comparison is the answer to "does the candidate beat the baseline?".
type Comparison struct {
	Baseline, Candidate string
	Rows                []CompareRow
	// Missing lists workloads where one side has no ok result.
	Missing []string
	// GeoMean is the geometric mean of the footprint ratios.
	GeoMean            float64
	Wins, Ties, Losses int
	// Faster and Slower count workloads with a significant time difference.
	Faster, Slower int
	// BaseBestMean and CandBestMean are the geometric means of footprint /
	// best known over the BestRows workloads that have one, Optimal of
	// which have a proved optimum.
	BaseBestMean, CandBestMean float64
	BestRows, Optimal          int
}

// TieTolerance is how far a footprint ratio may be from 1 and still be a
// tie: |ratio - 1| <= 0.1%.
const TieTolerance = 0.001

// tie reports |cand/base - 1| <= TieTolerance, in integers: for whole
// bytes d, d <= base/1000 (rounded down) is d*1000 <= base, with no
// rounding of the ratio and no overflow.
func tie(base, cand int64) bool {
	d := cand - base
	if d < 0 {
		d = -d
	}
	return d <= base/int64(math.Round(1/TieTolerance))
}

// Compare compares two subjects over every workload both ran on. Time is
// compared with a Mann-Whitney U-test, as benchstat does (alpha 0.05). A
// strategy and an allocator do not compare: that is a usage error. table
// gives the best known of each problem beyond the records' own (BestKnown).
func Compare(recs []Record, baseline, candidate string, table BestTable) (*Comparison, error) {
	if err := CheckKinds(recs, baseline, candidate); err != nil {
		return nil, err
	}
	groups := Aggregate(recs, table)
	by := map[[2]string]*Group{}
	var workloads []string
	seen := map[string]bool{}
	for _, g := range groups {
		by[[2]string{g.Workload, g.Subject}] = g
		if !seen[g.Workload] && (g.Subject == baseline || g.Subject == candidate) {
			seen[g.Workload] = true
			workloads = append(workloads, g.Workload)
		}
	}
	if len(workloads) == 0 {
		return nil, fmt.Errorf("compare: no results for %q or %q", baseline, candidate)
	}
	c := &Comparison{Baseline: baseline, Candidate: candidate}
	thr := benchmath.DefaultThresholds
	var ratios, baseBest, candBest []float64
	for _, w := range workloads {
		b, k := by[[2]string{w, baseline}], by[[2]string{w, candidate}]
		if b == nil || k == nil || b.OK == 0 || k.OK == 0 {
			c.Missing = append(c.Missing, w)
			continue
		}
		row := CompareRow{Workload: w, BaseFootprint: b.Footprint, CandFootprint: k.Footprint,
			BaseNs: b.MedianNs, CandNs: k.MedianNs, BaseBest: b.BestRatio, CandBest: k.BestRatio, Optimal: b.Best.Optimal()}
		if row.BaseBest > 0 && row.CandBest > 0 {
			baseBest, candBest = append(baseBest, row.BaseBest), append(candBest, row.CandBest)
			if row.Optimal {
				c.Optimal++
			}
		}
		if b.Footprint > 0 {
			row.Ratio = float64(k.Footprint) / float64(b.Footprint)
			ratios = append(ratios, row.Ratio)
		}
		switch {
		case tie(b.Footprint, k.Footprint):
			row.Outcome = "tie"
			c.Ties++
		case k.Footprint < b.Footprint:
			row.Outcome = "win"
			c.Wins++
		default:
			row.Outcome = "loss"
			c.Losses++
		}
		row.TimeDelta, row.TimeTest = "?", "no samples"
		if len(b.TimesNs) > 0 && len(k.TimesNs) > 0 {
			s1 := benchmath.NewSample(append([]float64(nil), b.TimesNs...), &thr)
			s2 := benchmath.NewSample(append([]float64(nil), k.TimesNs...), &thr)
			cmp := benchmath.AssumeNothing.Compare(s1, s2)
			row.TimeDelta = cmp.FormatDelta(b.MedianNs, k.MedianNs)
			row.TimeTest = cmp.String()
			if cmp.P <= cmp.Alpha {
				if k.MedianNs < b.MedianNs {
					c.Faster++
				} else if k.MedianNs > b.MedianNs {
					c.Slower++
				}
			}
		}
		c.Rows = append(c.Rows, row)
	}
	if len(c.Rows) == 0 {
		return nil, fmt.Errorf("compare: no workload has ok results for both %q and %q", baseline, candidate)
	}
	c.GeoMean, _ = GeoMean(ratios)
	c.BestRows = len(baseBest)
	c.BaseBestMean, _ = GeoMean(baseBest)
	c.CandBestMean, _ = GeoMean(candBest)
	return c, nil
}

// Write prints the comparison as an aligned table with a verdict.
func (c *Comparison) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "workload\tbaseline B\tcandidate B\tratio\toutcome\tbaseline/best\tcandidate/best\tbaseline time\tcandidate time\tdelta\ttest\t\n")
	for _, r := range c.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Workload, r.BaseFootprint,
			r.CandFootprint, r.Ratio, r.Outcome, bestText(r.BaseBest, r.Optimal), bestText(r.CandBest, r.Optimal),
			fmtNs(r.BaseNs), fmtNs(r.CandNs), r.TimeDelta, r.TimeTest)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nbaseline  %s\ncandidate %s\n", c.Baseline, c.Candidate)
	fmt.Fprintf(w, "footprint ratio geomean %.4f over %d workloads: %d wins, %d ties, %d losses\n",
		c.GeoMean, len(c.Rows), c.Wins, c.Ties, c.Losses)
	if c.BestRows > 0 {
		fmt.Fprintf(w, "footprint / best known, geomean over %d workloads (%d with a proved optimum, %s): baseline %.4f, candidate %.4f\n",
			c.BestRows, c.Optimal, optimalMark, c.BaseBestMean, c.CandBestMean)
	}
	fmt.Fprintf(w, "time: significantly faster on %d, slower on %d (Mann-Whitney U, alpha 0.05)\n", c.Faster, c.Slower)
	if len(c.Missing) > 0 {
		fmt.Fprintf(w, "no ok result for both on: %s\n", strings.Join(c.Missing, ", "))
	}
	return nil
}

// bestText prints a footprint / best known ratio, starred where the best
// known is proved optimal (the ratio is then the gap to the optimum).
func bestText(r float64, optimal bool) string {
	switch {
	case r == 0:
		return notRun
	case optimal:
		return fmt.Sprintf("%.4f %s", r, optimalMark)
	}
	return fmt.Sprintf("%.4f", r)
}

// CheckKinds refuses, as a usage error, to compare a strategy with an
// allocator: their footprints measure different things. The kinds are
// those of the subjects' records.
func CheckKinds(recs []Record, baseline, candidate string) error {
	kinds := map[string]string{}
	for _, r := range recs {
		if r.Subject == baseline || r.Subject == candidate {
			kinds[r.Subject] = r.Kind
		}
	}
	if kb, kc := kinds[baseline], kinds[candidate]; kb != "" && kc != "" && kb != kc {
		return workloads.Usagef("compare: baseline %q is %s but candidate %q is %s; compare strategies with strategies and allocators with allocators",
			baseline, aKind(kb), candidate, aKind(kc))
	}
	return nil
}

// aKind names a kind with its article.
func aKind(k string) string {
	if k == KindAllocator {
		return "an allocator"
	}
	return "a " + k
}
