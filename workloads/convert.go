package workloads

import (
	"cmp"
	"fmt"
	"slices"
)

// ToTrace turns the problem into a trace (DESIGN §1): walking tasks in
// order, first allocate every buffer with First == t, then free every buffer
// with Last == t, each group in ID order (ties in file order). It sorts
// twice and merges, so it costs O(n log n) however sparse the task ids are.
//
// A trace holds sizes and lifetimes only (the problem's alignment is the
// allocator's business, as before): a problem with any form (DESIGN §15)
// is refused with a UsageError naming them, since a replay of it would
// not be the same workload.
func (p *Problem) ToTrace() (*Trace, error) {
	if err := refuseForms("a trace", p.Forms()); err != nil {
		return nil, err
	}
	type key struct {
		task, id int
		idx      int32
	}
	byKey := func(a, b key) int {
		if a.task != b.task {
			return cmp.Compare(a.task, b.task)
		}
		if a.id != b.id {
			return cmp.Compare(a.id, b.id)
		}
		return cmp.Compare(a.idx, b.idx)
	}
	n := len(p.Buffers)
	allocs := make([]key, n)
	frees := make([]key, n)
	for i, b := range p.Buffers {
		allocs[i] = key{b.First, b.ID, int32(i)}
		frees[i] = key{b.Last, b.ID, int32(i)}
	}
	slices.SortFunc(allocs, byKey)
	slices.SortFunc(frees, byKey)
	t := &Trace{Name: p.Name, Events: make([]Event, 0, 2*n)}
	i, j := 0, 0
	for i < n || j < n {
		task := 0
		if i < n && (j == n || allocs[i].task <= frees[j].task) {
			task = allocs[i].task
		} else {
			task = frees[j].task
		}
		for ; i < n && allocs[i].task == task; i++ {
			t.Events = append(t.Events, Event{Kind: Alloc, ID: allocs[i].id, Size: p.Buffers[allocs[i].idx].Size})
		}
		for ; j < n && frees[j].task == task; j++ {
			t.Events = append(t.Events, Event{Kind: Free, ID: frees[j].id})
		}
	}
	return t, nil
}

// ToProblem turns the trace into a problem by numbering events (task =
// event index). Each allocation is one buffer, with the allocating id as its
// ID, in allocation order. Views share their storage's buffer, which lives
// until the last tensor sharing it is freed (reference counting), so
// planners see one buffer with the union lifetime. A buffer lives until
// its free completes (DESIGN §11, FreeCompletions with no delay): at the
// free itself in a trace without sync points, else at the sync that
// completes it. Storage never freed, or whose free never completes, lives
// to the last event. A trace that reuses an id, frees, views or records an
// id it never allocated, or frees an id twice is an error.
func (t *Trace) ToProblem() (*Problem, error) {
	p, _, err := traceProblem(t, nil, 0)
	return p, err
}

// The values of FreeCompletions besides event indices.
const (
	// NoFree marks an event that requests no free.
	NoFree = -1
	// NeverCompletes marks a free request no later event completes.
	NeverCompletes = -2
)

// FreeCompletions says when each free completes (DESIGN §11). The event
// that frees a storage's last tensor requests the storage's free; the
// streams that used the storage are those of its allocation and of every
// free and record of its tensors. In a trace with sync points the free
// completes at the first event by which every one of those streams has had
// a sync point after the request; in a trace without any it completes
// delay events after the request (delay 0: at the request itself). The
// result holds, per event, the index of the event at which the free it
// requests completes, NeverCompletes when none does (the trace ends
// first), and NoFree for events that request no free (the frees of
// tensors whose storage other tensors still share among them). A negative
// delay, or a delay for a trace with sync points, is a UsageError.
func (t *Trace) FreeCompletions(delay int) ([]int32, error) {
	_, c, err := traceProblem(t, nil, delay)
	return c, err
}

// traceProblem is ToProblem and FreeCompletions; lines, when given, holds
// each event's line in the file so that errors point at it.
func traceProblem(t *Trace, lines []int32, delay int) (*Problem, []int32, error) {
	sp, err := NewSyncPoints(t, delay)
	if err != nil {
		return nil, nil, err
	}
	c := &traceCheck{t: t, lines: lines, p: &Problem{Name: t.Name}, ids: newIDTable(len(t.Events))}
	for i, e := range t.Events {
		if err := c.event(i, e); err != nil {
			return nil, nil, err
		}
	}
	return c.p, c.completions(sp), nil
}

