package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// ReadPyTorch reads the pickle written by torch.cuda.memory._dump_snapshot()
// and returns the allocation trace it records. The snapshot is a dict:
//
//	segments:      [{device, address, blocks: [{address, size, requested_size, state}]}]
//	device_traces: [[{action, addr, size, stream, ...}], ...]  one list per device
//	allocator_settings: {PYTORCH_CUDA_ALLOC_CONF: "...", ...}  kept as Trace.AllocatorSettings
//
// Conversion:
//   - alloc (addr, size) allocates a new tensor id (ids count from 0 in
//     order of allocation); free_requested frees it: that is when the
//     program let go of it. free_completed (the allocator reclaiming it
//     after its streams finished) only ends the address mapping, or frees
//     it when no free_requested was recorded.
//   - A free of an address the trace never allocated was allocated before
//     recording began: the tensor is allocated at the start of the trace.
//     Blocks still active_allocated in segments and never seen in the
//     trace are allocated at the start too, and never freed.
//   - An alloc with no matching free lives to the end of the trace.
//   - oom is a request the allocator failed: nothing was allocated, so it
//     is no event; Trace.OOMs counts them.
//   - segment_alloc, segment_free, segment_map and segment_unmap are the
//     allocator's own calls: not requests, but what it held, kept in
//     Trace.Recording for calibration. A run of segment_free (or
//     segment_unmap) entries is an EmptyCache event, an empty_cache()
//     call, unless an oom entry follows it: then it is the refused
//     request's own release before its retry (pyConv.endRelease).
//   - A recording that starts mid-run has segments and blocks from before
//     its first entry: Trace.Cache, rebuilt from the snapshot's segments
//     by undoing the trace's segment entries (pyCache says how).
//   - snapshot is the allocator's own call, annotate a user's marker:
//     skipped. An entry with any other action is skipped too, counted in
//     Trace.Warnings (newer PyTorch may add actions).
//
// Streams (DESIGN §11): each entry's "stream" (a CUDA stream handle)
// becomes the event's stream, numbered 0, 1, ... in order of appearance
// (handle 0, the default stream, is stream 0). PyTorch completes a free
// at once unless another stream used the block (record_stream); then
// free_completed comes later, when that stream is done. A snapshot with
// such a deferred free becomes a trace with sync points: every free is
// followed by a sync of its stream, and a deferred one is also recorded
// on a stream of its own (the next number), which syncs at its
// free_completed, so each free completes where PyTorch completed it.
//
// Devices: membench replays one device's memory. Load's option
// `snap.pickle?device=N` picks device N; without it, a snapshot whose
// trace events (or, with no trace, allocated blocks) span several devices
// is refused with the list of them, and one with none at all (a snapshot
// of the host only, or taken before any CUDA allocation) too.
//
// PyTorch 1.13's torch.cuda.memory._snapshot() is the list of segments
// alone, with no trace: each block's "history" (recorded with
// _record_memory_history(True)) lists the allocations made in it, newest
// first, as {addr, real_size, frames}. They become allocations of
// real_size bytes in the order pyHistory describes; when each was freed,
// and how allocations in different blocks interleaved, is lost (a block
// merged from freed neighbours holds their histories too, which may have
// been live together). Segment streams are not kept. Blocks
// without a history are read as above (allocated ones live throughout).
//
// Snapshots are decoded by snapshotDecoder, which converts trace entries
// as it reads them, so a gigabyte-sized snapshot needs about its own size
// again in memory (BenchmarkReadPyTorch); a pickle outside the subset it
// reads (Python objects, say) goes to gopickle, which builds the whole
// tree.
func ReadPyTorch(r io.Reader, name string) (*Trace, error) {
	data, err := readAll(r, name)
	if err != nil {
		return nil, err
	}
	return parsePyTorch(data, name, "")
}

func parsePyTorch(data []byte, name, device string) (*Trace, error) {
	return parsePyTorchWith(data, name, device, true)
}

