package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"membench/results"
)

// Prior is what an output folder already holds.
type Prior struct {
	// Same reports that the folder holds a sweep of the same config and
	// shard as the options.
	Same bool
	// Cells is the number of cells of that sweep, Done the number with a
	// record.
	Cells, Done int
	// Complete reports that the sweep ran every cell and wrote its
	// reports.
	Complete bool
	// Records are the folder's records (only where Same).
	Records []results.Record
}

// Inspect reports what o.Out (default out/<config name>) already holds:
// nil where it holds no sweep. It lets a caller reuse a finished sweep of
// the same config instead of running it again.
func Inspect(o Options) (*Prior, error) {
	out := o.Out
	if out == "" {
		out = filepath.Join("out", o.Config.Name)
	}
	manPath := filepath.Join(out, "manifest.json")
	old, err := readManifest(manPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manPath, err)
	}
	shard := ""
	if o.Shards > 1 {
		shard = fmt.Sprintf("%d/%d", o.Shard, o.Shards)
	}
	p := &Prior{Same: old.ConfigHash == configHash(o.Config) && old.Shard == shard, Cells: old.Cells}
	if !p.Same {
		return p, nil
	}
	recs, _, err := results.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	seen := map[results.Key]bool{}
	for _, r := range recs {
		seen[r.Key()] = true
	}
	p.Records, p.Done = recs, len(seen)
	p.Complete = p.Done == p.Cells && !old.End.IsZero()
	return p, nil
}
