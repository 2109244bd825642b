package view

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"membench/allocators"
	"membench/workloads"
)

// Replay is one allocator's replay of a trace, ready for zoom requests:
// requested (in use), allocated and reserved bytes after each trace event,
// each allocation's block and lifetime, and the failed requests.
type Replay struct {
	Name   string
	Trace  *workloads.Trace
	Result *allocators.ReplayResult
	// InUse, Allocated and Reserved hold the bytes after each event.
	InUse, Allocated, Reserved *Series
	// Recorded is the reserved bytes the recording itself reports after
	// each event (a PyTorch snapshot's segments), nil where it says
	// nothing.
	Recorded *Series
	blocks   []block
	// OOMs are the events (indexes) whose request failed.
	OOMs []int
}

// block is one allocation: live over events [From, To) (To: the free's
// event, or the trace's length), at Off with Chunk bytes for Size asked.
type block struct {
	from, to   int32
	off, chunk int64
	size       int64
	id         int
}

// NewReplay replays tr with a fresh allocator of f, recording the timeline.
func NewReplay(ctx context.Context, name string, f *allocators.Factory, tr *workloads.Trace) (*Replay, error) {
	res, err := allocators.Replay(ctx, f.New(), tr, allocators.ReplayOptions{Timeline: true, Untimed: true})
	if err != nil {
		return nil, err
	}
	return newReplay(name, tr, res)
}

func newReplay(name string, tr *workloads.Trace, res *allocators.ReplayResult) (*Replay, error) {
	n := len(tr.Events)
	if n > 1<<31-1 {
		return nil, fmt.Errorf("%s: %d events is more than the viewer holds", name, n)
	}
	inUse, alloc, resv := make([]int64, n), make([]int64, n), make([]int64, n)
	// Timeline points are per allocator call, in event order; an event
	// without a call keeps the state before it.
	k := 0
	var u, a, r int64
	for e := 0; e < n; e++ {
		for k < len(res.Timeline) && res.Timeline[k].Event <= e {
			p := res.Timeline[k]
			u, a, r = p.InUse, p.Allocated, p.Reserved
			k++
		}
		inUse[e], alloc[e], resv[e] = u, a, r
	}
	// The series hold what the timeline said, and the blocks what the
	// allocation records say; at 10^7 events those are most of the
	// memory, so each goes as soon as it is summarised.
	res.Timeline = nil
	rp := &Replay{Name: name, Trace: tr, Result: res}
	// The pyramids and the blocks are independent: build them at once.
	var wg sync.WaitGroup
	wg.Go(func() { rp.InUse = NewSeries(inUse) })
	wg.Go(func() { rp.Allocated = NewSeries(alloc) })
	wg.Go(func() { rp.Reserved = NewSeries(resv) })
	rp.blocks = blocksOf(tr, res)
	wg.Wait()
	res.Allocs = nil
	for _, o := range res.OOMsAt {
		rp.OOMs = append(rp.OOMs, o.Event-1)
	}
	if rec := tr.Recording; rec != nil && len(rec.Segments) > 0 {
		v := make([]int64, n)
		cur, s := rec.Reserved, 0
		for e := 0; e < n; e++ {
			for s < len(rec.Segments) && rec.Segments[s].Event <= e {
				if rec.Segments[s].Free {
					cur -= rec.Segments[s].Size
				} else {
					cur += rec.Segments[s].Size
				}
				s++
			}
			v[e] = cur
		}
		rp.Recorded = NewSeries(v)
	}
	return rp, nil
}

// blocksOf pairs each allocation with the event that frees it.
func blocksOf(tr *workloads.Trace, res *allocators.ReplayResult) []block {
	out := make([]block, 0, len(res.Allocs))
	// Tensor id -> index in out, plus one (0: not live). Trace ids are
	// small numbers, so a slice serves; a map takes ids beyond it.
	maxID := -1
	for _, ev := range tr.Events {
		if ev.Kind == workloads.Alloc {
			maxID = max(maxID, ev.ID)
		}
	}
	dense := make([]int32, min(maxID+1, 2*len(tr.Events)))
	sparse := map[int]int{}
	set := func(id, j int) {
		if id >= 0 && id < len(dense) {
			dense[id] = int32(j + 1)
		} else {
			sparse[id] = j
		}
	}
	take := func(id int) (int, bool) {
		if id >= 0 && id < len(dense) {
			j := int(dense[id]) - 1
			dense[id] = 0
			return j, j >= 0
		}
		j, ok := sparse[id]
		delete(sparse, id)
		return j, ok
	}
	k := 0
	for e, ev := range tr.Events {
		switch ev.Kind {
		case workloads.Alloc:
			if k >= len(res.Allocs) {
				continue
			}
			a := res.Allocs[k]
			k++
			if a.Offset < 0 {
				continue
			}
			set(ev.ID, len(out))
			out = append(out, block{from: int32(e), to: int32(len(tr.Events)), off: a.Offset, chunk: a.Chunk, size: a.Size, id: a.ID})
		case workloads.Free:
			if j, ok := take(ev.ID); ok {
				out[j].to = int32(e)
			}
		}
	}
	return out
}