// parsePyTorchWith reads a snapshot with snapshotDecoder where the pickle
// is in its subset and stream is set, else with gopickle.
func parsePyTorchWith(data []byte, name, device string, stream bool) (*Trace, error) {
	if msg := scanPickle(data); msg != "" {
		return nil, pyFail(name, "%s", msg)
	}
	budget := &pyBudget{limit: pyStepsPerByte*int64(len(data)) + pyStepsFree}
	defer func() { readStats.entries.Add(budget.steps) }()
	dec := snapshotDecoder{data: data, name: name, budget: budget}
	obj, err := any(nil), errNotSubset
	if stream {
		obj, err = dec.decode()
	}
	if err != nil {
		dec.streams = nil
		if obj, err = unpickle(data); err != nil {
			return nil, pyFail(name, "not a valid pickle: %v", err)
		}
	}
	s, err := pySnapshotParts(obj, name)
	if err != nil {
		return nil, err
	}
	entries := func(l *types.List) int {
		if s := dec.streams[l]; s != nil {
			return s.n
		}
		return len(*l)
	}
	dev, err := pyDevice(s.traces, s.segs, entries, device, name, budget)
	if err != nil {
		return nil, err
	}
	c, err := s.convert(&dec, dev, name, budget)
	if err != nil {
		return nil, err
	}
	return s.trace(c, dev), nil
}

// unstream names device dev in the positions of streamed entries in s.
func unstream(s string, dev int) string {
	return strings.ReplaceAll(s, streamDevice, fmt.Sprintf("device_traces[%d]", dev))
}

// pyFail returns an InputError about snapshot name.
func pyFail(name, format string, args ...any) error {
	return &InputError{File: name, Msg: fmt.Sprintf(format, args...)}
}

// pySnapshot holds the parts of a decoded snapshot that the reader uses.
type pySnapshot struct {
	top    *types.Dict // nil for PyTorch 1.13's list of segments
	segs   *types.List // nil where absent
	traces *types.List // nil where absent; a list of lists
}

// pySnapshotParts finds the segments and the device traces of the
// decoded snapshot obj, and checks their types.
func pySnapshotParts(obj any, name string) (pySnapshot, error) {
	var s pySnapshot
	var segsV, tracesV any
	var hasSegs, hasTraces bool
	switch o := obj.(type) {
	case *types.Dict:
		s.top = o
		segsV, hasSegs = dictGet(o, "segments")
		tracesV, hasTraces = dictGet(o, "device_traces")
		if !hasSegs && !hasTraces {
			return s, pyFail(name, `not a PyTorch memory snapshot: the dict has neither "segments" nor "device_traces"`)
		}
	case *types.List:
		// PyTorch 1.13's torch.cuda.memory._snapshot() is the list of
		// segments alone.
		for _, v := range *o {
			if _, ok := v.(*types.Dict); !ok {
				return s, pyFail(name, "not a PyTorch memory snapshot: the pickle holds a list of %s, want a dict with segments and device_traces (or PyTorch 1.13's list of segment dicts)", pyType(v))
			}
		}
		segsV, hasSegs = o, true
	default:
		return s, pyFail(name, "not a PyTorch memory snapshot: the pickle holds %s, want a dict with segments and device_traces", aPyType(obj))
	}
	if hasTraces {
		var ok bool
		if s.traces, ok = tracesV.(*types.List); !ok {
			return s, pyFail(name, "device_traces: want a list, got %s", pyType(tracesV))
		}
		for d, v := range *s.traces {
			if _, ok := v.(*types.List); !ok {
				return s, pyFail(name, "device_traces[%d]: want a list, got %s", d, pyType(v))
			}
		}
	}
	if hasSegs {
		var ok bool
		if s.segs, ok = segsV.(*types.List); !ok {
			return s, pyFail(name, "segments: want a list, got %s", pyType(segsV))
		}
	}
	return s, nil
}

