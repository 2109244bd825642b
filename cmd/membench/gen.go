package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"membench/workloads"
)

func init() {
	register(&command{
		name:    "gen",
		usage:   "WORKLOAD [--format tflite|minimalloc|trace|json] [--out FILE]",
		summary: "Export a workload (a name or a file) as TFLite records, MiniMalloc CSV, a trace or membench JSON.",
		run:     runGen,
	})
}

func runGen(ctx context.Context, e *env, args []string) error {
	c := commands["gen"]
	fs := newFlags(e, c)
	format := fs.String("format", workloads.FormatJSON, "output `FORMAT`: "+strings.Join(workloads.WriteFormats, ", "))
	out := fs.String("out", "", "write to `FILE` (atomically: all or nothing) instead of stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badUsage("gen: want exactly one WORKLOAD, got %d", fs.NArg())
	}
	if !slices.Contains(workloads.WriteFormats, *format) {
		return badUsage("gen: unknown --format %q (valid: %s)", *format, strings.Join(workloads.WriteFormats, ", "))
	}
	w, err := workloads.Load(fs.Arg(0))
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
	return writeAtomic(*out, func(f *os.File) error { return workloads.Write(f, w, *format) })
}

// writeAtomic writes path through a temporary file in the same folder that
// is renamed over path only once complete, so a failure or an interrupt
// never leaves a partial file behind.
func writeAtomic(path string, write func(*os.File) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return badUsage("gen: --out %s: %v", path, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
