package allocators

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/montanaflynn/stats"

	"membench/workloads"
)

// ReplayOptions control Replay.
type ReplayOptions struct {
	// Repeat is how many timed replays give NsPerOp (their median); < 1
	// means 1.
	Repeat int
	// Verify runs the recorded replay through a Verifier, which backs the
	// device with sparse real memory and fails with ErrIntegrity on an
	// overlap or a corrupted allocation; timed replays run bare.
	Verify bool
	// New builds fresh allocators for the timed replays of allocators that
	// do not implement Resetter. With neither, the recorded replay is
	// also the only timed one.
	New func() Allocator
	// Timeline records one TimelinePoint per allocator call, for plots.
	Timeline bool
	// Untimed skips the timed replays: only the recorded replay runs, and
	// NsPerOp and TimesNs stay zero. For callers that want the outcome
	// alone (the viewer).
	Untimed bool
	// FreeDelay is, for a trace without sync points, how many events
	// after its request each free completes (DESIGN §11); 0 frees at the
	// request. A delay for a trace with sync points is a UsageError.
	FreeDelay int
}

// AllocRecord is the outcome of one allocation request of a trace.
type AllocRecord struct {
	// ID is the trace's tensor id.
	ID   int
	Size int64
	// Offset is -1 and Chunk 0 where the request failed or asked for 0 bytes.
	Offset, Chunk int64
}

// TimelinePoint is the state after one allocator call.
type TimelinePoint struct {
	// Event is the index of the trace event that made the call.
	Event int
	// InUse is requested bytes live, Allocated chunk bytes live.
	InUse, Allocated int64
	Reserved         int64
	LargestFreeChunk int64
}

// FragSample is BFC's fragmentation metric after trace event Event.
type FragSample struct {
	Event int
	Value float64
}

// ReplayResult is what a trace replay produced (DESIGN §1, §4).
type ReplayResult struct {
	// Allocs has one record per allocation request, in trace order.
	Allocs []AllocRecord
	// Events is the trace length, Calls the Alloc and Free calls made.
	Events, Calls int
	OOMs          int
	// PeakInUse is the most requested bytes live at once (LB_load of the
	// trace when nothing failed); PeakAllocated the most chunk bytes.
	PeakInUse, PeakAllocated int64
	// PeakReserved is the allocator's footprint.
	PeakReserved int64
	// LargestFreeChunk and BFCFragmentation are taken at the end.
	LargestFreeChunk int64
	// BFCFragmentation is (reserved - in use - largest free) / (reserved -
	// in use), NaN where nothing is free.
	BFCFragmentation float64
	// BFCFragmentationMax is the largest defined value of the metric over
	// the replay (0 if it never was).
	BFCFragmentationMax float64
	// FragSamples holds the metric at about 1000 evenly spaced calls.
	FragSamples []FragSample
	// Fragmentation is PeakReserved / PeakInUse (NaN when PeakInUse is 0).
	Fragmentation float64
	// NsPerOp is the median over the timed replays of the replay loop's
	// time divided by Events; TimesNs holds each replay's value.
	NsPerOp float64
	TimesNs []float64
	// Timeline is set when ReplayOptions.Timeline was.
	Timeline []TimelinePoint
	// Final is the allocator's counters at the end.
	Final Stats
	// Verified is what ReplayOptions.Verify checked (nil without it).
	Verified *VerifyCounts
	// Peak is where memory went (fragmentation.go) after the first call
	// at which reserved reached PeakReserved.
	Peak Breakdown
	// OOMsAt is where memory went at each failed request, in order.
	OOMsAt []OOMBreakdown
	// Seeded says the replay started from the trace's recorded cache
	// (workloads.Trace.Cache): the allocator took it (cacheSeeder), and
	// the trace's first allocations are its blocks.
	Seeded bool
	// Segments are the segments the allocator reserved and gave back
	// during the recorded replay, where it reports them (torch-caching),
	// each with the index of the trace event that made it;
	// SegmentsLogged says the allocator reports them.
	Segments       []workloads.SegmentEvent
	SegmentsLogged bool
}

