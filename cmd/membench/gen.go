package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"membench/results"
	"membench/workloads"
)

func init() {
	register(&command{
		name:    "gen",
		usage:   "WORKLOAD [--format tflite|minimalloc|trace|json] [--out FILE] [--max-input SIZE]",
		summary: "Export a workload (a name or a file) as TFLite records, MiniMalloc CSV, a trace or membench JSON.",
		run:     runGen,
	})
}

func runGen(ctx context.Context, e *env, args []string) error {
	c := commands["gen"]
	fs := newFlags(e, c)
	format := fs.String("format", workloads.FormatJSON, "output `FORMAT`: "+strings.Join(workloads.WriteFormats, ", "))
	out := fs.String("out", "", "write to `FILE` (atomically: all or nothing) instead of stdout")
	maxInput := maxInputFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badUsage("gen: want exactly one WORKLOAD, got %d", fs.NArg())
	}
	if !slices.Contains(workloads.WriteFormats, *format) {
		return badUsage("gen: unknown --format %q (valid: %s)", *format, strings.Join(workloads.WriteFormats, ", "))
	}
	w, err := e.loadMax(fs.Arg(0), *maxInput)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if *out == "" {
		// Everything that can fail has run; only writing is left.
		bw := bufio.NewWriter(e.stdout)
		if err := workloads.Write(bw, w, *format); err != nil {
			return err
		}
		return bw.Flush()
	}
	// Refuse a missing folder up front: that is the user's mistake, not a
	// failed write.
	if st, err := os.Stat(filepath.Dir(*out)); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a folder")
		}
		return badUsage("gen: --out %s: %v", *out, unwrapPath(err))
	}
	return results.WriteAtomic(*out, func(f io.Writer) error { return workloads.Write(f, w, *format) })
}
