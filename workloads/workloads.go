// Package workloads holds the problems membench runs on: usage records
// (the static view), alloc/free traces (the dynamic view), the conversions
// between them, the file readers and the registry of named workloads.
//
// # File formats
//
// Load sniffs a file's format (DESIGN §5); each has a reader and, except
// PyTorch snapshots, TFLite and ONNX models, a writer:
//
//   - TFLite records (ReadTFLite): header size,first_task,last_task, one
//     inclusive record per line; x,y[,z] or b,h,w,c in place of size for
//     textures and BHWC shapes, and a reallocation graph for byte sizes
//     (shapes.go, DESIGN §17).
//   - MiniMalloc (ReadMiniMalloc): header id,lower,upper,size, half-open
//     [lower, upper); legacy buffer,start,end,size with inclusive end. The
//     optional alignment, hint, gaps and offset columns carry the problem
//     forms in MiniMalloc's own syntax (ReadMiniMalloc).
//   - Trace (ReadTrace): a,ID,BYTES[,STREAM] / f,ID,[STREAM] / v,ID,OF /
//     r,ID,STREAM / s,STREAM / e lines, # comments (streams: DESIGN §11,
//     Trace.FreeCompletions).
//   - PyTorch snapshots (ReadPyTorch): the pickle of
//     torch.cuda.memory._dump_snapshot(), converted to a trace.
//   - membench JSON (ReadJSON), below.
//   - Chrome traces (ReadChromeTrace): torch.profiler's export_chrome_trace
//     JSON; its [memory] events on one device, as a trace.
//   - TFLite models (ReadTFLiteModel): a `.tflite` FlatBuffer (identifier
//     TFL3), read only; usage records as TFLite's interpreter plans them.
//   - ONNX models (ReadONNXModel): a `.onnx` protobuf ModelProto, sniffed
//     by its name or its content (it has no magic), read only; usage
//     records by the `.tflite` rules, weights and folded constants aside.
//
// The membench JSON schema, with inclusive lifetimes:
//
//	{
//	  "name": "resnet-50",        // optional, informational
//	  "provenance": {...},        // optional object, informational
//	  "alignment": 128,           // optional; offsets must be multiples of it
//	  "capacity": 1048576,        // optional memory budget
//	  "memories": [               // optional memory spaces
//	    {"name": "sram", "capacity": 262144},
//	    {"name": "dram"}
//	  ],
//	  "buffers": [                // required, in problem order
//	    {"id": 0, "size": 16, "first": 0, "last": 1},
//	    {"id": 1, "label": "b1", "size": 8, "first": 1, "last": 2},
//	    {"id": 2, "size": 64, "first": 0, "last": 9, "align": 64,
//	     "offset": 128, "hint": -1, "memory": "dram",
//	     "gaps": [{"first": 2, "last": 4}, {"first": 5, "last": 6, "window": [0, 32]}]}
//	  ],
//	  "persistent": [             // optional: kept outside the arena
//	    {"id": 3, "size": 40, "first": 0, "last": 2}
//	  ]
//	}
//
// In a buffer, size (bytes >= 0), first and last (tasks, first <= last) are
// required; id defaults to the buffer's index and must be unique; label
// keeps a non-numeric id (Problem.Labels). The problem forms (DESIGN §15)
// are optional per buffer: align (a positive alignment of its own, in
// place of the problem's), offset (a fixed offset; -1 or absent: plan
// it), hint (an offset to try first; -1 or absent: none), memory (the
// name of one of "memories"; absent: the first) and gaps (inclusive
// tasks inside the lifetime, in order and disjoint, each with an optional
// window [LO, HI): the bytes still in use then; no window: none).
// "memories" lists the memory spaces, each an arena of its own with an
// optional capacity; without it the problem has one. Persistent buffers
// (Problem.Persistent) take the same fields but a label and the forms.
// Unknown fields are errors.
//
// A writer refuses, naming them, the forms its format cannot hold:
// MiniMalloc CSV holds all but memory spaces, TFLite records and traces
// (Problem.ToTrace) none. Size types other than bytes and reallocation
// graphs are held by TFLite records only; membench JSON and MiniMalloc
// CSV refuse them, and traces take the byte view.
//
// Every reader reports malformed input as an *InputError naming the file,
// the line and what was expected; none panics.
//
// It imports nothing else of membench.
package workloads

import "strconv"

// Buffer is one usage record: a tensor of Size bytes live during the
// inclusive task interval [First, Last].
type Buffer struct {
	ID    int
	Size  int64
	First int
	Last  int
}