// convert converts the trace of device dev, taking over what dec
// converted while decoding, then the segments.
func (s *pySnapshot) convert(dec *snapshotDecoder, dev int, name string, budget *pyBudget) (*pyConv, error) {
	c := &pyConv{name: name, live: map[int64]pyLive{}, dev: dev, budget: budget}
	if s.traces != nil && dev < len(*s.traces) {
		l := (*s.traces)[dev].(*types.List)
		if st := dec.streams[l]; st != nil {
			// Converted while decoding: now the device is known.
			c, c.dev = st.c, dev
			if err := st.err; err != nil {
				var ie *InputError
				if errors.As(err, &ie) {
					ie.Msg = unstream(ie.Msg, dev)
				}
				return nil, err
			}
		}
		for k, v := range *l {
			if err := c.entry(c.where(k), v); err != nil {
				return nil, err
			}
		}
		if c.release > 0 {
			c.endRelease(false) // an empty_cache() ends the recording
		}
	}
	if s.segs != nil {
		if err := c.segments(s.segs, dev); err != nil {
			return nil, err
		}
		if s.traces != nil {
			c.rebuildCache()
		}
	}
	return c, nil
}

// trace returns the trace c converted from device dev, with the cache,
// the warnings and the allocator's settings.
func (s *pySnapshot) trace(c *pyConv, dev int) *Trace {
	tr := c.trace()
	tr.OOMs = c.ooms
	if s.segs != nil && s.traces != nil {
		tr.Cache, tr.Recording = c.cache, c.recording()
	}
	if c.cacheWarning != "" {
		tr.Warnings = append(tr.Warnings, c.cacheWarning)
	}
	for _, u := range c.unknown.order {
		n, entries := c.unknown.count[u], "entries"
		if n == 1 {
			entries = "entry"
		}
		first := unstream(c.unknown.first[u], dev)
		tr.Warnings = append(tr.Warnings, fmt.Sprintf("skipped %d trace %s with unknown action %s (first at %s)", n, entries, Echo(u), first))
	}
	if s.top != nil {
		tr.AllocatorSettings = allocatorSettings(s.top)
	}
	return tr
}

// pyDevice returns the device whose memory a snapshot's trace is read
// from: the one chosen (device, as "N" or "cuda:N"), else the only device
// with trace entries, else the only device of the segments' blocks. A
// snapshot with no device memory, or with several devices and none
// chosen, is an error listing them.
func pyDevice(traces, segs *types.List, entries func(*types.List) int, device, name string, budget *pyBudget) (int, error) {
	var withEvents []int
	if traces != nil {
		for d, v := range *traces {
			if entries(v.(*types.List)) > 0 {
				withEvents = append(withEvents, d)
			}
		}
	}
	withBlocks := map[int]bool{}
	if segs != nil {
		for i, sv := range *segs {
			seg, ok := sv.(*types.Dict)
			if !ok {
				continue // segments() words the error
			}
			if !budget.spend(len(*seg)) {
				return 0, budget.fail(name, fmt.Sprintf("segments[%d]", i))
			}
			d := int64(0)
			if dv, ok := dictGet(seg, "device"); ok {
				if d, ok = pyInt(dv); !ok || d < 0 || d > math.MaxInt32 {
					continue
				}
			}
			if bv, ok := dictGet(seg, "blocks"); ok {
				if l, ok := bv.(*types.List); ok && len(*l) > 0 {
					withBlocks[int(d)] = true
				}
			}
		}
	}
	devices := withEvents
	what := "trace events"
	if len(devices) == 0 {
		what = "allocator blocks"
		for d := range withBlocks {
			devices = append(devices, d)
		}
		slices.Sort(devices)
	}
	list := func() string {
		s := make([]string, len(devices))
		for i, d := range devices {
			s[i] = strconv.Itoa(d)
		}
		return strings.Join(s, ", ")
	}
	fail := func(format string, args ...any) error {
		return &InputError{File: name, Msg: fmt.Sprintf(format, args...)}
	}
	if device != "" {
		d, err := strconv.Atoi(strings.TrimPrefix(device, "cuda:"))
		if err != nil || d < 0 {
			return 0, Usagef("%s: device=%s: want a device number, e.g. device=1 (devices with %s: %s)", name, Echo(device), what, list())
		}
		if !slices.Contains(devices, d) {
			return 0, fail("no %s on device %d (devices with %s: %s)", what, d, what, list())
		}
		return d, nil
	}
	switch len(devices) {
	case 0:
		return 0, fail("no device memory recorded: device_traces has no entries and segments no blocks (a snapshot taken before any CUDA allocation, or of the host only)")
	case 1:
		return devices[0], nil
	}
	return 0, fail("%s on %d devices (%s): choose one with ?device=N", what, len(devices), list())
}

