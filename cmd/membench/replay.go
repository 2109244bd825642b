package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"membench/allocators"
	"membench/workloads"
)

func init() {
	register(&command{
		name:    "replay",
		usage:   "--allocator SPEC [--repeat N] [--verify] [--free-delay N] [--device-memory SIZE] [--timeout DUR] [--max-input SIZE] [--format text|json] [--plot FILE.png] WORKLOAD",
		summary: "Replay a workload's alloc/free trace through one allocator and report its memory and speed.",
		run:     runReplay,
	})
}

// replayJSON is the object `replay --format json` prints (DESIGN §4).
type replayJSON struct {
	Allocator string      `json:"allocator"`
	Allocs    [][4]int64  `json:"allocs"`
	OOMs      int         `json:"ooms"`
	Stats     replayStats `json:"stats"`
	// AllocatorSettings are the snapshot's recorded settings where the
	// replay applied them; DeviceMemory is --device-memory.
	AllocatorSettings string `json:"allocator_settings,omitempty"`
	DeviceMemory      int64  `json:"device_memory,omitempty"`
	// RecordedOOMs counts a PyTorch snapshot's oom entries (left out for
	// other workloads).
	RecordedOOMs *int `json:"recorded_ooms,omitempty"`
	// Peak is where memory went when reserved first reached its peak;
	// OOMBreakdowns the same at each failed request, in order.
	Peak          *allocators.Breakdown     `json:"peak"`
	OOMBreakdowns []allocators.OOMBreakdown `json:"oom_breakdowns,omitempty"`
	// Verify is what --verify checked (left out without it).
	Verify *verifyJSON `json:"verify,omitempty"`
	// Calibration compares the replay with a PyTorch snapshot's own
	// record of its segments (left out for other workloads).
	Calibration *allocators.Calibration `json:"calibration,omitempty"`
}

type verifyJSON struct {
	Allocations int64 `json:"allocations"`
	Frees       int64 `json:"frees"`
	GuardStamps int64 `json:"guard_stamps"`
}

type replayStats struct {
	PeakInUse        int64    `json:"peak_in_use"`
	PeakAllocated    int64    `json:"peak_allocated"`
	PeakReserved     int64    `json:"peak_reserved"`
	LargestFreeChunk int64    `json:"largest_free_chunk"`
	Fragmentation    *float64 `json:"fragmentation"`
	NsPerOp          float64  `json:"ns_per_op"`
}

func runReplay(ctx context.Context, e *env, args []string) error {
	c := commands["replay"]
	fs := newFlags(e, c)
	spec := fs.String("allocator", "", "allocator spec, e.g. bfc?memory_limit=1G (required)")
	repeat := fs.Int("repeat", 5, "timed replays; ns_per_op is their median")
	verify := fs.Bool("verify", false, "back the device with real memory and check every allocation's integrity")
	format := fs.String("format", "text", "output format: text or json")
	plot := fs.String("plot", "", "write the in-use vs reserved timeline to this PNG")
	timeout := fs.Duration("timeout", 0, "give up loading and replaying after `DUR` (0: no limit)")
	maxInput := maxInputFlag(fs)
	freeDelay := fs.Int("free-delay", 0, "in a trace without sync points, complete each free `N` events after it is requested")
	deviceMem := fs.String("device-memory", "", "run under a device capacity of `SIZE` bytes (K/M/G suffixes; the allocator's memory_limit) and report the first OOM")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *spec == "":
		return badUsage("replay: --allocator is required (valid: %v)", allocators.Names())
	case *repeat < 1:
		return badUsage("replay: --repeat=%d: want >= 1", *repeat)
	case *format != "text" && *format != "json":
		return badUsage("replay: --format=%q: want text or json", *format)
	case *timeout < 0:
		return badUsage("replay: --timeout %s: want a positive duration, or 0 for no limit", *timeout)
	case *freeDelay < 0:
		return badUsage("replay: --free-delay=%d: want >= 0 events", *freeDelay)
	case fs.NArg() != 1:
		return badUsage("replay: want exactly one WORKLOAD, got %d", fs.NArg())
	}
	if _, err := allocators.Lookup(*spec); err != nil {
		return err
	}
	ctx, cancel := deadline(ctx, *timeout)
	defer cancel()
	w, err := loadTimed(ctx, e, *timeout, "replay", fs.Arg(0), *maxInput)
	if err != nil {
		return err
	}
	tr := w.Trace
	if tr == nil {
		if tr, err = w.Problem.ToTrace(); err != nil {
			return err
		}
	}
	eff, err := effectiveSpec(*spec, *deviceMem)
	if err != nil {
		return err
	}
	if w.Format == workloads.FormatPyTorch {
		eff.recordedOOMs = &tr.OOMs
	}
	f, err := allocators.LookupFor(eff.spec, tr)
	if err != nil {
		var ie *workloads.InputError
		if errors.As(err, &ie) {
			return fmt.Errorf("replay: %w", err)
		}
		return err
	}
	eff.settings = f.Settings
	var res *allocators.ReplayResult
	err = withTimeout(ctx, *timeout, func(ctx context.Context) (err error) {
		res, err = allocators.Replay(ctx, f.New(), tr, allocators.ReplayOptions{Repeat: *repeat, Verify: *verify, New: f.New, Timeline: *plot != "", FreeDelay: *freeDelay})
		return err
	})
	if err != nil {
		return fmt.Errorf("replay: %s on %s: %w", *spec, fs.Arg(0), err)
	}
	if *plot != "" {
		if err := plotTimeline(*plot, res, *spec+" on "+fs.Arg(0)); err != nil {
			return err
		}
	}
	cal := allocators.Calibrate(tr, res)
	if *format == "json" {
		return writeReplayJSON(e, *spec, eff, res, cal)
	}
	return writeReplayText(e, *spec, fs.Arg(0), eff, res, cal)
}