// replayOp is one allocator call: an Alloc of size bytes on stream whose
// offset goes to slot, or, where size is negative, one of the op kinds
// below. Slots are reused once freed, so the offset table stays as small
// as the live set and in cache.
type replayOp struct {
	size   int64
	slot   int32
	stream int32
}

// The kinds of ops that are not allocations, in replayOp.size.
const (
	opFree    = -1 // the free of slot completes
	opRequest = -2 // the free of slot is requested on stream
	opRecord  = -3 // stream uses slot
	opSync    = -4 // stream passes a sync point (slot -1)
	// opEmptyCache empties the allocator's cache (slot -1; CacheEmptier).
	opEmptyCache = -5
)

// compiled is a trace reduced to allocator calls: views, the frees that
// do not drop a storage's last reference and free completion (DESIGN §11)
// are resolved up front. Frees appear as opFree where they complete; a
// trace with sync points also keeps its requests, records and syncs for
// allocators that complete frees themselves.
type compiled struct {
	ops []replayOp
	// req and ev give each op's allocation request (-1 for a sync) and
	// trace event.
	req, ev []int32
	allocs  []AllocRecord
	// producer is each allocation request's stream.
	producer []int32
	slots    int // distinct slots
	// streams says some event names a stream other than 0; syncs that the
	// trace has sync points.
	streams, syncs bool
	// bare holds, made on first use, the ops of the timed loop for each
	// kind of allocator (bareFrees, bareRequests), without the ops it
	// takes as no-ops.
	bare [2]*bareOps
}

// bareOps is the ops one kind of allocator acts on, and for each the
// number of its call among all ops (for errors).
type bareOps struct {
	ops  []replayOp
	call []int32
}

// The kinds of bareOps: allocators that get completed frees and no
// requests, records or syncs, and allocators that complete frees
// themselves.
const (
	bareFrees    = 0
	bareRequests = 1
)

// bareFor returns the ops of kind, keeping those keep accepts.
func (c *compiled) bareFor(kind int, keep func(size int64) bool) *bareOps {
	if b := c.bare[kind]; b != nil {
		return b
	}
	b := &bareOps{}
	for i, op := range c.ops {
		if keep(op.size) {
			b.ops = append(b.ops, op)
			b.call = append(b.call, int32(i))
		}
	}
	c.bare[kind] = b
	return b
}