// traceCheck is the state of traceProblem: the problem so far, and the
// tensors and storage buffers of the events read.
type traceCheck struct {
	t     *Trace
	lines []int32 // each event's line, or nil
	p     *Problem
	ids   *idTable // id -> index in tensors

	tensors []traceTensor
	refs    []int32 // per buffer: tensors still holding it
	// Per buffer, the streams other than its allocation's that used it;
	// nil for the usual one-stream storage.
	users    [][]int32
	requests []int32 // buffers whose free was requested, in order
}

// traceTensor is a tensor of a trace: an allocation or a view.
type traceTensor struct {
	buf   int32 // index of the storage's buffer
	def   int32 // event that allocated or viewed it
	freed int32 // event that freed it, or -1
}

// at names event i for an error: by its line, else by its index.
func (c *traceCheck) at(i int32) string {
	if c.lines != nil {
		return fmt.Sprintf("line %d", c.lines[i])
	}
	return fmt.Sprintf("event %d", i)
}

func (c *traceCheck) fail(i int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if c.lines != nil {
		return &InputError{File: c.t.Name, Line: int(c.lines[i]), Msg: msg}
	}
	return &InputError{File: c.t.Name, Msg: fmt.Sprintf("event %d: %s", i, msg)}
}

// use records that stream s used buffer b.
func (c *traceCheck) use(b int32, s int32) {
	if s == c.t.Events[c.p.Buffers[b].First].Stream || slices.Contains(c.users[b], s) {
		return
	}
	c.users[b] = append(c.users[b], s)
}

// live returns the index of the live tensor id names at event i.
func (c *traceCheck) live(i int, what string, id int) (int32, error) {
	k, ok := c.ids.get(id)
	switch {
	case !ok:
		return 0, c.fail(i, "%s of id %d, which was never allocated", what, id)
	case c.tensors[k].freed >= 0:
		if what == "free" {
			return 0, c.fail(i, "id %d is freed twice (first on %s)", id, c.at(c.tensors[k].freed))
		}
		return 0, c.fail(i, "%s of id %d, which was freed on %s", what, id, c.at(c.tensors[k].freed))
	}
	return k, nil
}

// event checks event i, e, and adds it to the problem.
func (c *traceCheck) event(i int, e Event) error {
	switch e.Kind {
	case Alloc, View:
		return c.define(i, e)
	case Free:
		k, err := c.live(i, "free", e.ID)
		if err != nil {
			return err
		}
		c.tensors[k].freed = int32(i)
		b := c.tensors[k].buf
		c.use(b, e.Stream)
		if c.refs[b]--; c.refs[b] == 0 {
			c.p.Buffers[b].Last = i
			c.requests = append(c.requests, b)
		}
	case Record:
		k, err := c.live(i, "record", e.ID)
		if err != nil {
			return err
		}
		c.use(c.tensors[k].buf, e.Stream)
	case Sync, EmptyCache:
	default:
		return c.fail(i, "unknown event kind %d", e.Kind)
	}
	return nil
}

// define adds the tensor that event i, an alloc or a view, defines: an
// alloc's has a buffer of its own, a view's shares its storage's.
func (c *traceCheck) define(i int, e Event) error {
	if k, used := c.ids.get(e.ID); used {
		return c.fail(i, "id %d is already used on %s; each id names one tensor", e.ID, c.at(c.tensors[k].def))
	}
	var buf int32
	if e.Kind == Alloc {
		if e.Size < 0 {
			return c.fail(i, "alloc of id %d: negative size %d", e.ID, e.Size)
		}
		buf = int32(len(c.p.Buffers))
		c.p.Buffers = append(c.p.Buffers, Buffer{ID: e.ID, Size: e.Size, First: i, Last: -1})
		c.refs = append(c.refs, 1)
		c.users = append(c.users, nil)
	} else {
		k, err := c.live(i, "view", e.Of)
		if err != nil {
			return err
		}
		buf = c.tensors[k].buf
		c.refs[buf]++
	}
	c.ids.set(e.ID, int32(len(c.tensors)))
	c.tensors = append(c.tensors, traceTensor{buf: buf, def: int32(i), freed: -1})
	return nil
}

