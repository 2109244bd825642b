package results

// Best is the best known of one problem: the smallest footprint of any
// validated plan and the largest lower bound proved (at least LB_load).
type Best struct {
	Footprint, Bound int64
}

// Optimal reports that the best known footprint is proved optimal.
func (b Best) Optimal() bool { return b.Footprint > 0 && b.Footprint == b.Bound }

// BestTable is a table of best-known values by problem content hash, such
// as the shipped one that package results/best gives (best.Known). Reports
// take it as an argument; a nil table knows nothing, and reports then work
// from the records alone.
type BestTable map[string]Best

// BestKnown returns, per content hash, the best known of every problem of
// recs: table improved by the records themselves (the smallest footprint
// of an ok strategy record, the largest proved bound or LB_load), so that
// a sweep's own exact results count at once.
func BestKnown(recs []Record, table BestTable) map[string]Best {
	out := map[string]Best{}
	for i := range recs {
		r := &recs[i]
		if r.Hash == "" {
			continue
		}
		b, seen := out[r.Hash]
		if !seen {
			b = table[r.Hash]
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
