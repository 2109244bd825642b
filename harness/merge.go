package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"membench/results"
	"membench/workloads"
)

// Merge combines the output folders of a sweep's shards into out, which
// then equals the output of the unsharded sweep (record order aside). The
// shards must come from the same config and cover every shard exactly
// once; a cell present twice is an error. Of a cell rerun within a shard
// the latest record counts. out is locked like a sweep's folder.
func Merge(out string, dirs []string) (_ *Outcome, err error) {
	if len(dirs) == 0 {
		return nil, workloads.Usagef("merge: no input folders")
	}
	_, existed := os.Stat(out)
	release, err := lockDir(out)
	if err != nil {
		return nil, err
	}
	defer func() {
		release()
		if existed != nil && err != nil {
			os.Remove(out) // the folder we made, if the merge wrote nothing
		}
	}()
	removeTemps(out, io.Discard)
	var man *Manifest
	seenShard := map[int]string{}
	shards := 0
	var recs []results.Record
	seenKey := map[results.Key]string{}
	for _, d := range dirs {
		m, err := readManifest(filepath.Join(d, "manifest.json"))
		if err != nil {
			return nil, &workloads.InputError{File: filepath.Join(d, "manifest.json"), Msg: "not a sweep folder: " + err.Error()}
		}
		i, n := 0, 1
		if m.Shard != "" {
			si, sn, _ := strings.Cut(m.Shard, "/")
			i, _ = strconv.Atoi(si)
			n, _ = strconv.Atoi(sn)
		}
		if man == nil {
			man, shards = m, n
		} else if m.ConfigHash != man.ConfigHash {
			return nil, workloads.Usagef("merge: %s ran another config (hash %s) than %s (hash %s)", d, m.ConfigHash, dirs[0], man.ConfigHash)
		} else if n != shards {
			return nil, workloads.Usagef("merge: %s is shard %s, but %s has %d shards", d, m.Shard, dirs[0], shards)
		}
		if prev, dup := seenShard[i]; dup {
			return nil, workloads.Usagef("merge: %s and %s are both shard %d/%d", prev, d, i, n)
		}
		seenShard[i] = d
		rs, _, err := results.ReadFile(filepath.Join(d, "results.jsonl"))
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if prev, dup := seenKey[r.Key()]; dup {
				return nil, fmt.Errorf("merge: cell %s is in both %s and %s", r.Key(), prev, d)
			}
			seenKey[r.Key()] = d
			recs = append(recs, r)
		}
		if m.Start.Before(man.Start) {
			man.Start = m.Start
		}
		if m.End.After(man.End) {
			man.End = m.End
		}
	}
	var missing []string
	for i := range shards {
		if _, ok := seenShard[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, shards))
		}
	}
	if len(missing) > 0 {
		return nil, workloads.Usagef("merge: shards %s are missing", strings.Join(missing, ", "))
	}
	// Order the records as the unsharded sweep would have written them.
	pl, err := man.Config.Expand()
	if err != nil {
		return nil, err
	}
	pos := map[results.Key]int{}
	for _, c := range pl.Cells {
		pos[c.Key()] = c.Index
	}
	slices.SortStableFunc(recs, func(a, b results.Record) int { return pos[a.Key()] - pos[b.Key()] })
	merged := *man
	merged.Shard = ""
	merged.Cells = len(pl.Cells)
	if err := results.WriteFile(filepath.Join(out, "results.jsonl"), recs); err != nil {
		return nil, err
	}
	if err := merged.write(filepath.Join(out, "manifest.json")); err != nil {
		return nil, err
	}
	o := &Outcome{Dir: out}
	if len(recs) != len(pl.Cells) {
		return o, fmt.Errorf("merge: %d of %d cells have results; finish the shards with --resume", len(recs), len(pl.Cells))
	}
	return finish(o, out, &merged, recs)
}
