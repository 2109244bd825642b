package strategies

import (
	"context"
	"slices"

	"membench/workloads"
)

func init() {
	Register(Info{
		Name:    "equality",
		Runtime: "tflite-gpu",
		Kind:    Objects,
		Doc:     "TFLite EQUALITY: reuse the most recently released object of exactly the tensor's size, else a new object",
		// Textures compare extents (EqualityAssignment), BHWC shapes hash
		// them (equality_shapes.go).
		SizeTypes: []workloads.SizeType{workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC},
		New:       Simple(func() Strategy { return equality{} }),
	})
}

// equality is TFLite's EqualityAssignmentWithHash. Released objects are
// stacked per size in release order and reuse takes the top of the stack.
type equality struct{}

func (equality) Name() string { return "equality" }

func (equality) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	if p.SizeType != workloads.SizeBytes {
		return equalityShapes(ctx, p)
	}
	return planSortedObjects(ctx, "equality", p, equalityAssign)
}

func equalityAssign(ctx context.Context, bufs []workloads.Buffer) ([]int, []int64, error) {
	n := len(bufs)
	ids := make([]int, n)
	// The per-size stacks of free objects are singly linked lists through
	// objs (indexed by object id), headed in a hash table slot per size.
	pool := newSizeTable(n)
	objs := make([]equalityObject, 0, n)
	queue := newObjectQueue(bufs)
	for i, b := range bufs {
		// TFLite's queue releases by last task, ties by object id; the
		// order decides which object each stack offers first.
		batch, err := queue.inOrder(ctx, i, bufs, ids)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range batch {
			o := &objs[r.id]
			o.next = pool.slots[o.slot].head
			pool.slots[o.slot].head = r.id
		}
		slot := pool.find(b.Size)
		id := pool.slots[slot].head
		if id >= 0 {
			pool.slots[slot].head = objs[id].next
		} else {
			id = int32(len(objs))
			objs = append(objs, equalityObject{next: -1, slot: slot})
		}
		ids[i] = int(id)
	}
	// An object's size is its slot's key: the size of every tensor in it.
	sizes := make([]int64, len(objs))
	for k, o := range objs {
		sizes[k] = pool.slots[o.slot].key
	}
	return ids, sizes, nil
}

// equalityObject is an object's link in its size's stack of free objects
// and the table slot of its size.
type equalityObject struct {
	next, slot int32
}

// sizeTable is an open-addressing hash table from a size to the head of
// its stack of free objects (-1: empty stack). It never grows: it is
// made with room for every record's size.
type sizeTable struct {
	slots []sizeSlot
	mask  uint64
	shift uint
}

// sizeSlot keeps key and head together: one cache line per lookup.
type sizeSlot struct {
	key  int64
	head int32
	used bool
}

func newSizeTable(n int) *sizeTable {
	bits := uint(3)
	for 1<<bits < n+n/2 { // load <= 2/3: short probes, small table
		bits++
	}
	return &sizeTable{slots: make([]sizeSlot, 1<<bits), mask: 1<<bits - 1, shift: 64 - bits}
}

// find returns the slot of size, claiming an empty one (with an empty
// stack) if size is new.
func (t *sizeTable) find(size int64) int32 {
	// Fibonacci hashing: the top bits of the product mix all of size's.
	h := (uint64(size) * 0x9e3779b97f4a7c15) >> t.shift
	for {
		sl := &t.slots[h]
		if !sl.used {
			*sl = sizeSlot{key: size, head: -1, used: true}
			return int32(h)
		}
		if sl.key == size {
			return int32(h)
		}
		h = (h + 1) & t.mask
	}
}

// releasedObject is an object leaving TFLite's queue of objects in use.
type releasedObject struct {
	last int
	id   int32
}

func (a releasedObject) less(b releasedObject) bool {
	return a.last < b.last || a.last == b.last && a.id < b.id
}

// sortReleased puts a batch in the queue's order: by last task, then id.
// Batches are mostly tiny, so insertion sort, unless one is large.
func sortReleased(batch []releasedObject) {
	if len(batch) > 16 {
		slices.SortFunc(batch, func(a, b releasedObject) int {
			if a.less(b) {
				return -1
			}
			return 1 // ids are unique, so never equal
		})
		return
	}
	for k := 1; k < len(batch); k++ {
		for j := k; j > 0 && batch[j].less(batch[j-1]); j-- {
			batch[j], batch[j-1] = batch[j-1], batch[j]
		}
	}
}
