// Package view serves membench's interactive viewer (DESIGN §16): plans,
// replays, PyTorch snapshots and sweep folders in a browser page embedded
// in the binary. The server holds each workload once and answers zoom
// requests with level-of-detail summaries (Layout.Query, Series.Bins), so
// the page receives only what the current view shows, whatever the size of
// the workload. Static pages (Export) carry the whole data and answer the
// same requests in the page itself.
package view

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"strconv"
	"sync"

	"membench/allocators"
	"membench/results"
	"membench/strategies"
	"membench/workloads"
)

//go:embed web
var web embed.FS

// Entry is one workload with its plans and replays.
type Entry struct {
	Spec    string
	Problem *workloads.Problem
	Trace   *workloads.Trace
	// Snapshot says the trace is a PyTorch snapshot (its recorded
	// settings and segments are shown beside the replays).
	Snapshot bool
	Plans    []*Layout
	Replays  []*Replay
}

// Server is the viewer's HTTP handler. Its methods are safe for
// concurrent use.
type Server struct {
	mu      sync.Mutex
	entries []*Entry
	sweep   *Sweep
	// open loads a workload and runs a subject on it, for the sweep
	// table's cells; nil where the server has no sweep.
	open func(ctx context.Context, spec, strategy, allocator string) (*Entry, error)
}

// Options configure a server.
type Options struct {
	// Load opens a workload spec for a sweep's cells (the CLI's loader,
	// with its input limits).
	Load func(spec string) (*workloads.Workload, error)
}

// New returns a server showing entries and, if sweep is not nil, a sweep
// whose cells open their workload with o.Load.
func New(entries []*Entry, sweep *Sweep, o Options) *Server {
	s := &Server{entries: entries, sweep: sweep}
	if o.Load != nil {
		s.open = func(ctx context.Context, spec, strategy, allocator string) (*Entry, error) {
			w, err := o.Load(spec)
			if err != nil {
				return nil, err
			}
			var ss, as []string
			if strategy != "" {
				ss = append(ss, strategy)
			}
			if allocator != "" {
				as = append(as, allocator)
			}
			return Build(ctx, w, ss, as)
		}
	}
	return s
}

// Build plans w with each strategy and replays it with each allocator (a
// trace's recorded settings apply as in `membench replay`). Every plan is
// validated; with neither list a problem gets no plan and a trace no
// replay.
func Build(ctx context.Context, w *workloads.Workload, strategySpecs, allocatorSpecs []string) (*Entry, error) {
	e := &Entry{Spec: w.Spec, Problem: w.Problem, Trace: w.Trace, Snapshot: w.Format == workloads.FormatPyTorch}
	for _, spec := range strategySpecs {
		if err := e.AddPlan(ctx, spec); err != nil {
			return nil, err
		}
	}
	for _, spec := range allocatorSpecs {
		if err := e.AddReplay(ctx, spec); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// AddPlan plans the entry's problem with a strategy spec.
func (e *Entry) AddPlan(ctx context.Context, spec string) error {
	s, err := strategies.Lookup(spec)
	if err != nil {
		return err
	}
	plan, err := s.Plan(ctx, e.Problem)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", spec, e.Spec, err)
	}
	l, err := NewLayout(spec, e.Problem, plan)
	if err != nil {
		return fmt.Errorf("%s on %s returned an invalid plan: %w", spec, e.Spec, err)
	}
	e.Plans = append(e.Plans, l)
	if len(e.Plans) == 2 {
		Compare(e.Plans[0], e.Plans[1])
	}
	return nil
}

// AddReplay replays the entry's trace (its problem's, for a static
// workload) with an allocator spec.
func (e *Entry) AddReplay(ctx context.Context, spec string) error {
	if e.Trace == nil {
		tr, err := e.Problem.ToTrace()
		if err != nil {
			return fmt.Errorf("%s: %w", e.Spec, err)
		}
		e.Trace = tr
	}
	f, err := allocators.LookupFor(spec, e.Trace)
	if err != nil {
		return err
	}
	r, err := NewReplay(ctx, spec, f, e.Trace)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", spec, e.Spec, err)
	}
	e.Replays = append(e.Replays, r)
	return nil
}