// replaySpec is the allocator spec a replay runs: the one given, with the
// snapshot's allocator settings and --device-memory added.
type replaySpec struct {
	spec string
	// settings are the trace's recorded allocator settings where they were
	// applied; device the --device-memory bytes (0: none).
	settings string
	device   int64
	// recordedOOMs are the OOMs a PyTorch snapshot recorded; nil for
	// other workloads.
	recordedOOMs *int
}

// effectiveSpec adds --device-memory to spec as the allocator's
// memory_limit; the trace's recorded settings are allocators.LookupFor's.
func effectiveSpec(spec string, deviceMem string) (replaySpec, error) {
	r := replaySpec{spec: spec}
	sp, err := workloads.ParseSpec(spec)
	if err != nil {
		return r, err
	}
	if deviceMem != "" {
		n, err := workloads.ParseBytes(deviceMem)
		if err != nil || n == 0 {
			return r, badUsage("replay: --device-memory=%s: want a positive byte size, e.g. 16G", workloads.Echo(deviceMem))
		}
		if slices.ContainsFunc(sp.Params, func(p workloads.Param) bool { return p.Key == "memory_limit" }) {
			return r, badUsage("replay: --device-memory and memory_limit in --allocator %s both set the capacity: give one", spec)
		}
		r.device = n
		sep := "?"
		if strings.Contains(r.spec, "?") {
			sep = "&"
		}
		r.spec += sep + "memory_limit=" + strconv.FormatInt(n, 10)
	}
	return r, nil
}

func writeReplayJSON(e *env, spec string, eff replaySpec, res *allocators.ReplayResult, cal *allocators.Calibration) error {
	out := replayJSON{Allocator: spec, Allocs: make([][4]int64, len(res.Allocs)), OOMs: res.OOMs, Calibration: cal,
		AllocatorSettings: eff.settings, DeviceMemory: eff.device, RecordedOOMs: eff.recordedOOMs, Peak: &res.Peak, OOMBreakdowns: res.OOMsAt,
		Stats: replayStats{
			PeakInUse: res.PeakInUse, PeakAllocated: res.PeakAllocated, PeakReserved: res.PeakReserved,
			LargestFreeChunk: res.LargestFreeChunk, NsPerOp: res.NsPerOp,
		}}
	for i, a := range res.Allocs {
		out.Allocs[i] = [4]int64{int64(a.ID), a.Size, a.Offset, a.Chunk}
	}
	if f := res.BFCFragmentation; !math.IsNaN(f) {
		out.Stats.Fragmentation = &f
	}
	if v := res.Verified; v != nil {
		out.Verify = &verifyJSON{Allocations: v.Allocs, Frees: v.Frees, GuardStamps: v.Stamps}
	}
	enc := json.NewEncoder(e.stdout)
	return enc.Encode(out)
}