// allocatorSettings returns the PYTORCH_CUDA_ALLOC_CONF string PyTorch
// writes under the snapshot's allocator_settings, or "".
func allocatorSettings(top *types.Dict) string {
	v, ok := dictGet(top, "allocator_settings")
	if !ok {
		return ""
	}
	d, ok := v.(*types.Dict)
	if !ok {
		return ""
	}
	if s, ok := dictGet(d, "PYTORCH_CUDA_ALLOC_CONF"); ok {
		if str, ok := s.(string); ok {
			return strings.Clone(str) // not the input's bytes
		}
	}
	return ""
}

// pyLive is an address holding a tensor.
type pyLive struct {
	id        int
	requested bool // free_requested seen, free_completed pending
	where     string
	stream    int32
	freeAt    int // index in events of its Free, once requested
}

// pyConv turns snapshot entries into events.
type pyConv struct {
	name   string
	live   map[int64]pyLive
	pre    []Event // allocated before recording began
	events []Event
	nextID int
	pyStreams
	// dev is the device whose trace this is; streamed, a trace converted
	// while decoding, before dev was known (positions use streamDevice).
	dev      int
	streamed bool
	budget   *pyBudget
	ooms     int
	pyCache
	pyStacks
	unknown struct { // entries with actions membench does not know
		order []string
		count map[string]int
		first map[string]string
	}
}

// pyStreams numbers a snapshot's streams and keeps its deferred frees.
type pyStreams struct {
	handles map[int64]int32 // stream handle -> stream
	n       int32           // streams numbered so far, besides 0
	// recordAt holds, for the Free events of deferred frees (by index in
	// events), the stream of their own that completes them.
	recordAt map[int]int32
}

// stream returns the stream of entry d (0 without a "stream" field).
func (s *pyStreams) stream(d *types.Dict) int32 {
	v, ok := dictGet(d, "stream")
	if !ok {
		return 0
	}
	h, _ := pyInt(v)
	return s.number(h)
}

// number returns the stream of handle h.
func (s *pyStreams) number(h int64) int32 {
	if h == 0 {
		return 0
	}
	if st, ok := s.handles[h]; ok {
		return st
	}
	if s.handles == nil {
		s.handles = map[int64]int32{}
	}
	s.n++
	s.handles[h] = s.n
	return s.n
}

// deferred marks the free at events[at] as completed only now, by a sync
// of a new stream, which it returns.
func (s *pyStreams) deferred(at int) int32 {
	if s.recordAt == nil {
		s.recordAt = map[int]int32{}
	}
	s.n++
	s.recordAt[at] = s.n
	return s.n
}

// where names the k-th entry of the trace.
func (c *pyConv) where(k int) string {
	if c.streamed {
		return fmt.Sprintf("%s[%d]", streamDevice, k)
	}
	return fmt.Sprintf("device_traces[%d][%d]", c.dev, k)
}

func (c *pyConv) newID() int { c.nextID++; return c.nextID - 1 }

func (c *pyConv) fail(where, format string, args ...any) error {
	return &InputError{File: c.name, Msg: where + ": " + fmt.Sprintf(format, args...)}
}

// entry converts one trace entry.
func (c *pyConv) entry(where string, v any) error {
	k := c.entries
	c.entries++
	d, err := c.dict(v, where)
	if err != nil {
		return err
	}
	actV, ok := dictGet(d, "action")
	if !ok {
		return c.fail(where, `missing field "action"`)
	}
	action, ok := actV.(string)
	if !ok {
		return c.fail(where, `field "action": want a string, got %s`, pyType(actV))
	}
	at := where
	where += fmt.Sprintf(" (%s)", Clip(action))
	if c.release > 0 && action != "segment_free" && action != "segment_unmap" {
		c.endRelease(action == "oom")
	}
	switch action {
	case "alloc":
		return c.alloc(d, where)
	case "free_requested", "free_completed":
		return c.free(d, action == "free_requested", where)
	case "oom":
		// A request the allocator could not serve: nothing was allocated.
		c.ooms++
	case "segment_alloc", "segment_free", "segment_map", "segment_unmap":
		return c.segmentEntry(d, action, where, k)
	case "snapshot", "annotate":
		// User markers: not requests.
	default:
		c.unknownAction(action, at)
	}
	return nil
}