// Conflicts reports whether a and b are live at a common task and so must
// not share memory. A buffer last used at task t and one first produced at
// t conflict: outputs are written while inputs are still read.
func Conflicts(a, b Buffer) bool {
	return a.First <= b.Last && b.First <= a.Last
}

// Problem is an ordered list of buffers to place. Order matters only for
// tie-breaking, as in TFLite.
type Problem struct {
	// Name is the workload spec or file the problem came from.
	Name    string
	Buffers []Buffer
	// Alignment, when > 1, requires every offset to be a multiple of it.
	Alignment int64
	// Capacity, when > 0, is the memory budget the instance is posed with.
	Capacity int64
	// Labels, when set, holds each buffer's id as written in the input file,
	// parallel to Buffers: MiniMalloc ids need not be numbers, and writing
	// the problem back must reproduce them.
	Labels []string
	// Persistent holds the tensors the runtime keeps for the whole run
	// outside the arena it plans: a `.tflite` model's variable tensors,
	// which TFLite's interpreter (kTfLiteArenaRwPersistent) and TFLite
	// Micro (its persistent area) both allocate apart. No planner places
	// them; reports show their bytes apart (PersistentBytes). Each spans
	// the whole run.
	Persistent []Buffer
	// Format is the format of the file the problem was read from, where a
	// planner's defaults depend on it (FormatTFLiteModel: TFLite Micro's
	// planners then default to its 16-byte alignment); "" otherwise.
	Format string

	// The problem forms (forms.go, DESIGN §15), each nil when unused and
	// otherwise parallel to Buffers.

	// Aligns[i], when > 0, is buffer i's own alignment, in place of
	// Alignment.
	Aligns []int64
	// Gaps[i] are buffer i's gaps, in task order, disjoint.
	Gaps [][]Gap
	// Fixed[i] is buffer i's fixed offset, or NoOffset: plan it.
	Fixed []int64
	// Hints[i] is a suggested offset for buffer i, or NoOffset.
	Hints []int64
	// Spaces[i] is the index in Memories of buffer i's memory space.
	Spaces []int
	// Memories are the memory spaces; nil means one space of Capacity.
	Memories []Memory

	// Size types (shapes.go, DESIGN §17).

	// SizeType is what the records' sizes are: SizeBytes (the zero value)
	// or a texture extent or BHWC shape held in Shapes.
	SizeType SizeType
	// Shapes[i] is buffer i's extents when SizeType is not SizeBytes (nil
	// otherwise); Buffers[i].Size is then their product times
	// ElementSize, the byte view every byte planner plans.
	Shapes []Shape
	// ElementSize is the bytes of one element of Shapes (a texel, a
	// tensor element); >= 1 when Shapes is set.
	ElementSize int64
	// Reuse, when not nil, is TFLite's reallocation graph: Reuse[i] lists,
	// ascending, the buffers that may reuse buffer i's memory. Only
	// greedy-in-order on byte sizes reads it, as in TFLite; the other
	// planners ignore it.
	Reuse [][]int
}

// PersistentBytes returns the total size of the persistent tensors.
func (p *Problem) PersistentBytes() int64 {
	var n int64
	for _, b := range p.Persistent {
		n += b.Size
	}
	return n
}

// IDText returns buffer i's id as its input file wrote it: its label
// where the problem has labels, else its integer ID in decimal. Plan
// output names buffers by it, and plan readers match it.
func (p *Problem) IDText(i int) string {
	if len(p.Labels) == len(p.Buffers) {
		return p.Labels[i]
	}
	return strconv.Itoa(p.Buffers[i].ID)
}

// Len returns the number of buffers.
func (p *Problem) Len() int { return len(p.Buffers) }

// MaxTask returns the largest Last over all buffers, or -1 for none.
func (p *Problem) MaxTask() int {
	m := -1
	for _, b := range p.Buffers {
		if b.Last > m {
			m = b.Last
		}
	}
	return m
}

// LoadBound returns LB_load: the maximum over tasks of the total size of
// the buffers live at that task. No offset plan can use less memory.
// It runs in O(n log n) and needs no per-task array, so sparse task ids
// cost nothing. For a problem with gaps or several memory spaces it is
// the sum of SpaceLoads, which count gaps.
func (p *Problem) LoadBound() int64 {
	if p.Gaps == nil && p.Spaces == nil {
		return LoadBound(p.Buffers)
	}
	var sum int64
	for _, l := range p.SpaceLoads() {
		sum += l
	}
	return sum
}

// EventKind says what a trace event does.
type EventKind uint8