func compileTrace(tr *workloads.Trace, delay int) (*compiled, error) {
	if len(tr.Events) > math.MaxInt32 {
		return nil, &workloads.InputError{File: tr.Name, Msg: fmt.Sprintf("%d events: at most %d supported", len(tr.Events), math.MaxInt32)}
	}
	sp, err := workloads.NewSyncPoints(tr, delay)
	if err != nil {
		return nil, err
	}
	n := len(tr.Events)
	c := &compiled{ops: make([]replayOp, 0, n), req: make([]int32, 0, n), ev: make([]int32, 0, n), syncs: sp.HasSyncs()}
	live := newIDTable(tr.Events) // trace id -> allocation request
	evReq := make([]int32, n)     // per event: its allocation request, or -1
	var refs, reqEvent []int32    // per request: sharers, the event requesting its free
	var users [][]int32           // per request: streams besides the producer's that used it
	fail := func(i int, format string, args ...any) error {
		return &workloads.InputError{File: tr.Name, Msg: fmt.Sprintf("event %d: ", i+1) + fmt.Sprintf(format, args...)}
	}
	use := func(req int32, s int32) {
		if s != c.producer[req] && !slices.Contains(users[req], s) {
			users[req] = append(users[req], s)
		}
	}
	// Pass 1: check the trace and resolve views to allocation requests.
	for i, ev := range tr.Events {
		evReq[i] = -1
		c.streams = c.streams || ev.Stream != 0
		switch ev.Kind {
		case workloads.Alloc:
			if _, ok := live.get(ev.ID); ok {
				return nil, fail(i, "alloc of id %d, which is still live", ev.ID)
			}
			if ev.Size < 0 {
				return nil, fail(i, "alloc of id %d with %d bytes: want >= 0", ev.ID, ev.Size)
			}
			req := int32(len(c.allocs))
			c.allocs = append(c.allocs, AllocRecord{ID: ev.ID, Size: ev.Size, Offset: -1})
			c.producer = append(c.producer, ev.Stream)
			refs = append(refs, 1)
			reqEvent = append(reqEvent, -1)
			users = append(users, nil)
			live.set(ev.ID, req)
			evReq[i] = req
		case workloads.View:
			if _, ok := live.get(ev.ID); ok {
				return nil, fail(i, "view %d of %d: id %d is still live", ev.ID, ev.Of, ev.ID)
			}
			req, ok := live.get(ev.Of)
			if !ok {
				return nil, fail(i, "view %d of id %d, which is not live", ev.ID, ev.Of)
			}
			refs[req]++
			live.set(ev.ID, req)
		case workloads.Free:
			req, ok := live.get(ev.ID)
			if !ok {
				return nil, fail(i, "free of id %d, which is not allocated", ev.ID)
			}
			live.set(ev.ID, -1)
			use(req, ev.Stream)
			evReq[i] = req
			if refs[req]--; refs[req] == 0 {
				reqEvent[req] = int32(i)
			}
		case workloads.Record:
			req, ok := live.get(ev.ID)
			if !ok {
				return nil, fail(i, "record of id %d on stream %d: the id is not live", ev.ID, ev.Stream)
			}
			use(req, ev.Stream)
			evReq[i] = req
		case workloads.Sync, workloads.EmptyCache:
		default:
			return nil, fail(i, "unknown event kind %d", ev.Kind)
		}
	}
	// When each free completes, in the order of completion, then request.
	type completion struct{ at, req, asked int32 }
	var done []completion
	for req, at := range reqEvent {
		if at < 0 {
			continue
		}
		if cp := sp.Completion(at, c.producer[req], users[req]); cp >= 0 {
			done = append(done, completion{cp, int32(req), at})
		}
	}
	byTime := func(a, b completion) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.asked, b.asked)) }
	if !slices.IsSortedFunc(done, byTime) {
		slices.SortFunc(done, byTime)
	}
	// Pass 2: emit the ops, handing out slots.
	slotOf := make([]int32, len(c.allocs))
	var freeSlots []int32
	emit := func(size int64, slot, stream, req int32, i int) {
		c.ops = append(c.ops, replayOp{size: size, slot: slot, stream: stream})
		c.req = append(c.req, req)
		c.ev = append(c.ev, int32(i))
	}
	k := 0
	for i, ev := range tr.Events {
		req := evReq[i]
		switch ev.Kind {
		case workloads.Alloc:
			slotOf[req] = -1
			if ev.Size > 0 {
				if n := len(freeSlots); n > 0 {
					slotOf[req] = freeSlots[n-1]
					freeSlots = freeSlots[:n-1]
				} else {
					slotOf[req] = int32(c.slots)
					c.slots++
				}
				emit(ev.Size, slotOf[req], ev.Stream, req, i)
			}
		case workloads.Free:
			switch {
			case !c.syncs || slotOf[req] < 0:
			case reqEvent[req] == int32(i):
				emit(opRequest, slotOf[req], ev.Stream, req, i)
			case ev.Stream != c.producer[req]:
				emit(opRecord, slotOf[req], ev.Stream, req, i)
			}
		case workloads.Record:
			if c.syncs && slotOf[req] >= 0 {
				emit(opRecord, slotOf[req], ev.Stream, req, i)
			}
		case workloads.Sync:
			emit(opSync, -1, ev.Stream, -1, i)
		case workloads.EmptyCache:
			emit(opEmptyCache, -1, 0, -1, i)
		}
		for ; k < len(done) && done[k].at == int32(i); k++ {
			if r := done[k].req; slotOf[r] >= 0 {
				emit(opFree, slotOf[r], c.producer[r], r, i)
				freeSlots = append(freeSlots, slotOf[r])
			}
		}
	}
	return c, nil
}

// idTable maps trace ids to allocation requests (-1: not live): a flat slice
// when the ids are dense enough, as recorded and generated traces number
// them, else a map.
type idTable struct {
	dense []int32
	m     map[int]int32
}