// Handler returns the HTTP handler: the page and its JSON API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(web, "web")
	mux.Handle("GET /", http.FileServerFS(static))
	mux.HandleFunc("GET /api/index", s.index)
	mux.HandleFunc("GET /api/plan", s.planTiles)
	mux.HandleFunc("GET /api/profile", s.profile)
	mux.HandleFunc("GET /api/series", s.series)
	mux.HandleFunc("GET /api/state", s.state)
	mux.HandleFunc("GET /api/stack", s.stack)
	mux.HandleFunc("GET /api/sweep", s.sweepRows)
	mux.HandleFunc("POST /api/open", s.openCell)
	mux.HandleFunc("POST /api/replay", s.replayWith)
	return mux
}

// badRequest is a request the page should not make: a 400 with the reason.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

func reply(w http.ResponseWriter, v any, err error) {
	var br badRequest
	switch {
	case errors.As(err, &br):
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

// query reads integer parameters; a missing or malformed one is a
// badRequest naming it.
type query struct {
	r   *http.Request
	err error
}

func (q *query) int(name string) int64 {
	if q.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(q.r.URL.Query().Get(name), 10, 64)
	if err != nil {
		q.err = badRequest{fmt.Sprintf("parameter %s: want an integer, got %q", name, q.r.URL.Query().Get(name))}
	}
	return v
}

// pixels reads a pixel count, kept within what a screen has.
func (q *query) pixels(name string) int { return int(min(max(q.int(name), 1), MaxPx)) }

// pick returns the element of list() at the index that parameter name
// gives, read under the lock; an index out of range is a badRequest naming
// what it indexes.
func pick[T any](s *Server, q *query, name, what string, list func() []T) T {
	var zero T
	k := q.int(name)
	if q.err != nil {
		return zero
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := list()
	if k < 0 || k >= int64(len(l)) {
		q.err = badRequest{fmt.Sprintf("no %s %d", what, k)}
		return zero
	}
	return l[k]
}

func (s *Server) entry(q *query) *Entry {
	return pick(s, q, "w", "workload", func() []*Entry { return s.entries })
}

func (s *Server) layout(q *query) *Layout {
	e := s.entry(q)
	if q.err != nil {
		return nil
	}
	return pick(s, q, "id", "plan", func() []*Layout { return e.Plans })
}

func (s *Server) replay(q *query) *Replay {
	e := s.entry(q)
	if q.err != nil {
		return nil
	}
	return pick(s, q, "id", "replay", func() []*Replay { return e.Replays })
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reply(w, s.indexLocked(), nil)
}

func (s *Server) indexLocked() Index {
	ix := Index{Workloads: []EntryInfo{}, Sweep: s.sweep != nil}
	for _, e := range s.entries {
		ix.Workloads = append(ix.Workloads, e.info())
	}
	return ix
}

func (s *Server) planTiles(w http.ResponseWriter, r *http.Request) {
	q := &query{r: r}
	l := s.layout(q)
	v := Viewport{T0: q.int("t0"), T1: q.int("t1"), A0: q.int("a0"), A1: q.int("a1"), W: q.pixels("pw"), H: q.pixels("ph")}
	if q.err != nil {
		reply(w, nil, q.err)
		return
	}
	reply(w, l.Query(v), nil)
}

func (s *Server) profile(w http.ResponseWriter, r *http.Request) {
	q := &query{r: r}
	l := s.layout(q)
	t0, t1, n := q.int("t0"), q.int("t1"), q.pixels("pw")
	if q.err != nil {
		reply(w, nil, q.err)
		return
	}
	reply(w, l.Profile.Bins(int(t0), int(t1), n), nil)
}

// SeriesBins is the answer to a series request: each curve's bins over
// events [E0, E1) and the failed requests among them.
type SeriesBins struct {
	InUse     []Bin `json:"in_use"`
	Allocated []Bin `json:"allocated"`
	Reserved  []Bin `json:"reserved"`
	Recorded  []Bin `json:"recorded,omitempty"`
	OOMs      []int `json:"ooms"`
}

func (s *Server) series(w http.ResponseWriter, r *http.Request) {
	q := &query{r: r}
	rp := s.replay(q)
	e0, e1, n := int(q.int("e0")), int(q.int("e1")), q.pixels("pw")
	if q.err != nil {
		reply(w, nil, q.err)
		return
	}
	reply(w, rp.Bins(e0, e1, n), nil)
}

// Bins answers a series request.
func (rp *Replay) Bins(e0, e1, n int) SeriesBins {
	out := SeriesBins{InUse: rp.InUse.Bins(e0, e1, n), Allocated: rp.Allocated.Bins(e0, e1, n), Reserved: rp.Reserved.Bins(e0, e1, n), OOMs: []int{}}
	if rp.Recorded != nil {
		out.Recorded = rp.Recorded.Bins(e0, e1, n)
	}
	for _, o := range rp.OOMs {
		if e0 <= o && o < e1 {
			out.OOMs = append(out.OOMs, o)
		}
	}
	return out
}

func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	q := &query{r: r}
	rp := s.replay(q)
	e := q.int("e")
	if q.err != nil {
		reply(w, nil, q.err)
		return
	}
	reply(w, rp.StateAt(int(e)), nil)
}

// stack answers with the recorded Python stack of tensor id ("" where the
// recording gives none).
func (s *Server) stack(w http.ResponseWriter, r *http.Request) {
	q := &query{r: r}
	e := s.entry(q)
	id := q.int("id")
	if q.err != nil {
		reply(w, nil, q.err)
		return
	}
	reply(w, map[string]string{"stack": e.StackOf(int(id))}, nil)
}

// StackOf returns the recorded stack of tensor id, "" where none.
func (e *Entry) StackOf(id int) string {
	if e.Trace == nil || id < 0 || id >= len(e.Trace.StackOf) || e.Trace.StackOf[id] < 0 {
		return ""
	}
	return e.Trace.Stacks[e.Trace.StackOf[id]]
}

func (s *Server) sweepRows(w http.ResponseWriter, r *http.Request) {
	if s.sweep == nil {
		reply(w, nil, badRequest{"no sweep folder given"})
		return
	}
	reply(w, s.sweep, nil)
}

// openCell opens a sweep cell: its workload with its subject, as a new
// entry, and returns the entry's index.
func (s *Server) openCell(w http.ResponseWriter, r *http.Request) {
	if s.open == nil {
		reply(w, nil, badRequest{"no sweep folder given"})
		return
	}
	v := r.URL.Query()
	e, err := s.open(r.Context(), v.Get("workload"), v.Get("strategy"), v.Get("allocator"))
	if err != nil {
		reply(w, nil, err)
		return
	}
	s.mu.Lock()
	s.entries = append(s.entries, e)
	k := len(s.entries) - 1
	s.mu.Unlock()
	reply(w, map[string]int{"w": k}, nil)
}

// replayWith replays an entry's trace with another allocator spec (a
// snapshot under other settings) and returns the new replay's index.
func (s *Server) replayWith(w http.ResponseWriter, r *http.Request) {
	q := &query{r: r}
	e := s.entry(q)
	if q.err != nil {
		reply(w, nil, q.err)
		return
	}
	spec := r.URL.Query().Get("allocator")
	if spec == "" {
		reply(w, nil, badRequest{"parameter allocator: want an allocator spec"})
		return
	}
	// Replays run outside the lock; the entry's lists only grow.
	tmp := &Entry{Spec: e.Spec, Problem: e.Problem, Trace: e.Trace}
	if err := tmp.AddReplay(r.Context(), spec); err != nil {
		reply(w, nil, err)
		return
	}
	s.mu.Lock()
	e.Replays = append(e.Replays, tmp.Replays[0])
	k := len(e.Replays) - 1
	s.mu.Unlock()
	reply(w, map[string]int{"id": k}, nil)
}

// Index lists what the server shows.
type Index struct {
	Workloads []EntryInfo `json:"workloads"`
	Sweep     bool        `json:"sweep"`
}

// EntryInfo describes an entry for the page.
type EntryInfo struct {
	Spec     string       `json:"spec"`
	Buffers  int          `json:"buffers"`
	Events   int          `json:"events"`
	Snapshot bool         `json:"snapshot"`
	Settings string       `json:"settings,omitempty"`
	Plans    []PlanInfo   `json:"plans"`
	Replays  []ReplayInfo `json:"replays"`
}

// PlanInfo describes a plan.
type PlanInfo struct {
	Name      string `json:"name"`
	Tasks     int    `json:"tasks"`
	Footprint int64  `json:"footprint"`
	LBLoad    int64  `json:"lb_load"`
	PeakTask  int    `json:"peak_task"`
	Bound     int64  `json:"bound,omitempty"`
	Optimal   bool   `json:"optimal,omitempty"`
	Moved     int    `json:"moved"`
	// Top is the height drawn (the sum of the spaces' footprints where
	// there are several) and Spaces each space's name, start and
	// footprint in the drawing.
	Top    int64       `json:"top"`
	Spaces []SpaceInfo `json:"spaces,omitempty"`
}

// SpaceInfo is one memory space of a plan's drawing.
type SpaceInfo struct {
	Name      string `json:"name"`
	Base      int64  `json:"base"`
	Footprint int64  `json:"footprint"`
}

// ReplayInfo describes a replay.
type ReplayInfo struct {
	Name          string `json:"name"`
	Events        int    `json:"events"`
	PeakInUse     int64  `json:"peak_in_use"`
	PeakAllocated int64  `json:"peak_allocated"`
	PeakReserved  int64  `json:"peak_reserved"`
	OOMs          int    `json:"ooms"`
	// RecordedPeak is the recording's own peak reserved, 0 where unknown.
	RecordedPeak int64 `json:"recorded_peak,omitempty"`
}

func (e *Entry) info() EntryInfo {
	in := EntryInfo{Spec: e.Spec, Snapshot: e.Snapshot, Plans: []PlanInfo{}, Replays: []ReplayInfo{}}
	if e.Problem != nil {
		in.Buffers = e.Problem.Len()
	}
	if e.Trace != nil {
		in.Events = len(e.Trace.Events)
		in.Settings = e.Trace.AllocatorSettings
	}
	for _, l := range e.Plans {
		moved := 0
		for _, m := range l.moved {
			if m {
				moved++
			}
		}
		pi := PlanInfo{Name: l.Name, Tasks: l.Tasks, Footprint: l.Plan.Footprint, LBLoad: l.LBLoad,
			PeakTask: l.PeakTask, Bound: l.Plan.Bound, Optimal: l.Plan.Optimal, Moved: moved, Top: l.top}
		for m, base := range l.SpaceBases {
			name := fmt.Sprint(m)
			if m < len(e.Problem.Memories) {
				name = e.Problem.Memories[m].Name
			}
			pi.Spaces = append(pi.Spaces, SpaceInfo{Name: name, Base: base, Footprint: l.Plan.Footprints[m]})
		}
		in.Plans = append(in.Plans, pi)
	}
	for _, r := range e.Replays {
		ri := ReplayInfo{Name: r.Name, Events: r.InUse.Len(), PeakInUse: r.Result.PeakInUse,
			PeakAllocated: r.Result.PeakAllocated, PeakReserved: r.Result.PeakReserved, OOMs: r.Result.OOMs}
		if rec := e.Trace.Recording; rec != nil {
			ri.RecordedPeak = rec.PeakReserved
		}
		in.Replays = append(in.Replays, ri)
	}
	return in
}

// Sweep is a results folder as the sweep table shows it.
type Sweep struct {
	Dir  string     `json:"dir"`
	Rows []SweepRow `json:"rows"`
}

// SweepRow is one (workload, subject) of a sweep.
type SweepRow struct {
	Workload  string  `json:"workload"`
	Subject   string  `json:"subject"`
	Kind      string  `json:"kind"`
	N         int     `json:"n"`
	OK        bool    `json:"ok"`
	Footprint int64   `json:"footprint"`
	LBLoad    int64   `json:"lb_load"`
	Ratio     float64 `json:"ratio"`
	BestRatio float64 `json:"best_ratio"`
	MedianNs  float64 `json:"median_ns"`
}

// NewSweep reads the records of a results folder's results.jsonl, grouped
// by (workload, subject) as the summary groups them, with table's best
// known values.
func NewSweep(dir string, recs []results.Record, table results.BestTable) *Sweep {
	sw := &Sweep{Dir: dir, Rows: []SweepRow{}}
	for _, g := range results.Aggregate(recs, table) {
		sw.Rows = append(sw.Rows, SweepRow{Workload: g.Workload, Subject: g.Subject, Kind: g.Kind, N: g.N, OK: g.OK > 0,
			Footprint: g.Footprint, LBLoad: g.LBLoad, Ratio: finite(g.Ratio), BestRatio: finite(g.BestRatio), MedianNs: finite(g.MedianNs)})
	}
	return sw
}

// finite is x, or 0 where x is NaN or infinite (a ratio over an empty
// workload), which JSON cannot hold.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