// completions ends each buffer's lifetime where its free completes, and
// returns, per event, the event at which the free it requests completes
// (see FreeCompletions).
func (c *traceCheck) completions(sp *SyncPoints) []int32 {
	t, p := c.t, c.p
	comp := make([]int32, len(t.Events))
	for i := range comp {
		comp[i] = NoFree
	}
	for _, b := range c.requests {
		buf := &p.Buffers[b]
		req := int32(buf.Last)
		cm := sp.Completion(req, t.Events[buf.First].Stream, c.users[b])
		comp[req] = cm
		buf.Last = int(cm) // NeverCompletes (< 0): to the end, below
	}
	for i := range p.Buffers {
		if p.Buffers[i].Last < 0 {
			p.Buffers[i].Last = len(t.Events) - 1
		}
	}
	return comp
}

// checkProblem rejects problems no reader would produce: negative sizes,
// lifetimes ending before they start or outside [0, MaxTask].
func checkProblem(p *Problem) error {
	if err := CheckForms(p); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	for i, b := range p.Buffers {
		switch {
		case b.Size < 0:
			return fmt.Errorf("%s: buffer %d (id %d) has negative size %d", p.Name, i, b.ID, b.Size)
		case b.First < 0 || b.Last > MaxTask:
			return fmt.Errorf("%s: buffer %d (id %d) has lifetime [%d, %d] outside [0, %d]", p.Name, i, b.ID, b.First, b.Last, MaxTask)
		case b.Last < b.First:
			return fmt.Errorf("%s: buffer %d (id %d) ends at task %d before it starts at %d", p.Name, i, b.ID, b.Last, b.First)
		}
	}
	if p.Labels != nil && len(p.Labels) != len(p.Buffers) {
		return fmt.Errorf("%s: %d labels for %d buffers", p.Name, len(p.Labels), len(p.Buffers))
	}
	return nil
}

// idTable maps tensor ids to indices: a slice for small non-negative ids
// (the usual, dense case), a map for the rest.
type idTable struct {
	dense  []int32 // index+1, 0 for none
	sparse map[int]int32
}

func newIDTable(n int) *idTable {
	return &idTable{dense: make([]int32, 2*n+1024), sparse: map[int]int32{}}
}

func (t *idTable) get(id int) (int32, bool) {
	if id >= 0 && id < len(t.dense) {
		v := t.dense[id]
		return v - 1, v > 0
	}
	v, ok := t.sparse[id]
	return v, ok
}

func (t *idTable) set(id int, v int32) {
	if id >= 0 && id < len(t.dense) {
		t.dense[id] = v + 1
		return
	}
	t.sparse[id] = v
}

// SyncPoints finds when frees complete (DESIGN §11): the sync points of a
// trace by stream, or the fixed delay of a trace without any.
type SyncPoints struct {
	byStream map[int32][]int32 // stream -> its sync events, ascending
	delay, n int
}

// NewSyncPoints indexes t's sync points. delay is the completion delay in
// events of a trace without sync points; a negative one, or one for a
// trace with sync points, is a UsageError.
func NewSyncPoints(t *Trace, delay int) (*SyncPoints, error) {
	if delay < 0 {
		return nil, Usagef("free delay %d: want >= 0 events", delay)
	}
	sp := &SyncPoints{delay: delay, n: len(t.Events)}
	for i, e := range t.Events {
		if e.Kind == Sync {
			if sp.byStream == nil {
				sp.byStream = map[int32][]int32{}
			}
			sp.byStream[e.Stream] = append(sp.byStream[e.Stream], int32(i))
		}
	}
	if sp.byStream != nil && delay > 0 {
		return nil, Usagef("%s: a free delay (%d events) is for traces without sync points, and this one has them", t.Name, delay)
	}
	return sp, nil
}

// HasSyncs reports whether the trace has sync points.
func (sp *SyncPoints) HasSyncs() bool { return sp.byStream != nil }

// Completion returns the event at which a free requested at event req
// completes, or NeverCompletes. producer and users are the streams that
// used the storage (users may repeat producer). With sync points it is the
// first event by which each of them has had a sync after req; without,
// req plus the delay.
func (sp *SyncPoints) Completion(req, producer int32, users []int32) int32 {
	if sp.byStream == nil {
		if sp.delay < sp.n-int(req) {
			return req + int32(sp.delay)
		}
		return NeverCompletes
	}
	c := sp.after(producer, req)
	for _, s := range users {
		d := sp.after(s, req)
		if c < 0 || d < 0 {
			return NeverCompletes
		}
		c = max(c, d)
	}
	if c < 0 {
		return NeverCompletes
	}
	return c
}

// after returns the first sync of stream s after event i, or -1.
func (sp *SyncPoints) after(s, i int32) int32 {
	l := sp.byStream[s]
	k, _ := slices.BinarySearch(l, i+1)
	if k == len(l) {
		return -1
	}
	return l[k]
}
