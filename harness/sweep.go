package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"membench/results"
	"membench/results/best"
	"membench/strategies"
	"membench/workloads"
)

// Options control a sweep.
type Options struct {
	Config *Config
	// Out is the output folder (default out/<config name>).
	Out string
	// Jobs is the number of worker processes. Use 1 when timings matter:
	// parallel workers share cores, caches and memory bandwidth.
	Jobs int
	// Resume finishes an interrupted sweep in Out; Force overwrites one.
	Resume, Force bool
	// RetryFailed, with Resume, also reruns the cells recorded as failed
	// (error, timeout, oom, invalid). Without it, resume reruns only the
	// cells without a record and those whose worker was killed from
	// outside (see Rerun).
	RetryFailed bool
	// Shard and Shards select shard Shard (0-based) of Shards.
	Shard, Shards int
	// Progress receives the progress bar (Terminal) or periodic lines.
	Progress io.Writer
	Terminal bool
	// Executable is the binary to re-execute as workers (default: this one).
	Executable string
}

// Outcome summarises a finished sweep.
type Outcome struct {
	Dir string
	// Ran counts the cells run now, Skipped those already done.
	Ran, Skipped int
	// Records are all the sweep's records, old and new.
	Records []results.Record
	// Failed lists the records whose status is not ok.
	Failed []results.Record
	// Files are the output files written.
	Files []string
}

// Run runs (or resumes) a sweep and writes its output folder. It returns
// an error when a cell failed (after writing every output), or when the
// sweep could not run at all.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	c := o.Config
	if o.Out == "" {
		o.Out = filepath.Join("out", c.Name)
	}
	if o.Jobs < 1 {
		o.Jobs = 1
	}
	if o.Shards < 1 {
		o.Shards = 1
	}
	if o.Shard < 0 || o.Shard >= o.Shards {
		return nil, workloads.Usagef("shard %d/%d: want 0 <= I < N", o.Shard, o.Shards)
	}
	if o.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		o.Executable = exe
	}
	if o.RetryFailed && !o.Resume {
		return nil, workloads.Usagef("--retry-failed goes with --resume")
	}
	pl, err := c.Expand()
	if err != nil {
		return nil, err
	}
	cells := Shard(pl.Cells, o.Shard, o.Shards)
	shard := ""
	if o.Shards > 1 {
		shard = fmt.Sprintf("%d/%d", o.Shard, o.Shards)
	}

	// One writer at a time, from the manifest check (and --force's
	// clearing) to the last plot.
	release, err := lockDir(o.Out)
	if err != nil {
		return nil, err
	}
	defer release()
	warn := o.Progress
	if warn == nil {
		warn = io.Discard
	}
	removeTemps(o.Out, warn)

	manPath := filepath.Join(o.Out, "manifest.json")
	resPath := filepath.Join(o.Out, "results.jsonl")
	man := newManifest(c, shard, len(cells), o.Jobs)
	old, err := readManifest(manPath)
	switch {
	case err == nil && o.Resume:
		if old.ConfigHash != man.ConfigHash || old.Shard != man.Shard {
			return nil, workloads.Usagef("%s holds a sweep of another config (hash %s, shard %q; this one %s, %q): "+
				"resume it with the same config, or choose another --out or --force", o.Out, old.ConfigHash, old.Shard, man.ConfigHash, man.Shard)
		}
		old.Resumed = append(old.Resumed, time.Now().UTC())
		old.End = time.Time{}
		man = old
	case err == nil && !o.Force:
		return nil, workloads.Usagef("%s already holds a sweep: pass --resume to finish it or --force to start over", o.Out)
	case err == nil || errors.Is(err, os.ErrNotExist):
		// Results without a manifest, or of a sweep being overwritten, go.
		os.Remove(resPath)
		os.Remove(resPath + results.GarbledSuffix)
	default:
		return nil, fmt.Errorf("%s: %w", manPath, err)
	}
	if err := man.write(manPath); err != nil {
		return nil, err
	}

	store, done, err := results.OpenChecked(resPath, cellCheck(cells, shard))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	for _, m := range pl.Warnings {
		fmt.Fprintf(warn, "membench: warning: %s\n", m)
	}
	for _, d := range store.Dropped {
		if d.Refused {
			fmt.Fprintf(warn, "membench: warning: %s:%d: %s; dropped (its text is kept in %s)\n",
				resPath, d.Line, d.Reason, resPath+results.GarbledSuffix)
			continue
		}
		fmt.Fprintf(warn, "membench: warning: %s:%d: not a result record (%s); dropped (its text is kept in %s), its cell runs again\n",
			resPath, d.Line, d.Reason, resPath+results.GarbledSuffix)
	}
	have := map[results.Key]bool{}
	for i := range done {
		have[done[i].Key()] = !Rerun(done[i], o.RetryFailed)
	}
	var todo []Cell
	for _, cell := range cells {
		if !have[cell.Key()] {
			todo = append(todo, cell)
		}
	}
	out := &Outcome{Dir: o.Out, Skipped: len(cells) - len(todo)}

	prog := newProgress(o, todo)
	err = runCells(ctx, o, todo, func(cell Cell, rec results.Record, took time.Duration) error {
		out.Ran++
		prog.step(cell, rec, took)
		return store.Append(&rec)
	})
	prog.finish()
	if err != nil {
		return out, err
	}

	recs, _, err := results.ReadFile(resPath)
	if err != nil {
		return out, err
	}
	man.End = time.Now().UTC()
	if err := man.write(manPath); err != nil {
		return out, err
	}
	return finish(out, o.Out, man, recs, pl.load)
}