func newIDTable(evs []workloads.Event) *idTable {
	hi := -1
	for _, e := range evs {
		if e.ID < 0 || e.Of < 0 {
			return &idTable{m: map[int]int32{}}
		}
		hi = max(hi, e.ID, e.Of)
	}
	if hi >= 4*len(evs)+1024 {
		return &idTable{m: map[int]int32{}}
	}
	t := &idTable{dense: make([]int32, hi+1)}
	for i := range t.dense {
		t.dense[i] = -1
	}
	return t
}

func (t *idTable) get(id int) (int32, bool) {
	if t.m != nil {
		s, ok := t.m[id]
		return s, ok
	}
	s := t.dense[id]
	return s, s >= 0
}

// set records id's slot; -1 removes it.
func (t *idTable) set(id int, slot int32) {
	switch {
	case t.m == nil:
		t.dense[id] = slot
	case slot < 0:
		delete(t.m, id)
	default:
		t.m[id] = slot
	}
}

// Replay runs a trace through a: one recorded replay on a itself, whose
// allocations and statistics make the result, then opts.Repeat timed
// replays of the bare call loop. An OOM is recorded and the replay goes
// on; freeing a failed or zero-byte allocation is a no-op; a view shares
// its storage until the last tensor sharing it is freed. Frees reach the
// allocator when they complete, or as requests where it completes them
// itself (streams.go). An EmptyCache event empties the allocator's cache
// where its runtime can (CacheEmptier). A trace recorded mid-run
// (workloads.Trace.Cache) starts from the recorded cache where the
// allocator takes one (torch-caching): the trace's first allocations, the
// cache's blocks, are seeded in place, every replay; other allocators
// serve them as requests. A malformed trace (unknown free, id reuse while
// live) is a workloads.InputError.
func Replay(ctx context.Context, a Allocator, tr *workloads.Trace, opts ReplayOptions) (*ReplayResult, error) {
	c, err := compileTrace(tr, opts.FreeDelay)
	if err != nil {
		return nil, err
	}
	res := &ReplayResult{Allocs: c.allocs, Events: len(tr.Events), Calls: len(c.ops)}
	offs := make([]int64, c.slots)
	// The recorded replay runs through the Verifier when asked; timed
	// replays never do.
	rec := a
	var v *Verifier
	if opts.Verify {
		v = Verify(a)
		rec = v
	}
	seed := planSeed(c, tr.Cache)
	start := time.Now()
	if err := record(ctx, rec, c, offs, res, opts.Timeline, tr.Cache, seed); err != nil {
		return nil, err
	}
	if !res.Seeded {
		seed = nil
	}
	recorded := time.Since(start)
	if v != nil {
		if err := v.Check(); err != nil {
			return nil, err
		}
		n := v.Counts()
		res.Verified = &n
	}

	repeat := max(opts.Repeat, 1)
	if opts.Untimed {
		return res, nil
	}
	if c.streams || c.syncs {
		c.bareOpsFor(newStreamCalls(a, c)) // made before the clock starts
	}
	for r := 0; r < repeat; r++ {
		var b Allocator
		if rs, ok := a.(Resetter); ok {
			rs.Reset()
			b = a
		} else if opts.New != nil {
			b = opts.New()
		} else {
			res.TimesNs = append(res.TimesNs, perEvent(recorded, res.Events))
			break
		}
		if seed != nil {
			if err := seed.seed(b, c, tr.Cache, offs); err != nil {
				return nil, err
			}
		}
		start := time.Now()
		var ooms int
		switch {
		case c.streams || c.syncs:
			ooms, err = runStreamsFrom(ctx, b, c, offs, seed.start())
		case seed != nil:
			ooms, err = runCalls(ctx, b, c.ops[seed.k:], seed.call, offs)
		default:
			ooms, err = run(ctx, b, c.ops, offs)
		}
		elapsed := time.Since(start)
		if err != nil {
			return nil, err
		}
		if ooms != res.OOMs {
			return nil, fmt.Errorf("replay: %d OOMs on timed replay %d, %d on the recorded one: the allocator is not deterministic", ooms, r+1, res.OOMs)
		}
		res.TimesNs = append(res.TimesNs, perEvent(elapsed, res.Events))
	}
	// Median copies and sorts its input; TimesNs keeps replay order.
	res.NsPerOp, _ = stats.Median(res.TimesNs)
	return res, nil
}