// alloc converts an "alloc" entry.
func (c *pyConv) alloc(d *types.Dict, where string) error {
	addr, size, err := c.addrSize(d, where)
	if err != nil {
		return err
	}
	if l, ok := c.live[addr]; ok && !l.requested {
		return c.fail(where, "address 0x%x is still allocated (since %s)", addr, l.where)
	}
	id := c.newID()
	st := c.stream(d)
	c.live[addr] = pyLive{id: id, where: where, stream: st}
	c.events = append(c.events, Event{Kind: Alloc, ID: id, Size: size, Stream: st})
	c.keepStack(id, d)
	return nil
}

// pyStacks keeps the Python stacks of a snapshot's allocations
// (Trace.Stacks): each distinct stack once.
type pyStacks struct {
	stacks  []string
	stackAt map[string]int32
	stackOf []int32 // by tensor id before renumbering; -1: none
}

// maxFrames is the most frames of a stack kept, innermost first; frames
// without a name or a file are left out.
const maxFrames = 12

// keepStack records the "frames" of alloc entry d for tensor id: each
// "function  file:line", or the function alone where the file is unknown
// (native frames).
func (c *pyConv) keepStack(id int, d *types.Dict) {
	v, ok := dictGet(d, "frames")
	if !ok {
		return
	}
	l, ok := v.(*types.List)
	if !ok || len(*l) == 0 {
		return
	}
	var b strings.Builder
	kept := 0
	for i, f := range *l {
		if kept == maxFrames {
			fmt.Fprintf(&b, "... %d more frames\n", len(*l)-i)
			break
		}
		fd, ok := f.(*types.Dict)
		if !ok {
			continue
		}
		name, _ := dictGet(fd, "name")
		file, _ := dictGet(fd, "filename")
		line, _ := dictGet(fd, "line")
		ns, _ := name.(string)
		fs, _ := file.(string)
		ln, _ := pyInt(line)
		switch {
		case fs != "" && fs != "??":
			fmt.Fprintf(&b, "%s  %s:%d\n", Clip(ns), Clip(fs), ln)
		case ns != "":
			fmt.Fprintf(&b, "%s\n", Clip(ns))
		default:
			continue // a frame the recorder could not name
		}
		kept++
	}
	key := strings.TrimSuffix(b.String(), "\n")
	if key == "" {
		return
	}
	k, ok := c.stackAt[key]
	if !ok {
		if c.stackAt == nil {
			c.stackAt = map[string]int32{}
		}
		k = int32(len(c.stacks))
		c.stacks = append(c.stacks, key)
		c.stackAt[key] = k
	}
	for len(c.stackOf) <= id {
		c.stackOf = append(c.stackOf, -1)
	}
	c.stackOf[id] = k
}

// free converts a "free_requested" (requested set) or "free_completed"
// entry.
func (c *pyConv) free(d *types.Dict, requested bool, where string) error {
	addr, err := c.intKey(d, "addr", where)
	if err != nil {
		return err
	}
	l, ok := c.live[addr]
	switch {
	case !ok:
		// Allocated before recording began.
		size, err := c.intKey(d, "size", where)
		if err != nil {
			return err
		}
		id := c.newID()
		st := c.stream(d)
		c.addPre(Event{Kind: Alloc, ID: id, Size: size, Stream: st}, addr, 0)
		c.events = append(c.events, Event{Kind: Free, ID: id, Stream: st})
		if requested {
			c.live[addr] = pyLive{id: id, requested: true, where: where, stream: st, freeAt: len(c.events) - 1}
		}
	case l.requested:
		if requested {
			return c.fail(where, "address 0x%x freed twice (first %s)", addr, l.where)
		}
		if l.freeAt != len(c.events)-1 {
			// Other events came between: another stream held it.
			c.events = append(c.events, Event{Kind: Sync, Stream: c.deferred(l.freeAt)})
		}
		delete(c.live, addr)
	default:
		c.events = append(c.events, Event{Kind: Free, ID: l.id, Stream: l.stream})
		if requested {
			c.live[addr] = pyLive{id: l.id, requested: true, where: where, stream: l.stream, freeAt: len(c.events) - 1}
		} else {
			delete(c.live, addr)
		}
	}
	return nil
}

