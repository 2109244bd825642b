package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"membench/results"
	"membench/results/best"
	"membench/view"
	"membench/workloads"
)

// viewMemoryLimit is the viewer's soft memory limit (runtime/debug).
const viewMemoryLimit = 1536 << 20

func init() {
	register(&command{
		name:    "view",
		usage:   "[--strategy SPEC]... [--allocator SPEC]... [--addr HOST:PORT] [--html FILE.html] [--max-input SIZE] WORKLOAD|DIR...",
		summary: "Show plans, replays, PyTorch snapshots and sweep folders in an interactive page in the browser.",
		run:     runView,
	})
}

// runView loads what it is asked to show, then serves the viewer until
// ctx ends (Ctrl-C), or writes a static page with --html.
func runView(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["view"])
	strats := fs.StringArray("strategy", nil, "plan each WORKLOAD with strategy `SPEC` (repeat for several; two are compared buffer by buffer; default greedy-by-size for a static workload)")
	allocs := fs.StringArray("allocator", nil, "replay each WORKLOAD with allocator `SPEC` (repeat for several; default torch-caching for a recorded trace)")
	addr := fs.String("addr", "127.0.0.1:0", "serve on `HOST:PORT` (port 0: a free one)")
	html := fs.String("html", "", "write one self-contained page to `FILE.html` (workloads of up to 100,000 buffers and events) and exit")
	maxInput := maxInputFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return badUsage("view: want a WORKLOAD or a results folder")
	}
	// The server holds every workload and its summaries for as long as it
	// runs: a soft memory limit makes the collector keep the heap near
	// what is live (GOMEMLIMIT, where set, says otherwise).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(viewMemoryLimit)
	}
	var entries []*view.Entry
	var sweep *view.Sweep
	for _, arg := range fs.Args() {
		if st, err := os.Stat(arg); err == nil && st.IsDir() {
			if sweep != nil {
				return badUsage("view: one results folder at a time (got a second, %s)", arg)
			}
			recs, _, err := results.ReadFile(filepath.Join(arg, "results.jsonl"))
			if errors.Is(err, os.ErrNotExist) {
				return badUsage("view: %s is a folder without results.jsonl: want a results folder written by membench run", arg)
			}
			if err != nil {
				return err
			}
			sweep = view.NewSweep(arg, recs, best.Known())
			continue
		}
		w, err := e.loadMax(arg, *maxInput)
		if err != nil {
			return err
		}
		ss, as := *strats, *allocs
		if len(ss) == 0 && len(as) == 0 {
			if w.Trace != nil {
				as = []string{"torch-caching"}
			} else {
				ss = []string{"greedy-by-size"}
			}
		}
		ent, err := view.Build(ctx, w, ss, as)
		if err != nil {
			return fmt.Errorf("view: %w", err)
		}
		entries = append(entries, ent)
	}
	if *html != "" {
		if sweep != nil {
			return badUsage("view: --html writes plans and replays; a results folder needs the server")
		}
		if st, err := os.Stat(filepath.Dir(*html)); err != nil || !st.IsDir() {
			if err == nil {
				err = errors.New("not a folder")
			}
			return badUsage("view: --html %s: %v", *html, unwrapPath(err))
		}
		err := results.WriteAtomic(*html, func(f io.Writer) error { return view.Export(f, entries) })
		if errors.Is(err, view.ErrTooLarge) {
			return usageErr{fmt.Errorf("view: --html: %w", err)}
		}
		return err
	}
	srv := view.New(entries, sweep, view.Options{Load: func(spec string) (*workloads.Workload, error) { return e.loadMax(spec, *maxInput) }})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return badUsage("view: --addr %s: %v", *addr, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stdout, "membench view: open http://%s/ (Ctrl-C to stop)\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		return nil
	}
}