func perEvent(d time.Duration, events int) float64 {
	if events == 0 {
		return 0
	}
	return float64(d.Nanoseconds()) / float64(events)
}

// ctxEvery is how many calls run between context checks.
const ctxEvery = 1 << 12

// run is the timed loop of a trace on stream 0 without sync points: the
// allocator calls alone, with offsets kept in a flat slice indexed by
// slot. It returns the number of OOMs.
func run(ctx context.Context, a Allocator, ops []replayOp, offs []int64) (int, error) {
	return runCalls(ctx, a, ops, nil, offs)
}

// runCalls is run for the ops numbered by call among all ops (nil: in
// order).
func runCalls(ctx context.Context, a Allocator, ops []replayOp, call []int32, offs []int64) (int, error) {
	if h, ok := a.(blockHandles); ok {
		return runHandles(ctx, h, ops, call, offs)
	}
	ooms := 0
	for i := range ops {
		if i&(ctxEvery-1) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		op := &ops[i]
		if op.size < 0 {
			if op.size == opEmptyCache {
				emptyCache(a)
			} else if off := offs[op.slot]; off >= 0 {
				if err := a.Free(off); err != nil {
					return 0, callError(call, i, err)
				}
			}
			continue
		}
		blk, err := a.Alloc(op.size)
		if err != nil {
			if !errors.Is(err, ErrOOM) {
				return 0, callError(call, i, err)
			}
			offs[op.slot] = -1
			ooms++
			continue
		}
		offs[op.slot] = blk.Offset
	}
	return ooms, nil
}

// streamCalls makes the calls an allocator gets for one op (streams.go):
// plain allocators get Alloc and the completed Free, StreamAllocators
// AllocOn in place of Alloc, and DeferredFreers (and the Verifier, which
// passes on what its allocator takes) the requests, records and syncs of
// a trace with sync points in place of the completed frees.
type streamCalls struct {
	a        Allocator
	sa       StreamAllocator
	d        DeferredFreer
	selfFree bool // the allocator completes frees itself: skip opFree
}

func newStreamCalls(a Allocator, c *compiled) streamCalls {
	sc := streamCalls{a: a}
	sc.sa, _ = a.(StreamAllocator)
	if c.syncs {
		sc.d, _ = a.(DeferredFreer)
		sc.selfFree = levelOf(a) == deferredLevel
	}
	return sc
}

// call makes op's call with off the offset in its slot (-1 for none) and
// returns the allocation's block or the call's error.
func (sc *streamCalls) call(op *replayOp, off int64) (Block, error) {
	if op.size >= 0 {
		if sc.sa != nil {
			return sc.sa.AllocOn(op.size, int(op.stream))
		}
		return sc.a.Alloc(op.size)
	}
	switch op.size {
	case opFree:
		if off >= 0 && !sc.selfFree {
			return Block{}, sc.a.Free(off)
		}
	case opRequest:
		if off >= 0 && sc.d != nil {
			return Block{}, sc.d.RequestFree(off, int(op.stream))
		}
	case opRecord:
		if off >= 0 && sc.d != nil {
			return Block{}, sc.d.RecordStream(off, int(op.stream))
		}
	case opSync:
		if sc.d != nil {
			sc.d.Sync(int(op.stream))
		}
	case opEmptyCache:
		emptyCache(sc.a)
	}
	return Block{}, nil
}

// runStreams is run for traces with streams or sync points. It runs
// only the ops the allocator acts on: an allocator that completes frees
// itself skips the completed frees, one that does not the requests,
// records and syncs; the calls are those streamCalls makes.
func runStreams(ctx context.Context, a Allocator, c *compiled, offs []int64) (int, error) {
	return runStreamsFrom(ctx, a, c, offs, 0)
}

