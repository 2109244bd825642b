// Package results holds the result records of a sweep, their JSONL store,
// aggregation, the Go benchmark-format export, comparisons and tables.
package results

import "fmt"

// Kinds of subjects.
const (
	KindStrategy  = "strategy"
	KindAllocator = "allocator"
)

// Statuses of a cell.
const (
	StatusOK      = "ok"
	StatusInvalid = "invalid"
	StatusError   = "error"
	StatusTimeout = "timeout"
	StatusOOM     = "oom"
	// StatusUnsupported: the strategy refuses the workload's problem form
	// or size type by design (strategies.ErrUnsupportedForm,
	// ErrUnsupportedSizeType: e.g. greedy-by-size on 2D textures, as
	// TFLite refuses it). Not a failure: the sweep still succeeds.
	StatusUnsupported = "unsupported"
)

// Failed reports whether the cell failed: any status but ok and
// unsupported.
func (r *Record) Failed() bool { return r.Status != StatusOK && r.Status != StatusUnsupported }

// Record is the outcome of one cell: (workload, subject, repeat).
type Record struct {
	// Workload is the workload spec as given.
	Workload string `json:"workload"`
	// N is the number of buffers of the workload's problem.
	N int `json:"n"`
	// Hash is the content hash of the workload's problem.
	Hash string `json:"hash"`
	// Subject is the strategy or allocator spec as given.
	Subject string `json:"subject"`
	// Kind is KindStrategy or KindAllocator.
	Kind   string `json:"kind"`
	Repeat int    `json:"repeat"`
	Status string `json:"status"`

	// Footprint is the plan's footprint, or the allocator's peak reserved
	// bytes.
	Footprint int64 `json:"footprint"`
	// Arena is the arena the strategy's runtime itself would ask for
	// where it differs from Footprint (sizes rounded before planning:
	// TFLite Micro, ONNX Runtime, ExecuTorch, MegEngine); 0, and absent,
	// otherwise and in records written before it existed.
	Arena int64 `json:"arena,omitempty"`
	// Persistent is the bytes the workload keeps outside the planned
	// arena (a `.tflite` model's variable tensors), not in Footprint nor
	// Arena; absent when none.
	Persistent int64 `json:"persistent,omitempty"`
	LBLoad     int64 `json:"lb_load"`
	LBObjects  int64 `json:"lb_objects"`
	// Ratio is Footprint / LBLoad (0 where LBLoad is 0).
	Ratio float64 `json:"ratio"`
	// RatioObjects is Footprint / LBObjects (0 where LBObjects is 0).
	RatioObjects float64 `json:"ratio_objects"`
	// Objects is the number of shared objects of an object plan.
	Objects int `json:"objects,omitempty"`
	// Bound is the lower bound on the footprint the subject proved (DESIGN
	// §10); 0 when it proved none.
	Bound int64 `json:"bound,omitempty"`
	// Optimal reports that the subject proved its footprint optimal.
	Optimal bool `json:"optimal,omitempty"`
	// Spaces holds each memory space's footprint, LB_load and capacity
	// for a problem with several (DESIGN §15), whose Footprint and LBLoad
	// are their sums; absent otherwise.
	Spaces []SpaceStat `json:"spaces,omitempty"`
	// Nodes is the number of search nodes the strategy visited, where it
	// says (Plan.Nodes); absent otherwise.
	Nodes int64 `json:"nodes,omitempty"`

	// Alloc holds an allocator replay's statistics.
	Alloc *AllocStats `json:"alloc,omitempty"`

	// Iters is the number of timed iterations behind each sample.
	Iters int `json:"iters"`
	// TimesNs are wall-time samples in ns per iteration (per planning call,
	// or per trace event for allocators).
	TimesNs []float64 `json:"times_ns"`

	Error string `json:"error,omitempty"`
}

// SpaceStat is one memory space of a plan: its name, footprint, LB_load
// and capacity (0, and absent, for none).
type SpaceStat struct {
	Name      string `json:"name"`
	Footprint int64  `json:"footprint"`
	LBLoad    int64  `json:"lb_load"`
	Capacity  int64  `json:"capacity,omitempty"`
}

// AllocStats are the statistics of one allocator replay (DESIGN §1).
type AllocStats struct {
	PeakInUse        int64 `json:"peak_in_use"`
	PeakAllocated    int64 `json:"peak_allocated"`
	PeakReserved     int64 `json:"peak_reserved"`
	LargestFreeChunk int64 `json:"largest_free_chunk"`
	// Fragmentation is PeakReserved / PeakInUse.
	Fragmentation float64 `json:"fragmentation"`
	// BFCFragmentation is BFC's metric at the end of the trace; nil where
	// undefined (no free pool).
	BFCFragmentation *float64 `json:"bfc_fragmentation"`
	// BFCFragmentationMax is the largest value of BFC's metric over time.
	BFCFragmentationMax float64 `json:"bfc_fragmentation_max"`
	OOMs                int64   `json:"ooms"`
	// Peak is where reserved memory went when it first reached its peak,
	// FirstOOM the same at the first failed request (issue 11; absent in
	// records written before, FirstOOM absent without an OOM).
	Peak     *MemBreakdown `json:"peak,omitempty"`
	FirstOOM *MemBreakdown `json:"first_oom,omitempty"`
}

// MemBreakdown is where an allocator's reserved bytes were at one moment:
// Reserved = Requested + Internal (rounding) + External (free), of which
// LargestFree is the largest free block; Pools splits Reserved over the
// allocator's pools or bins.
type MemBreakdown struct {
	// Event is the trace event, counted from 1.
	Event       int   `json:"event"`
	Reserved    int64 `json:"reserved"`
	Requested   int64 `json:"requested"`
	Internal    int64 `json:"internal"`
	External    int64 `json:"external"`
	LargestFree int64 `json:"largest_free"`
	// Size and Stream are the failed request's, for an OOM.
	Size   int64      `json:"size,omitempty"`
	Stream int        `json:"stream,omitempty"`
	Pools  []PoolStat `json:"pools,omitempty"`
}

// PoolStat is the memory of one pool or bin.
type PoolStat struct {
	Name      string `json:"name"`
	Reserved  int64  `json:"reserved"`
	Allocated int64  `json:"allocated"`
}

// Key identifies a cell.
type Key struct {
	Workload, Subject string
	Repeat            int
}

// Key returns the record's cell key.
func (r *Record) Key() Key { return Key{r.Workload, r.Subject, r.Repeat} }

func (k Key) String() string {
	return fmt.Sprintf("%s × %s #%d", k.Workload, k.Subject, k.Repeat)
}
