package harness

import (
	"errors"
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
// the latest record counts. A non-empty out is refused unless force; an
// existing out is locked like a sweep's folder while the merge replaces it.
// Merge writes nothing partial: the folder is staged beside out and renamed
// into place once complete.
func Merge(out string, dirs []string, force bool) (*Outcome, error) {
	if len(dirs) == 0 {
		return nil, workloads.Usagef("merge: no input folders")
	}
	if err := checkMergeOut(out, force); err != nil {
		return nil, err
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		release, err := lockDir(out)
		if err != nil {
			return nil, err
		}
		defer release()
		removeTemps(out, io.Discard)
	}
	var man *Manifest
	var pl *Matrix
	seenShard := map[int]string{}
	shards := 0
	var recs []results.Record
	seenKey := map[results.Key]string{}
	for _, d := range dirs {
		m, err := readManifest(filepath.Join(d, "manifest.json"))
		if err != nil {
			return nil, &workloads.InputError{File: filepath.Join(d, "manifest.json"), Msg: "not a sweep folder: " + err.Error()}
		}
		i, n, err := shardOf(m)
		if err != nil {
			return nil, &workloads.InputError{File: filepath.Join(d, "manifest.json"), Msg: err.Error()}
		}
		if man == nil {
			man, shards = m, n
			if pl, err = man.Config.Expand(); err != nil {
				return nil, err
			}
		} else if m.ConfigHash != man.ConfigHash {
			return nil, workloads.Usagef("merge: %s ran another config (hash %s) than %s (hash %s)", d, m.ConfigHash, dirs[0], man.ConfigHash)
		} else if n != shards {
			return nil, workloads.Usagef("merge: %s holds %s, but %s holds %s: merge the %d shards of one sharded sweep",
				d, shardName(m.Shard), dirs[0], shardName(man.Shard), max(n, shards))
		}
		if prev, dup := seenShard[i]; dup {
			return nil, workloads.Usagef("merge: %s and %s are both shard %d/%d", prev, d, i, n)
		}
		seenShard[i] = d
		// A record of another config is refused here, as a resumed
		// sweep would drop it.
		rs, _, err := results.ReadFileChecked(filepath.Join(d, "results.jsonl"), cellCheck(Shard(pl.Cells, i, n), m.Shard))
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
	pos := map[results.Key]int{}
	for _, c := range pl.Cells {
		pos[c.Key()] = c.Index
	}
	slices.SortStableFunc(recs, func(a, b results.Record) int { return pos[a.Key()] - pos[b.Key()] })
	if len(recs) != len(pl.Cells) {
		return nil, fmt.Errorf("merge: %d of %d cells have results; finish the shards with --resume", len(recs), len(pl.Cells))
	}
	merged := *man
	merged.Shard = ""
	merged.Cells = len(pl.Cells)

	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".merge-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage) // a no-op once renamed into place
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, err
	}
	if err := results.WriteFile(filepath.Join(stage, "results.jsonl"), recs); err != nil {
		return nil, err
	}
	if err := merged.write(filepath.Join(stage, "manifest.json")); err != nil {
		return nil, err
	}
	o, err := finish(&Outcome{}, stage, &merged, recs, workloads.Load)
	if err != nil && len(o.Failed) == 0 {
		return nil, err // the reports could not be written
	}
	if err := replaceDir(stage, out); err != nil {
		return nil, err
	}
	o.Dir = out
	for i, f := range o.Files {
		o.Files[i] = filepath.Join(out, strings.TrimPrefix(f, stage))
	}
	if err != nil {
		// The failed cells, named with the folder's final path.
		err = errors.New(strings.ReplaceAll(err.Error(), stage, out))
	}
	return o, err
}

// shardOf reads a manifest's shard label, "I/N" ("" is 0 of 1).
func shardOf(m *Manifest) (i, n int, err error) {
	if m.Shard == "" {
		return 0, 1, nil
	}
	si, sn, _ := strings.Cut(m.Shard, "/")
	i, err1 := strconv.Atoi(si)
	n, err2 := strconv.Atoi(sn)
	if err1 != nil || err2 != nil || n < 2 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("shard %s: want I/N with 0 <= I < N", workloads.Echo(m.Shard))
	}
	return i, n, nil
}

// shardName words a shard label for a message.
func shardName(label string) string {
	if label == "" {
		return "an unsharded sweep"
	}
	return "shard " + label
}

// checkMergeOut refuses an out that is a file, or a non-empty folder
// unless force.
func checkMergeOut(out string, force bool) error {
	ents, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return workloads.Usagef("merge: --out %s: %v", out, err)
	case len(ents) > 0 && !(len(ents) == 1 && ents[0].Name() == lockName) && !force:
		return workloads.Usagef("merge: --out %s is not empty: pass --force to replace it", out)
	}
	return nil
}

// replaceDir renames the folder from to to, moving an existing to aside
// first and removing it after, so that to is never half written.
func replaceDir(from, to string) error {
	old := ""
	if _, err := os.Lstat(to); err == nil {
		old = from + ".old"
		if err := os.Rename(to, old); err != nil {
			return err
		}
	}
	if err := os.Rename(from, to); err != nil {
		if old != "" {
			os.Rename(old, to)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}