// runStreamsFrom is runStreams from op k on, the ops before it being the
// allocations a seeded cache made (seedPlan).
func runStreamsFrom(ctx context.Context, a Allocator, c *compiled, offs []int64, k int) (int, error) {
	sc := newStreamCalls(a, c)
	if b := c.bareOpsFor(sc); b != nil {
		b = &bareOps{ops: b.ops[k:], call: b.call[k:]}
		if h, ok := a.(blockHandles); ok {
			return runHandles(ctx, h, b.ops, b.call, offs)
		}
		if sc.selfFree {
			return runRequests(ctx, sc.d, b, offs)
		}
		return runFrees(ctx, sc, b, offs)
	}
	// A Verifier around an allocator that does not complete frees takes
	// every op.
	ooms := 0
	for i := k; i < len(c.ops); i++ {
		if i&(ctxEvery-1) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		op := &c.ops[i]
		off := int64(-1)
		if op.slot >= 0 {
			off = offs[op.slot]
		}
		blk, err := sc.call(op, off)
		switch {
		case op.size < 0:
			if err != nil {
				return 0, callError(nil, i, err)
			}
		case err != nil:
			if !errors.Is(err, ErrOOM) {
				return 0, callError(nil, i, err)
			}
			offs[op.slot] = -1
			ooms++
		default:
			offs[op.slot] = blk.Offset
		}
	}
	return ooms, nil
}

// bareOpsFor returns the ops runStreams runs for the allocator of sc, or
// nil for all of them.
func (c *compiled) bareOpsFor(sc streamCalls) *bareOps {
	switch {
	case sc.d == nil:
		return c.bareFor(bareFrees, func(size int64) bool { return size >= 0 || size == opFree || size == opEmptyCache })
	case sc.selfFree:
		return c.bareFor(bareRequests, func(size int64) bool { return size != opFree })
	}
	return nil
}

// runFrees is runStreams for an allocator that gets allocations (AllocOn
// where it has it) and completed frees.
func runFrees(ctx context.Context, sc streamCalls, b *bareOps, offs []int64) (int, error) {
	ooms := 0
	for i := range b.ops {
		if i&(ctxEvery-1) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		op := &b.ops[i]
		if op.size < 0 {
			if op.size == opEmptyCache {
				emptyCache(sc.a)
			} else if off := offs[op.slot]; off >= 0 {
				if err := sc.a.Free(off); err != nil {
					return 0, callError(b.call, i, err)
				}
			}
			continue
		}
		var blk Block
		var err error
		if sc.sa != nil {
			blk, err = sc.sa.AllocOn(op.size, int(op.stream))
		} else {
			blk, err = sc.a.Alloc(op.size)
		}
		if err != nil {
			if !errors.Is(err, ErrOOM) {
				return 0, callError(b.call, i, err)
			}
			offs[op.slot] = -1
			ooms++
			continue
		}
		offs[op.slot] = blk.Offset
	}
	return ooms, nil
}

// runRequests is runStreams for a DeferredFreer in a trace with sync
// points: allocations, free requests, records and syncs.
func runRequests(ctx context.Context, d DeferredFreer, b *bareOps, offs []int64) (int, error) {
	ooms := 0
	ops := b.ops
	for i := range ops {
		if i&(ctxEvery-1) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		op := ops[i]
		if op.size >= 0 {
			blk, err := d.AllocOn(op.size, int(op.stream))
			if err == nil {
				offs[op.slot] = blk.Offset
				continue
			}
			if !errors.Is(err, ErrOOM) {
				return 0, callError(b.call, i, err)
			}
			offs[op.slot] = -1
			ooms++
			continue
		}
		if op.size == opSync {
			d.Sync(int(op.stream))
			continue
		}
		if op.size == opEmptyCache {
			emptyCache(d)
			continue
		}
		off := offs[op.slot]
		if off < 0 {
			continue
		}
		var err error
		if op.size == opRequest {
			err = d.RequestFree(off, int(op.stream))
		} else {
			err = d.RecordStream(off, int(op.stream))
		}
		if err != nil {
			return 0, callError(b.call, i, err)
		}
	}
	return ooms, nil
}