func writeReplayText(e *env, spec, workload string, eff replaySpec, res *allocators.ReplayResult, cal *allocators.Calibration) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	frag := "undefined (nothing free)"
	if f := res.BFCFragmentation; !math.IsNaN(f) {
		frag = fmt.Sprintf("%.4f", f)
	}
	ratio := "undefined"
	if !math.IsNaN(res.Fragmentation) {
		ratio = fmt.Sprintf("%.4f", res.Fragmentation)
	}
	rows := [][2]string{
		{"allocator", spec},
		{"workload", fmt.Sprintf("%s (%d events, %d allocation requests)", workload, res.Events, len(res.Allocs))},
		{"OOMs", fmt.Sprint(res.OOMs)},
		{"peak in use", bytesExact(res.PeakInUse) + " (requested bytes live)"},
		{"peak allocated", bytesExact(res.PeakAllocated) + " (chunk bytes live)"},
		{"peak reserved", bytesExact(res.PeakReserved) + " (footprint)"},
		{"reserved / in use", ratio},
		{"largest free chunk", bytesExact(res.LargestFreeChunk) + " (at the end)"},
		{"fragmentation", frag + fmt.Sprintf(" at the end, max %.4f (%s)", res.BFCFragmentationMax, fragMetric(spec))},
		{"time per event", fmt.Sprintf("%.1f ns (median of %d)", res.NsPerOp, len(res.TimesNs))},
	}
	var extra [][2]string
	if eff.settings != "" {
		extra = append(extra, [2]string{"allocator settings", eff.settings + " (recorded in the snapshot)"})
	}
	if eff.device > 0 {
		extra = append(extra, [2]string{"device memory", bytesExact(eff.device)})
	}
	if n := eff.recordedOOMs; n != nil {
		// After this replay's OOMs (row 2).
		rows = slices.Insert(rows, 3, [2]string{"recorded OOMs", fmt.Sprintf("%d (oom entries in the snapshot: requests PyTorch failed, not replayed)", *n)})
	}
	rows = append(rows[:1], append(extra, rows[1:]...)...)
	p := &res.Peak
	rows = append(rows,
		[2]string{"at the peak", fmt.Sprintf("event %d: reserved %d = requested %d + internal %d (rounding) + external %d (free); largest free %d",
			p.Event, p.Reserved, p.Requested, p.Internal, p.External, p.LargestFree)},
		[2]string{"pools at the peak", allocators.PoolsString(p.Pools)})
	if len(res.OOMsAt) > 0 {
		o := &res.OOMsAt[0]
		rows = append(rows, [2]string{"first OOM", fmt.Sprintf("at event %d, request of %d B on stream %d: %s", o.Event, o.Size, o.Stream, o.Breakdown.String())})
	}
	rows = append(rows, calibrationRows(cal)...)
	if v := res.Verified; v != nil {
		rows = append(rows, [2]string{"verify", fmt.Sprintf("%d allocations checked for size and overlap, %d frees, %d guard stamps intact, 0 violations",
			v.Allocs, v.Frees, v.Stamps)})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	return tw.Flush()
}

// fragMetric says what the fragmentation figure is: BFC's own metric for
// bfc, the same formula under its plain name for the others.
func fragMetric(spec string) string {
	const formula = "1 - largest free chunk / free reserved bytes"
	if sp, err := workloads.ParseSpec(spec); err == nil && sp.Name == "bfc" {
		return "BFC's metric: " + formula
	}
	return "largest-free fragmentation: " + formula
}

// bytesExact prints n exactly and in binary units.
func bytesExact(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%d B = %s", n, humanBytes(n))
}

// calibrationRows are the rows of the calibration block: the recording's
// figures beside the replay's, and where their segments part.
func calibrationRows(c *allocators.Calibration) [][2]string {
	if c == nil {
		return nil
	}
	peak := fmt.Sprintf("%s recorded, %s replayed", bytesExact(c.RecordedPeakReserved), bytesExact(c.PeakReserved))
	if c.RecordedPeakReserved > 0 {
		peak += fmt.Sprintf(" (%+.2f%%)", 100*(float64(c.PeakReserved)/float64(c.RecordedPeakReserved)-1))
	}
	start := "an empty cache"
	if c.RecordedStartReserved > 0 {
		start = fmt.Sprintf("%s reserved", bytesExact(c.RecordedStartReserved))
		if c.FromRecordedCache {
			start += ", replayed from that cache"
		} else {
			start += "; the replay starts from an empty cache (the allocator takes no recorded cache)"
		}
	}
	calls := "calls"
	if c.RecordedEmptyCaches == 1 {
		calls = "call"
	}
	segs := fmt.Sprintf("%d allocs, %d frees recorded (%d empty_cache() %s)", c.RecordedSegmentAllocs, c.RecordedSegmentFrees, c.RecordedEmptyCaches, calls)
	verdict := "not compared: the allocator does not report its segments"
	if c.SegmentAllocs != nil {
		segs += fmt.Sprintf("; %d allocs, %d frees replayed", *c.SegmentAllocs, *c.SegmentFrees)
		verdict = "segment allocs and frees as recorded (kind, size, order)"
		if d := c.Departure; d != nil {
			verdict = fmt.Sprintf("departs at segment event %d: recorded %s, replayed %s", d.Index, segmentText(d.Recorded, true), segmentText(d.Replayed, false))
		}
	}
	return [][2]string{
		{"calibration", "peak reserved " + peak},
		{"", "at the start: " + start},
		{"", "segments: " + segs},
		{"", verdict},
	}
}

// segmentText words a segment event, recorded (with its trace entry) or
// replayed.
func segmentText(e *workloads.SegmentEvent, recorded bool) string {
	if e == nil {
		return "none"
	}
	kind := "alloc"
	if e.Free {
		kind = "free"
	}
	if recorded {
		return fmt.Sprintf("segment %s of %d B (trace entry %d, before event %d)", kind, e.Size, e.Entry, e.Event)
	}
	return fmt.Sprintf("segment %s of %d B at event %d", kind, e.Size, e.Event)
}