// cellCheck returns a check that refuses a record of no cell of cells (a
// workload, subject or repeat the config does not have, or, for shard, one
// of another shard), or of a cell whose workload has other content now
// than when it ran (its file changed): another config's records, which
// must not enter the sweep's reports.
func cellCheck(cells []Cell, shard string) func(*results.Record) error {
	of := "the config"
	if shard != "" {
		of = "shard " + shard + " of the config"
	}
	byKey := make(map[results.Key]*Cell, len(cells))
	for i := range cells {
		byKey[cells[i].Key()] = &cells[i]
	}
	return func(r *results.Record) error {
		c, ok := byKey[r.Key()]
		switch {
		case !ok:
			return fmt.Errorf("a record of %s, which is no cell of %s", r.Key(), of)
		case r.Kind != c.Kind:
			return fmt.Errorf("a record of %s of kind %s, which %s runs as a %s", r.Key(), workloads.Echo(r.Kind), of, c.Kind)
		case r.Hash != c.Info.Hash:
			return fmt.Errorf("a record of %s on workload content %s, which is now %s", r.Key(), workloads.Echo(r.Hash), c.Info.Hash)
		}
		return nil
	}
}

// killedPrefix starts the error of a cell whose worker a signal killed
// that membench did not send; noWorkerPrefix that of a cell for which no
// worker could be started, for want of processes.
const (
	killedPrefix   = "worker killed by signal "
	noWorkerPrefix = "no worker could be started (--resume runs the cell again): "
)

// workerStartRetries are the pauses before starting a worker again when
// there was no process to start it in (ulimit -u): the processes of a
// planner just killed take a moment to go.
var workerStartRetries = []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, time.Second}