// runHandles is the timed loop of an allocator with handles, for the ops
// the allocator acts on (call numbers them among all ops; nil: in order).
// Slots keep handles in place of offsets.
func runHandles(ctx context.Context, a blockHandles, ops []replayOp, call []int32, slots []int64) (int, error) {
	ooms := 0
	for i := range ops {
		if i&(ctxEvery-1) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		op := ops[i]
		if op.size >= 0 {
			h, err := a.allocHandle(op.size, int(op.stream))
			if err == nil {
				slots[op.slot] = int64(h)
				continue
			}
			if !errors.Is(err, ErrOOM) {
				return 0, callError(call, i, err)
			}
			slots[op.slot] = -1
			ooms++
			continue
		}
		if op.size == opSync {
			a.Sync(int(op.stream))
			continue
		}
		if op.size == opEmptyCache {
			emptyCache(a)
			continue
		}
		h := slots[op.slot]
		if h < 0 {
			continue
		}
		var err error
		switch op.size {
		case opRequest:
			err = a.requestFreeHandle(int32(h), int(op.stream))
		case opRecord:
			err = a.recordStreamHandle(int32(h), int(op.stream))
		default:
			err = a.freeHandle(int32(h))
		}
		if err != nil {
			return 0, callError(call, i, err)
		}
	}
	return ooms, nil
}

// callError is the error of op i of a timed loop, numbered among all ops
// by call (nil: i itself).
func callError(call []int32, i int, err error) error {
	n := i + 1
	if call != nil {
		n = int(call[i]) + 1
	}
	return fmt.Errorf("replay: call %d: %w", n, err)
}

// opNames names the op kinds in errors.
var opNames = map[int64]string{opFree: "free", opRequest: "free request", opRecord: "record stream", opSync: "sync", opEmptyCache: "empty cache"}

// record is the recorded replay: run plus the allocation records, the
// peaks, BFC's metric over time and the optional timeline. Requested
// bytes stay in use until their free completes, whoever completes it.
func record(ctx context.Context, a Allocator, c *compiled, offs []int64, res *ReplayResult, timeline bool, cache []workloads.CacheSegment, seed *seedPlan) error {
	var inUse, allocated int64
	stride := max(1, len(c.ops)/1000)
	if timeline {
		res.Timeline = make([]TimelinePoint, 0, len(c.ops))
	}
	for i := range offs {
		offs[i] = -1
	}
	first := 0
	if s, ok := a.(cacheSeeder); ok && seed != nil {
		bs, ok, err := s.seedCache(cache)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if ok {
			res.Seeded, first = true, seed.k
			for j, b := range bs {
				offs[seed.slots[j]] = b.Offset
				rec := &c.allocs[seed.reqs[j]]
				rec.Offset, rec.Chunk = b.Offset, b.Size
				inUse += rec.Size
				allocated += rec.Chunk
			}
			res.PeakInUse, res.PeakAllocated = inUse, allocated
			ev := 0
			if first > 0 {
				ev = int(c.ev[first-1]) + 1
			}
			res.Peak = breakdown(a, a.Stats(), ev, inUse, allocated)
		}
	}
	var ev int
	if l, ok := a.(segmentLogger); ok {
		res.SegmentsLogged = true
		l.logSegments(func(free bool, size int64) {
			res.Segments = append(res.Segments, workloads.SegmentEvent{Free: free, Size: size, Event: ev - 1})
		})
		defer l.logSegments(nil)
	}
	sc := newStreamCalls(a, c)
	if !c.streams && !c.syncs {
		sc.sa = nil // stream 0 only: Alloc, as the timed loop calls it
	}
	for i := first; i < len(c.ops); i++ {
		if i&(ctxEvery-1) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		op := &c.ops[i]
		ev = int(c.ev[i]) + 1
		if op.size == opSync || op.size == opEmptyCache {
			sc.call(op, -1)
		} else {
			rec := &c.allocs[c.req[i]]
			off := offs[op.slot]
			if op.size < 0 {
				if _, err := sc.call(op, off); err != nil {
					return fmt.Errorf("replay: event %d: %s of id %d at %d: %w", ev, opNames[op.size], rec.ID, off, err)
				}
				if op.size == opFree && off >= 0 {
					inUse -= rec.Size
					allocated -= rec.Chunk
				}
			} else if blk, err := sc.call(op, off); err != nil {
				if !errors.Is(err, ErrOOM) {
					return fmt.Errorf("replay: event %d: alloc of id %d: %w", ev, rec.ID, err)
				}
				offs[op.slot] = -1
				res.OOMs++
				res.OOMsAt = append(res.OOMsAt, OOMBreakdown{Breakdown: breakdown(a, a.Stats(), ev, inUse, allocated),
					ID: rec.ID, Size: rec.Size, Stream: int(op.stream)})
			} else {
				if blk.Size < op.size || blk.Offset < 0 {
					return fmt.Errorf("replay: event %d: %d bytes for id %d got block %+v", ev, op.size, rec.ID, blk)
				}
				offs[op.slot] = blk.Offset
				rec.Offset, rec.Chunk = blk.Offset, blk.Size
				inUse += rec.Size
				allocated += rec.Chunk
				res.PeakInUse = max(res.PeakInUse, inUse)
				res.PeakAllocated = max(res.PeakAllocated, allocated)
			}
		}
		st := a.Stats()
		if st.Reserved > res.Peak.Reserved {
			res.Peak = breakdown(a, st, ev, inUse, allocated)
		}
		f := BFCFragmentation(st)
		if !math.IsNaN(f) {
			res.BFCFragmentationMax = max(res.BFCFragmentationMax, f)
		}
		if i%stride == 0 || i == len(c.ops)-1 {
			res.FragSamples = append(res.FragSamples, FragSample{Event: ev - 1, Value: f})
		}
		if timeline {
			res.Timeline = append(res.Timeline, TimelinePoint{Event: ev - 1, InUse: inUse, Allocated: allocated,
				Reserved: st.Reserved, LargestFreeChunk: st.LargestFreeChunk})
		}
	}
	st := a.Stats()
	res.Final = st
	res.PeakReserved = st.PeakReserved
	res.LargestFreeChunk = st.LargestFreeChunk
	res.BFCFragmentation = BFCFragmentation(st)
	res.Fragmentation = math.NaN()
	if res.PeakInUse > 0 {
		res.Fragmentation = float64(res.PeakReserved) / float64(res.PeakInUse)
	}
	return nil
}