// segmentEntry converts entry k, a segment action: the allocator's own calls,
// not requests, but what it held.
func (c *pyConv) segmentEntry(d *types.Dict, action, where string, k int) error {
	addr, size, err := c.addrSize(d, where)
	if err != nil {
		return err
	}
	free := action == "segment_free" || action == "segment_unmap"
	h, _ := dictGet(d, "stream")
	handle, _ := pyInt(h)
	c.segs = append(c.segs, pySeg{free: free, addr: addr, size: size, stream: handle, event: len(c.events), entry: k})
	if free {
		c.release++
	}
	if action == "segment_map" || action == "segment_unmap" {
		c.expandable = true
	}
	return nil
}

// unknownAction counts an entry whose action membench does not know; at
// names the entry.
func (c *pyConv) unknownAction(action, at string) {
	u := &c.unknown
	if u.count == nil {
		u.count, u.first = map[string]int{}, map[string]string{}
	}
	if u.count[action] == 0 {
		u.order = append(u.order, action)
		u.first[action] = at
	}
	u.count[action]++
}

// segments adds the blocks of device dev that are allocated at the snapshot
// but were never allocated in the trace, and the allocations that PyTorch
// 1.13's per-block histories record.
func (c *pyConv) segments(segs *types.List, dev int) error {
	var hist pyHistory
	for i, sv := range *segs {
		if err := c.segment(sv, fmt.Sprintf("segments[%d]", i), dev, &hist); err != nil {
			return err
		}
	}
	c.history113 = len(hist.blocks) > 0
	c.pre = append(c.pre, hist.events(c)...)
	return nil
}

// segment reads segment sv, which where names, if it is on device dev.
func (c *pyConv) segment(sv any, where string, dev int, hist *pyHistory) error {
	seg, err := c.dict(sv, where)
	if err != nil {
		return err
	}
	if dv, ok := dictGet(seg, "device"); ok {
		if d, ok := pyInt(dv); !ok || d != int64(dev) {
			return nil
		}
	}
	addr, err := c.intKey(seg, "address", where)
	if err != nil {
		return err
	}
	bv, ok := dictGet(seg, "blocks")
	if !ok {
		return nil
	}
	blocks, ok := bv.(*types.List)
	if !ok {
		return c.fail(where, `field "blocks": want a list, got %s`, pyType(bv))
	}
	if err := c.finalSegment(seg, addr, blocks, where); err != nil {
		return err
	}
	for j, bv := range *blocks {
		if addr, err = c.block(bv, fmt.Sprintf("%s.blocks[%d]", where, j), addr, hist); err != nil {
			return err
		}
	}
	return nil
}

// block reads block bv, which where names and which starts at addr unless
// it gives its own address, and returns where the next block starts. An
// allocated block the trace never allocated is allocated before it; one
// with a PyTorch 1.13 history goes to hist instead.
func (c *pyConv) block(bv any, where string, addr int64, hist *pyHistory) (int64, error) {
	b, err := c.dict(bv, where)
	if err != nil {
		return 0, err
	}
	size, err := c.intKey(b, "size", where)
	if err != nil {
		return 0, err
	}
	// Older snapshots give no block address: blocks tile the segment.
	if addr, err = c.optIntKey(b, "address", where, addr); err != nil {
		return 0, err
	}
	st, _ := dictGet(b, "state")
	allocated := st == "active_allocated"
	if hv, ok := dictGet(b, "history"); ok {
		sizes, err := c.history(hv, where)
		if err != nil {
			return 0, err
		}
		if len(sizes) > 0 {
			hist.add(sizes, allocated)
			return addr + size, nil
		}
	}
	if allocated {
		if _, seen := c.live[addr]; !seen {
			req, err := c.optIntKey(b, "requested_size", where, size)
			if err != nil {
				return 0, err
			}
			c.addPre(Event{Kind: Alloc, ID: c.newID(), Size: req}, addr, size)
		}
	}
	return addr + size, nil
}