// startWorkerRetrying starts a worker, trying again after each of
// workerStartRetries while the system has no process for it.
func startWorkerRetrying(ctx context.Context, exe string, memLimit int64) (*worker, error) {
	for try := 0; ; try++ {
		w, err := startWorker(exe, memLimit)
		if err == nil || !errors.Is(err, syscall.EAGAIN) || try == len(workerStartRetries) {
			return w, err
		}
		select {
		case <-time.After(workerStartRetries[try]):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Rerun reports whether resuming a sweep runs a recorded cell again: never
// when it is ok or unsupported; always when its worker was killed by a signal membench
// did not send (another process, or the kernel's OOM killer: the cell did
// not fail by itself, status error, "worker killed by signal ...") or
// could not be started for want of processes; and
// every other failure (error, timeout, oom, invalid) only with
// retryFailed, since those are the cell's own results.
func Rerun(r results.Record, retryFailed bool) bool {
	switch {
	case r.Status == results.StatusOK || r.Status == results.StatusUnsupported:
		return false
	case r.Status == results.StatusError && (strings.HasPrefix(r.Error, killedPrefix) || strings.HasPrefix(r.Error, noWorkerPrefix)):
		return true
	}
	return retryFailed
}

// removeTemps removes the temporary files of atomic writes (.NAME.tmp*)
// that a kill left in dir and dir/plots. Only the folder's lock holder
// calls it, so no write is under way.
func removeTemps(dir string, warn io.Writer) {
	for _, d := range []string{dir, filepath.Join(dir, "plots")} {
		tmps, _ := filepath.Glob(filepath.Join(d, ".*.tmp*"))
		for _, t := range tmps {
			if os.Remove(t) == nil {
				fmt.Fprintf(warn, "membench: removed %s, left by an interrupted write\n", t)
			}
		}
	}
}

// finish writes results.txt, summary.md and the plots from the records and
// reports failed cells as an error; the figures get their workloads from
// load.
func finish(out *Outcome, dir string, man *Manifest, recs []results.Record, load loader) (*Outcome, error) {
	out.Records = recs
	files, err := writeReports(dir, man, recs, load)
	out.Files = files
	if err != nil {
		return out, err
	}
	for _, r := range recs {
		if r.Failed() {
			out.Failed = append(out.Failed, r)
		}
	}
	if len(out.Failed) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d of %d cells failed:", len(out.Failed), len(recs))
		for i, r := range out.Failed {
			if i == 10 {
				fmt.Fprintf(&b, "\n  ... and %d more (see %s)", len(out.Failed)-10, filepath.Join(dir, "results.jsonl"))
				break
			}
			fmt.Fprintf(&b, "\n  %s: %s: %s", r.Key(), r.Status, Headline(r.Error))
		}
		return out, errors.New(b.String())
	}
	return out, nil
}

// WriteReports writes results.txt, summary.md and plots/*.png from the
// records of a sweep folder.
func WriteReports(dir string, man *Manifest, recs []results.Record) ([]string, error) {
	return writeReports(dir, man, recs, workloads.Load)
}

// loader gets a workload by its spec: workloads.Load, or a sweep's own
// matrix, which keeps those it loaded.
type loader func(spec string) (*workloads.Workload, error)

// writeReports is WriteReports with the figures' workloads from load.
func writeReports(dir string, man *Manifest, recs []results.Record, load loader) ([]string, error) {
	var files []string
	txt := filepath.Join(dir, "results.txt")
	var b strings.Builder
	if err := results.WriteBenchfmt(&b, man.benchConfig(), recs, best.Known()); err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(txt, []byte(b.String())); err != nil {
		return nil, err
	}
	files = append(files, txt)
	b.Reset()
	md := filepath.Join(dir, "summary.md")
	if err := results.WriteSummary(&b, "membench sweep: "+man.Config.Name, recs, best.Known()); err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(md, []byte(b.String())); err != nil {
		return nil, err
	}
	files = append(files, md)
	plotDir := filepath.Join(dir, "plots")
	if err := os.MkdirAll(plotDir, 0o755); err != nil {
		return nil, err
	}
	pngs, err := drawPlots(context.Background(), plotDir, recs, "", load)
	files = append(files, pngs...)
	return files, err
}

// Headline is the line of a multi-line error that says most: a Go
// panic's first line (the value; the stack follows), else the last
// non-blank line (a Python traceback ends with the exception, a worker's
// death with the runtime's or the watchdog's word). The whole text stays
// in the record.
func Headline(msg string) string {
	msg = strings.TrimSpace(msg)
	if first, _, _ := strings.Cut(msg, "\n"); strings.HasPrefix(first, "panic: ") {
		return first
	}
	lines := strings.Split(msg, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// ended is a cell's record and how long its worker took.
type ended struct {
	cell Cell
	rec  results.Record
	took time.Duration
}

// runCells runs cells on o.Jobs workers and hands each record to emit, in
// the order the cells end. emit runs on one goroutine at a time.
func runCells(ctx context.Context, o Options, cells []Cell, emit func(Cell, results.Record, time.Duration) error) error {
	if len(cells) == 0 {
		return nil
	}
	queue := make(chan Cell)
	recs := make(chan ended)
	errc := make(chan error, o.Jobs)
	jobs := min(o.Jobs, len(cells))
	for range jobs {
		go func() {
			var w *worker
			defer func() {
				if w != nil {
					w.close()
				}
			}()
			for cell := range queue {
				if w == nil {
					var err error
					if w, err = startWorkerRetrying(ctx, o.Executable, o.Config.MemoryLimit.Bytes); err != nil {
						if !errors.Is(err, syscall.EAGAIN) || ctx.Err() != nil {
							errc <- err
							return
						}
						// No process to be had (ulimit -u): not the cell's
						// own result; the next cell tries again.
						recs <- ended{cell, failed(cell, results.StatusError, noWorkerPrefix+err.Error()), 0}
						continue
					}
				}
				start := time.Now()
				rec, ok := w.run(ctx, cell)
				took := time.Since(start)
				if !ok {
					// It was killed or died, perhaps leaving its planner's
					// processes; start afresh.
					strategies.KillPlanners(w.cmd.Process.Pid)
					w = nil
				}
				if ctx.Err() != nil {
					errc <- ctx.Err()
					return
				}
				recs <- ended{cell, rec, took}
			}
			errc <- nil
		}()
	}
	go func() {
		defer close(queue)
		for _, cell := range cells {
			select {
			case queue <- cell:
			case <-ctx.Done():
				return
			}
		}
	}()
	var firstErr error
	for running := jobs; running > 0; {
		select {
		case e := <-recs:
			if err := emit(e.cell, e.rec, e.took); err != nil && firstErr == nil {
				firstErr = err
			}
		case err := <-errc:
			running--
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if errors.Is(firstErr, context.Canceled) {
		return fmt.Errorf("interrupted; finished cells are saved, rerun with --resume to finish the sweep")
	}
	return firstErr
}