// seedPlan says how a replay starts from a trace's recorded cache: the
// first k ops allocate its blocks (slots and reqs give each block's slot
// and allocation request, in the cache's order), and an allocator that
// takes the cache is seeded with it in their place; call numbers the ops
// after them.
type seedPlan struct {
	k           int
	slots, reqs []int32
	call        []int32
}

// planSeed returns the plan for cache, or nil where there is none or the
// trace's first ops are not the allocations of its blocks (one each, of
// more than 0 bytes).
func planSeed(c *compiled, cache []workloads.CacheSegment) *seedPlan {
	if len(cache) == 0 {
		return nil
	}
	byID := map[int]int{}
	for _, s := range cache {
		for _, b := range s.Blocks {
			byID[b.ID] = len(byID)
		}
	}
	n := len(byID)
	if n > len(c.ops) {
		return nil
	}
	p := &seedPlan{k: n, slots: make([]int32, n), reqs: make([]int32, n), call: make([]int32, len(c.ops)-n)}
	seen := make([]bool, n)
	for i := 0; i < n; i++ {
		if c.ops[i].size < 0 {
			return nil
		}
		j, ok := byID[c.allocs[c.req[i]].ID]
		if !ok || seen[j] {
			return nil
		}
		seen[j] = true
		p.slots[j], p.reqs[j] = c.ops[i].slot, c.req[i]
	}
	for i := range p.call {
		p.call[i] = int32(n + i)
	}
	return p
}

// start returns the first op a seeded replay runs (0 for none).
func (p *seedPlan) start() int {
	if p == nil {
		return 0
	}
	return p.k
}

// seed seeds a for a timed replay, putting each block's offset, or handle
// where the timed loop passes handles, in its slot.
func (p *seedPlan) seed(a Allocator, c *compiled, cache []workloads.CacheSegment, offs []int64) error {
	s, ok := a.(cacheSeeder)
	var bs []seededBlock
	var err error
	if ok {
		bs, ok, err = s.seedCache(cache)
	}
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if !ok {
		return errors.New("replay: a timed replay's allocator does not take the recorded cache the recorded replay took")
	}
	_, handles := a.(blockHandles)
	if handles && (c.streams || c.syncs) {
		handles = c.bareOpsFor(newStreamCalls(a, c)) != nil
	}
	for j, b := range bs {
		offs[p.slots[j]] = b.Offset
		if handles {
			offs[p.slots[j]] = int64(b.h)
		}
	}
	return nil
}