// history returns the real_size of each entry of a PyTorch 1.13 block
// history, newest first as PyTorch lists them.
func (c *pyConv) history(v any, where string) ([]int64, error) {
	l, ok := v.(*types.List)
	if !ok {
		return nil, c.fail(where, `field "history": want a list, got %s`, pyType(v))
	}
	sizes := make([]int64, len(*l))
	for k, hv := range *l {
		hwhere := fmt.Sprintf("%s.history[%d]", where, k)
		h, err := c.dict(hv, hwhere)
		if err != nil {
			return nil, err
		}
		n, err := c.intKey(h, "real_size", hwhere)
		if err != nil {
			return nil, err
		}
		sizes[k] = n
	}
	return sizes, nil
}

// pyHistory orders the allocations of PyTorch 1.13's block histories,
// which record what each block held but not when relative to other
// blocks. They are replayed in rounds aligned on the snapshot: round r
// allocates the r-th newest allocation of every block whose history has
// one, oldest rounds first, and then frees them, except that round 0's
// allocation of a block allocated at the snapshot stays live to the end.
// So allocations the same distance back in their blocks' histories are
// live together; the true overlap in time is lost.
type pyHistory struct {
	blocks [][]int64 // sizes, newest first
	live   []bool    // block allocated at the snapshot
}

func (h *pyHistory) add(sizes []int64, live bool) {
	h.blocks = append(h.blocks, sizes)
	h.live = append(h.live, live)
}

func (h *pyHistory) events(c *pyConv) []Event {
	rounds := 0
	for _, b := range h.blocks {
		rounds = max(rounds, len(b))
	}
	var evs []Event
	for r := rounds - 1; r >= 0; r-- {
		var freed []int
		for i, b := range h.blocks {
			if r >= len(b) {
				continue
			}
			id := c.newID()
			evs = append(evs, Event{Kind: Alloc, ID: id, Size: b[r]})
			if r > 0 || !h.live[i] {
				freed = append(freed, id)
			}
		}
		for _, id := range freed {
			evs = append(evs, Event{Kind: Free, ID: id})
		}
	}
	return evs
}

// addrSize returns an entry's addr and size fields.
func (c *pyConv) addrSize(d *types.Dict, where string) (addr, size int64, err error) {
	if addr, err = c.intKey(d, "addr", where); err != nil {
		return 0, 0, err
	}
	size, err = c.intKey(d, "size", where)
	return addr, size, err
}

// dict returns v as a dict, and counts reading its keys against the
// budget; where names v.
func (c *pyConv) dict(v any, where string) (*types.Dict, error) {
	d, ok := v.(*types.Dict)
	if !ok {
		return nil, c.fail(where, "want a dict, got %s", pyType(v))
	}
	if !c.budget.spend(len(*d)) {
		return nil, c.budget.fail(c.name, where)
	}
	return d, nil
}

// optIntKey is intKey for a key that may be absent: then it returns def.
func (c *pyConv) optIntKey(d *types.Dict, key, where string, def int64) (int64, error) {
	if _, ok := dictGet(d, key); !ok {
		return def, nil
	}
	return c.intKey(d, key, where)
}

func (c *pyConv) intKey(d *types.Dict, key, where string) (int64, error) {
	v, ok := dictGet(d, key)
	if !ok {
		return 0, c.fail(where, "missing field %q", key)
	}
	n, ok := pyInt(v)
	if big, isBig := v.(*big.Int); isBig && !ok {
		return 0, c.fail(where, "field %q: %s does not fit in 64 bits", key, Clip(big.String()))
	}
	if !ok {
		return 0, c.fail(where, "field %q: want an integer, got %s", key, pyType(v))
	}
	if n < 0 {
		return 0, c.fail(where, "field %q: %d is negative", key, n)
	}
	return n, nil
}