// The kinds of trace events.
const (
	// Alloc requests Size bytes for tensor ID.
	Alloc EventKind = iota
	// Free releases tensor ID.
	Free
	// View makes ID share the storage of Of; it allocates nothing.
	View
	// Record notes that Stream used tensor ID (PyTorch's record_stream,
	// OneFlow's cross-stream use): the free of its storage completes only
	// after Stream's next sync point.
	Record
	// Sync is a sync point of Stream: everything it queued so far has
	// finished. It has no ID.
	Sync
	// EmptyCache asks the allocator to give the memory it caches but has
	// not handed out back to the device (PyTorch's
	// torch.cuda.empty_cache()). It has no ID or stream; allocators
	// without such a call ignore it.
	EmptyCache
)

// String returns the event letter used in trace files.
func (k EventKind) String() string {
	switch k {
	case Alloc:
		return "a"
	case Free:
		return "f"
	case View:
		return "v"
	case Record:
		return "r"
	case Sync:
		return "s"
	case EmptyCache:
		return "e"
	}
	return "?"
}

// Event is one step of a trace.
type Event struct {
	Kind EventKind
	// Stream is the stream of an Alloc, Free, Record or Sync (0, the
	// default stream, when the trace names none). An Alloc's stream
	// produces the tensor; a Free's and a Record's use it (DESIGN §11).
	Stream int32
	ID     int
	// Size is the requested bytes of an Alloc.
	Size int64
	// Of is the tensor whose storage a View shares.
	Of int
}

// Trace is the dynamic view of a workload: the alloc/free requests an
// eager-mode runtime makes, in order.
type Trace struct {
	Name   string
	Events []Event
	// AllocatorSettings is the allocator configuration the trace was
	// recorded under, where the file says (a PyTorch snapshot's
	// PYTORCH_CUDA_ALLOC_CONF); "" when unknown or default.
	AllocatorSettings string
	// OOMs counts the out-of-memory events the recording holds (a PyTorch
	// snapshot's oom entries): requests that failed, so not in Events.
	OOMs int
	// Warnings says what the reader skipped, one message each, without the
	// file name (a PyTorch snapshot's entries with unknown actions).
	Warnings []string
	// Cache is the allocator's cache when the trace begins, where the
	// recording started mid-run (a PyTorch snapshot whose allocator held
	// segments before its first entry); nil for an empty cache. Each of
	// its allocated blocks is allocated by one of the trace's first
	// events, in the order of Cache. The trace text format does not keep
	// it.
	Cache []CacheSegment
	// Recording is what the recording says of the allocator's own device
	// memory, to calibrate a replay against; nil where it says nothing.
	Recording *Recording
	// Stacks are the distinct Python stacks the recording gives its
	// allocations (a PyTorch snapshot's frames, innermost first, at most
	// twelve named ones, one "function  file:line" a line), and StackOf[id] the index
	// in Stacks of tensor id's, or -1; both nil where it gives none. The
	// trace text format does not keep them.
	Stacks  []string
	StackOf []int32
}

// CacheSegment is a segment an allocator holds: Size bytes reserved for
// Stream's small pool (PyTorch's 2 MiB segments for requests up to
// 1 MiB) or large pool, holding Blocks; the rest of it is free.
type CacheSegment struct {
	Size   int64
	Stream int32
	Small  bool
	// Blocks are the allocated blocks, by offset.
	Blocks []CacheBlock
}

// CacheBlock is an allocated block of a CacheSegment: Size bytes from
// Offset (from the segment's start), holding tensor ID.
type CacheBlock struct {
	Offset, Size int64
	ID           int
}

// SegmentEvent is one change of the device memory an allocator holds: a
// segment allocated (or an expandable segment's pages mapped), or, with
// Free, given back (unmapped).
type SegmentEvent struct {
	Free bool  `json:"free"`
	Size int64 `json:"size"`
	// Event is the index in Trace.Events of the event that made it, or
	// for a recorded one, of the first event after it (len(Events) at the
	// end).
	Event int `json:"event"`
	// Entry is a recorded one's index in the recording (a snapshot's
	// device trace).
	Entry int `json:"entry"`
}

// Recording is what a recorded trace says of the allocator's own memory.
type Recording struct {
	// Reserved is the bytes reserved when the trace begins (the segments
	// of Cache); PeakReserved the most at once over the trace.
	Reserved, PeakReserved int64
	// Segments are the allocator's segment allocations and frees, in order.
	Segments []SegmentEvent
	// EmptyCaches counts the EmptyCache events the recording's segment
	// frees became.
	EmptyCaches int
}
