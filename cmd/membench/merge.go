package main

import (
	"context"
	"fmt"

	"membench/harness"
)

func init() {
	register(&command{
		name:    "merge",
		usage:   "--out DIR [--force] [--allow-failed-cells] DIR...",
		summary: "Merge the output folders of a sharded sweep into one, as if run unsharded.",
		run:     runMerge,
	})
}

func runMerge(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["merge"])
	out := fs.String("out", "", "output `DIR` for the merged sweep")
	force := fs.Bool("force", false, "replace a non-empty output folder")
	allowFailed := fs.Bool("allow-failed-cells", false, "exit 0 when every cell has a result even if cells failed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return badUsage("merge: want --out DIR and at least one shard folder")
	}
	o, err := harness.Merge(*out, fs.Args(), *force)
	if o != nil {
		fmt.Fprintf(e.stdout, "%s: merged %d folders, %d failed cells\n", o.Dir, fs.NArg(), len(o.Failed))
	}
	return allowFailedCells(e, o, err, *allowFailed)
}