// trace assembles the events, renumbering ids in order of allocation.
// With deferred frees, a free is preceded by the record of its own
// stream, if deferred, and followed by a sync of its stream.
func (c *pyConv) trace() *Trace {
	renum := make([]int, c.nextID)
	next := 0
	t := &Trace{Name: c.name, Events: make([]Event, 0, len(c.pre)+len(c.events))}
	c.pos = make([]int, len(c.events)+1)
	for k, evs := range [][]Event{c.pre, c.events} {
		for i, e := range evs {
			if k == 1 {
				c.pos[i] = len(t.Events)
			}
			if e.Kind == Alloc {
				renum[e.ID] = next
				next++
			}
			if e.Kind == Sync || e.Kind == EmptyCache {
				t.Events = append(t.Events, e)
				continue
			}
			e.ID = renum[e.ID]
			if st, ok := c.recordAt[i]; ok && k == 1 {
				t.Events = append(t.Events, Event{Kind: Record, ID: e.ID, Stream: st})
			}
			t.Events = append(t.Events, e)
			if e.Kind == Free && c.recordAt != nil {
				t.Events = append(t.Events, Event{Kind: Sync, Stream: e.Stream})
			}
		}
	}
	c.pos[len(c.events)] = len(t.Events)
	if len(c.stacks) > 0 {
		t.Stacks = c.stacks
		t.StackOf = make([]int32, next)
		for i := range t.StackOf {
			t.StackOf[i] = -1
		}
		for old, k := range c.stackOf {
			if k >= 0 {
				t.StackOf[renum[old]] = k
			}
		}
	}
	for i := range c.cache {
		for j := range c.cache[i].Blocks {
			b := &c.cache[i].Blocks[j]
			b.ID = renum[b.ID]
		}
	}
	return t
}

// unpickle decodes data, turning a panic inside the decoder into an error.
// Python classes other than the decoder's few built-in ones become generic
// objects, so a snapshot field membench does not read may hold anything;
// a class the pickle calls cannot be rebuilt, and is named in the error.
func unpickle(data []byte) (obj any, err error) {
	defer func() {
		if r := recover(); r != nil {
			obj, err = nil, errors.New(plainPickleError(fmt.Sprint(r)))
		}
	}()
	u := pickle.NewUnpickler(bytes.NewReader(data))
	obj, err = u.Load()
	if err != nil {
		err = errors.New(plainPickleError(err.Error()))
	}
	return obj, err
}

var (
	// goClass is a Python class as the decoder prints it (%#v).
	goClass = regexp.MustCompile(`&types\.GenericClass\{Module:"([^"]*)", Name:"([^"]*)"\}`)
	// goValue is any other Go value the decoder prints, from the colon
	// before it to the end.
	goValue = regexp.MustCompile(`:? *(&?(\[\])?\*?[a-z]+\.[A-Z]\w*|\[\]interface \{\}|map\[[^\]]*\][^{]*)\{.*$`)
)

// plainPickleError words a decoder message without its Go values.
func plainPickleError(msg string) string {
	const only = "which a memory snapshot never holds (only dicts, lists, strings and numbers)"
	if m := goClass.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("it calls the Python class %s.%s, %s", Clip(m[1]), Clip(m[2]), only)
	}
	if strings.HasPrefix(msg, "BUILD requires a PyDictSettable instance") {
		return "it restores the state of a Python object, " + only
	}
	return goValue.ReplaceAllString(msg, "")
}

func dictGet(d *types.Dict, key string) (any, bool) {
	for _, e := range *d {
		if k, ok := e.Key.(string); ok && k == key {
			return e.Value, true
		}
	}
	return nil, false
}

func pyInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case *big.Int:
		if n.IsInt64() {
			return n.Int64(), true
		}
	}
	return 0, false
}

// aPyType is pyType with an article: "an int", "a str", "None".
func aPyType(v any) string {
	t := pyType(v)
	switch {
	case t == "None":
		return t
	case strings.ContainsRune("aeiouAEIOU", rune(t[0])):
		return "an " + t
	}
	return "a " + t
}

func pyType(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case *types.Dict:
		return "dict"
	case *types.List:
		return "list"
	case *types.Tuple:
		return "tuple"
	case string:
		return "str"
	case int, int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case []byte:
		return "bytes"
	case *types.Set, *types.FrozenSet:
		return "set"
	case *types.OrderedDict:
		return "collections.OrderedDict"
	case *types.ByteArray:
		return "bytearray"
	case *types.GenericObject:
		if v.Class != nil {
			return Clip(v.Class.Module + "." + v.Class.Name)
		}
	}
	return "Python object"
}
