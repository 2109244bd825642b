package harness

import (
	"context"
	"fmt"
	"math"
	"time"

	"membench/allocators"
	"membench/results"
	"membench/results/plot"
	"membench/workloads"
)

// trace returns the workload's recorded trace, or its problem's (DESIGN
// §1); a problem with forms a trace cannot hold is refused.
func trace(w *workloads.Workload) (*workloads.Trace, error) {
	if w.Trace == nil {
		tr, err := w.Problem.ToTrace()
		if err != nil {
			return nil, err
		}
		w.Trace = tr
	}
	return w.Trace, nil
}

// runAllocator replays the workload's trace, under its recorded allocator
// settings where allocators.LookupFor applies them, as replay does. A first replay gives the
// statistics and the time of one replay; then enough timed replays to fill
// Samples samples of BenchTime each, as testing.B would, each sample the
// mean ns per trace event over its replays.
func runAllocator(ctx context.Context, c Cell, w *workloads.Workload, rec *results.Record) error {
	tr, err := trace(w)
	if err != nil {
		return err
	}
	f, err := allocators.LookupFor(c.Subject, tr)
	if err != nil {
		return err
	}
	first, err := allocators.Replay(ctx, f.New(), tr, allocators.ReplayOptions{Repeat: 1, New: f.New})
	if err != nil {
		return err
	}
	perReplay := time.Duration(first.NsPerOp * float64(max(first.Events, 1)))
	per := 1
	if perReplay > 0 {
		per = int(min(max(float64(c.BenchTime)/float64(perReplay), 1), 1e6))
	}
	res, err := allocators.Replay(ctx, f.New(), tr, allocators.ReplayOptions{Repeat: per * c.Samples, New: f.New})
	if err != nil {
		return err
	}
	if res.OOMs != first.OOMs || res.PeakReserved != first.PeakReserved {
		return fmt.Errorf("replay is not deterministic: %d OOMs and %d reserved, then %d and %d",
			first.OOMs, first.PeakReserved, res.OOMs, res.PeakReserved)
	}
	rec.Footprint = res.PeakReserved
	rec.Ratio = ratio(res.PeakReserved, c.Info.LBLoad)
	rec.RatioObjects = ratio(res.PeakReserved, c.Info.LBObjects)
	st := &results.AllocStats{
		PeakInUse: res.PeakInUse, PeakAllocated: res.PeakAllocated, PeakReserved: res.PeakReserved,
		LargestFreeChunk: res.LargestFreeChunk, BFCFragmentationMax: res.BFCFragmentationMax, OOMs: int64(res.OOMs),
	}
	if !math.IsNaN(res.Fragmentation) && !math.IsInf(res.Fragmentation, 0) {
		st.Fragmentation = res.Fragmentation
	}
	if v := res.BFCFragmentation; !math.IsNaN(v) && !math.IsInf(v, 0) {
		st.BFCFragmentation = &v
	}
	st.Peak = memBreakdown(&res.Peak, 0, 0)
	if len(res.OOMsAt) > 0 {
		o := &res.OOMsAt[0]
		st.FirstOOM = memBreakdown(&o.Breakdown, o.Size, o.Stream)
	}
	rec.Alloc = st
	rec.Iters = per
	for i := 0; i < c.Samples; i++ {
		sum := 0.0
		for _, t := range res.TimesNs[i*per : (i+1)*per] {
			sum += t
		}
		rec.TimesNs = append(rec.TimesNs, sum/float64(per))
	}
	return nil
}

// drawTimelines replays a workload's trace with each allocator of gs (all
// on one workload) and draws in-use against reserved bytes, one panel per
// allocator on shared axes.
func drawTimelines(ctx context.Context, dir, name string, gs []*results.Group, st *plot.Styles, o plot.Options, load loader) ([]string, error) {
	workload := gs[0].Workload
	w, err := load(workload)
	if err != nil {
		return nil, err
	}
	var panels []plot.TimelinePanel
	tr, err := trace(w)
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		f, err := allocators.LookupFor(g.Subject, tr)
		if err != nil {
			return nil, err
		}
		res, err := allocators.Replay(ctx, f.New(), tr, allocators.ReplayOptions{Timeline: true})
		if err != nil {
			return nil, fmt.Errorf("timeline: %s on %s: %w", g.Subject, workload, err)
		}
		pn := plot.TimelinePanel{Subject: g.Subject, Points: make([]plot.TimelinePoint, len(res.Timeline))}
		for i, p := range res.Timeline {
			pn.Points[i] = plot.TimelinePoint{InUse: p.InUse, Reserved: p.Reserved, Allocated: p.Allocated}
		}
		panels = append(panels, pn)
	}
	title := "Allocators on " + results.ShortLabel(workload)
	if len(panels) == 1 {
		title = results.ShortLabel(panels[0].Subject) + " on " + results.ShortLabel(workload)
	}
	fig, err := plot.TimelineFigure(title, panels, st)
	if err != nil {
		return nil, err
	}
	return o.Write(fig, dir, name)
}

// memBreakdown is a replay's allocators.Breakdown as a record holds it.
func memBreakdown(b *allocators.Breakdown, size int64, stream int) *results.MemBreakdown {
	m := &results.MemBreakdown{Event: b.Event, Reserved: b.Reserved, Requested: b.Requested, Internal: b.Internal,
		External: b.External, LargestFree: b.LargestFree, Size: size, Stream: stream}
	for _, p := range b.Pools {
		m.Pools = append(m.Pools, results.PoolStat(p))
	}
	return m
}
