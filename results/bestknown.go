package results

// Best is the best known of one problem: the smallest footprint of any
// validated plan and the largest lower bound proved (at least LB_load).
type Best struct {
	Footprint, Bound int64
}

// Optimal reports that the best known footprint is proved optimal.
func (b Best) Optimal() bool { return b.Footprint > 0 && b.Footprint == b.Bound }

// BestTable gives the shipped best known of a problem by its content hash.
// Package results/best sets it from its table; reports work without it,
// from the records alone.
var BestTable func(hash string) (Best, bool)

// BestKnown returns, per content hash, the best known of every problem of
// recs: the shipped table improved by the records themselves (the smallest
// footprint of an ok strategy record, the largest proved bound or
// LB_load), so that a sweep's own exact results count at once.
func BestKnown(recs []Record) map[string]Best {
	out := map[string]Best{}
	for i := range recs {
		r := &recs[i]
		if r.Hash == "" {
			continue
		}
		b, seen := out[r.Hash]
		if !seen && BestTable != nil {
			b, _ = BestTable(r.Hash)
		}
		b.Bound = max(b.Bound, r.LBLoad)
		if r.Status == StatusOK && r.Kind == KindStrategy {
			b.Bound = max(b.Bound, r.Bound)
			if b.Footprint == 0 || r.Footprint < b.Footprint {
				b.Footprint = r.Footprint
			}
		}
		out[r.Hash] = b
	}
	for h, b := range out {
		if b.Footprint == 0 {
			delete(out, h) // no plan known: nothing to compare with
		}
	}
	return out
}