// Block is an allocation live at an event, as a state request returns it.
type Block struct {
	ID    int   `json:"id"`
	Off   int64 `json:"o"`
	Size  int64 `json:"s"`
	Chunk int64 `json:"c"`
	From  int   `json:"f"`
	To    int   `json:"t"`
}

// State is the allocator's memory after one event: the live blocks (at
// most MaxRects, largest first; the rest counted in Hidden) and where the
// reserved bytes went.
type State struct {
	Event     int     `json:"event"`
	Blocks    []Block `json:"blocks"`
	Hidden    int     `json:"hidden"`
	InUse     int64   `json:"in_use"`
	Allocated int64   `json:"allocated"`
	Reserved  int64   `json:"reserved"`
	// Rounding is Allocated - InUse (internal fragmentation); Cached is
	// Reserved - Allocated (free memory the allocator keeps).
	Rounding int64 `json:"rounding"`
	Cached   int64 `json:"cached"`
	// Recorded is what the recording reports reserved, -1 where unknown.
	Recorded int64 `json:"recorded"`
	// RecordedSegments and Segments are the sizes of the segments the
	// recording and the simulated allocator hold after the event, largest
	// first, where each reports them (a PyTorch snapshot; torch-caching).
	RecordedSegments []int64 `json:"recorded_segments,omitempty"`
	Segments         []int64 `json:"segments,omitempty"`
	// Top is the highest block end, for the address axis.
	Top int64 `json:"top"`
}

// StateAt returns the state after event e.
func (r *Replay) StateAt(e int) State {
	n := r.InUse.Len()
	if n == 0 {
		return State{Recorded: -1}
	}
	e = min(max(e, 0), n-1)
	s := State{Event: e, InUse: r.InUse.At(e), Allocated: r.Allocated.At(e), Reserved: r.Reserved.At(e), Recorded: -1}
	s.Rounding, s.Cached = s.Allocated-s.InUse, s.Reserved-s.Allocated
	if r.Recorded != nil {
		s.Recorded = r.Recorded.At(e)
	}
	if rec := r.Trace.Recording; rec != nil && len(rec.Segments) > 0 {
		var start []int64
		for _, c := range r.Trace.Cache {
			start = append(start, c.Size)
		}
		s.RecordedSegments = liveSegments(start, rec.Segments, e)
	}
	if r.Result.SegmentsLogged {
		s.Segments = liveSegments(nil, r.Result.Segments, e)
	}
	for _, b := range r.blocks {
		if int(b.from) <= e && e < int(b.to) {
			s.Blocks = append(s.Blocks, Block{ID: b.id, Off: b.off, Size: b.size, Chunk: b.chunk, From: int(b.from), To: int(b.to)})
			s.Top = max(s.Top, b.off+b.chunk)
		}
	}
	if len(s.Blocks) > MaxRects {
		sortBySize(s.Blocks)
		s.Hidden = len(s.Blocks) - MaxRects
		s.Blocks = s.Blocks[:MaxRects]
	}
	return s
}

// liveSegments returns the sizes of the segments held after event e,
// largest first: those of start, then each segment event up to e (a
// segment given back is one of its size).
func liveSegments(start []int64, evs []workloads.SegmentEvent, e int) []int64 {
	held := map[int64]int{}
	for _, sz := range start {
		held[sz]++
	}
	for _, ev := range evs {
		if ev.Event > e {
			break
		}
		if ev.Free {
			if held[ev.Size] > 0 {
				held[ev.Size]--
			}
			continue
		}
		held[ev.Size]++
	}
	out := []int64{}
	for sz, n := range held {
		for ; n > 0; n-- {
			out = append(out, sz)
		}
	}
	slices.SortFunc(out, func(a, b int64) int { return cmp.Compare(b, a) })
	return out
}
