package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"membench/harness"
)

func init() {
	register(&command{
		name: "run",
		usage: "[--config FILE] [--strategies a,b] [--allocators x,y] [--workloads w1,w2]\n" +
			"       [--repeats N] [--timeout DUR] [--jobs N] [--out DIR] [--resume|--force] [--shard I/N] [--allow-failed-cells]",
		summary: "Run a sweep (the embedded default suite, or --config FILE) and write results, summary and plots.",
		run:     runSweep,
	})
}

// sweepFlags are the flags shared by run and compare.
type sweepFlags struct {
	config                            string
	strategies, allocators, workloads []string
	repeats                           int
	timeout                           time.Duration
	jobs                              int
	out                               string
	resume, force                     bool
	shard                             string
}

func (f *sweepFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "experiment config `FILE` (TOML); default: the embedded default suite")
	fs.StringSliceVar(&f.strategies, "strategies", nil, "strategy specs to run (replaces the config's subjects)")
	fs.StringSliceVar(&f.allocators, "allocators", nil, "allocator specs to run (replaces the config's subjects)")
	fs.StringSliceVar(&f.workloads, "workloads", nil, "workload specs or files to run (replaces the config's)")
	fs.IntVar(&f.repeats, "repeats", 0, "repeats per (workload, subject) (default: the config's)")
	fs.DurationVar(&f.timeout, "timeout", 0, "per-cell timeout (default: the config's, else 60s)")
	fs.IntVar(&f.jobs, "jobs", 1, "worker processes; keep 1 when timings matter, since workers share cores")
	fs.StringVar(&f.out, "out", "", "output `DIR` (default out/<config name>)")
	fs.BoolVar(&f.resume, "resume", false, "finish an interrupted sweep in the output folder")
	fs.BoolVar(&f.force, "force", false, "overwrite a sweep already in the output folder")
	fs.StringVar(&f.shard, "shard", "", "run only shard `I/N` of the cells (0 <= I < N)")
}

// options builds the harness options from the flags.
func (f *sweepFlags) options(e *env) (harness.Options, error) {
	var o harness.Options
	var c *harness.Config
	var err error
	if f.config != "" {
		c, err = harness.LoadConfig(f.config)
	} else {
		c, err = harness.DefaultConfig()
	}
	if err != nil {
		return o, err
	}
	if len(f.workloads) > 0 {
		c.Workloads = entries(f.workloads)
	}
	if len(f.strategies) > 0 || len(f.allocators) > 0 {
		c.Strategies, c.Allocators = entries(f.strategies), entries(f.allocators)
	}
	if f.repeats < 0 || f.repeats > harness.MaxRepeats {
		return o, badUsage("--repeats %d: want 1 to %d", f.repeats, harness.MaxRepeats)
	}
	if f.repeats > 0 {
		c.Repeats = f.repeats
	}
	if f.timeout < 0 || f.timeout > harness.MaxTimeout {
		return o, badUsage("--timeout %s: want a positive duration up to %s", f.timeout, harness.MaxTimeout)
	}
	if f.timeout > 0 {
		c.Timeout.Duration = f.timeout
	}
	if f.jobs < 1 {
		return o, badUsage("--jobs must be >= 1")
	}
	if f.resume && f.force {
		return o, badUsage("--resume and --force exclude each other")
	}
	o = harness.Options{Config: c, Out: f.out, Jobs: f.jobs, Resume: f.resume, Force: f.force, Progress: e.stderr}
	if f.shard != "" {
		i, n, ok := strings.Cut(f.shard, "/")
		si, err1 := strconv.Atoi(i)
		sn, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || sn < 1 || si < 0 || si >= sn {
			return o, badUsage("--shard %q: want I/N with 0 <= I < N", f.shard)
		}
		o.Shard, o.Shards = si, sn
	}
	if fd, ok := e.stderr.(*os.File); ok {
		o.Terminal = term.IsTerminal(int(fd.Fd()))
	}
	return o, nil
}

func entries(specs []string) []harness.Entry {
	out := make([]harness.Entry, len(specs))
	for i, s := range specs {
		out[i] = harness.Entry{Spec: s}
	}
	return out
}

func runSweep(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["run"])
	var f sweepFlags
	f.add(fs)
	allowFailed := fs.Bool("allow-failed-cells", false, "exit 0 when the sweep ran to the end even if cells failed (they are results; batch schedulers then run the merge)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badUsage("run: unexpected arguments %q", fs.Args())
	}
	o, err := f.options(e)
	if err != nil {
		return err
	}
	out, err := harness.Run(ctx, o)
	if out != nil {
		fmt.Fprintf(e.stdout, "%s: %d cells run, %d already done, %d failed\n", out.Dir, out.Ran, out.Skipped, len(out.Failed))
		for _, f := range out.Files {
			fmt.Fprintf(e.stdout, "  wrote %s\n", f)
		}
	}
	return allowFailedCells(e, out, err, *allowFailed)
}

// allowFailedCells implements --allow-failed-cells: a sweep that ran to the
// end with failed cells prints their list but succeeds, so that a batch
// scheduler treats the failures as the results they are.
func allowFailedCells(e *env, out *harness.Outcome, err error, allow bool) error {
	// Only the last step fills Failed, after every output is written, and
	// its error is then the failure list.
	if err != nil && allow && out != nil && len(out.Failed) > 0 {
		fmt.Fprintln(e.stderr, "membench:", err)
		return nil
	}
	return err
}
