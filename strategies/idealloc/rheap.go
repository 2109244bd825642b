package idealloc

import "math/bits"

// rheap is Rust's std::collections::BinaryHeap (a max-heap), move for
// move: idealloc pops jobs, events and strip members from such heaps,
// and which of two equal elements comes out first is decided by the
// heap's own sift rules (sift_up, sift_down_range, sift_down_to_bottom,
// rebuild and append's rebuild_tail), so they are kept here as Rust's
// alloc/collections/binary_heap has them. cmp is the element's Ord.
type rheap[T any] struct {
	data []T
	cmp  func(a, b T) int
}

func newHeap[T any](cmp func(a, b T) int) *rheap[T] { return &rheap[T]{cmp: cmp} }

// heapFrom is BinaryHeap::from(vec) (and collect): the vector, rebuilt.
func heapFrom[T any](data []T, cmp func(a, b T) int) *rheap[T] {
	h := &rheap[T]{data: data, cmp: cmp}
	h.rebuild()
	return h
}

func (h *rheap[T]) len() int { return len(h.data) }

func (h *rheap[T]) push(x T) {
	h.data = append(h.data, x)
	h.siftUp(0, len(h.data)-1)
}

func (h *rheap[T]) pop() (T, bool) {
	var item T
	n := len(h.data)
	if n == 0 {
		return item, false
	}
	item = h.data[n-1]
	h.data = h.data[:n-1]
	if len(h.data) > 0 {
		item, h.data[0] = h.data[0], item
		h.siftDownToBottom(0)
	}
	return item, true
}

func (h *rheap[T]) siftUp(start, pos int) int {
	elem := h.data[pos]
	for pos > start {
		parent := (pos - 1) / 2
		if h.cmp(elem, h.data[parent]) <= 0 {
			break
		}
		h.data[pos] = h.data[parent]
		pos = parent
	}
	h.data[pos] = elem
	return pos
}

func (h *rheap[T]) siftDownRange(pos, end int) {
	elem := h.data[pos]
	child := 2*pos + 1
	for child <= end-2 {
		if h.cmp(h.data[child], h.data[child+1]) <= 0 {
			child++
		}
		if h.cmp(elem, h.data[child]) >= 0 {
			h.data[pos] = elem
			return
		}
		h.data[pos] = h.data[child]
		pos = child
		child = 2*pos + 1
	}
	if child == end-1 && h.cmp(elem, h.data[child]) < 0 {
		h.data[pos] = h.data[child]
		pos = child
	}
	h.data[pos] = elem
}

func (h *rheap[T]) siftDownToBottom(pos int) {
	end, start := len(h.data), pos
	elem := h.data[pos]
	child := 2*pos + 1
	for child <= end-2 {
		if h.cmp(h.data[child], h.data[child+1]) <= 0 {
			child++
		}
		h.data[pos] = h.data[child]
		pos = child
		child = 2*pos + 1
	}
	if child == end-1 {
		h.data[pos] = h.data[child]
		pos = child
	}
	h.data[pos] = elem
	h.siftUp(start, pos)
}

func (h *rheap[T]) rebuild() {
	for n := len(h.data) / 2; n > 0; {
		n--
		h.siftDownRange(n, len(h.data))
	}
}

// appendHeap is BinaryHeap::append: other's elements join h (the larger
// of the two keeps its layout) and other is left empty.
func (h *rheap[T]) appendHeap(other *rheap[T]) {
	if len(h.data) < len(other.data) {
		h.data, other.data = other.data, h.data
	}
	start := len(h.data)
	h.data = append(h.data, other.data...)
	other.data = nil
	if start == len(h.data) {
		return
	}
	tail := len(h.data) - start
	var rebuild bool
	switch {
	case start < tail:
		rebuild = true
	case len(h.data) <= 2048:
		rebuild = 2*len(h.data) < tail*(bits.Len(uint(start))-1)
	default:
		rebuild = 2*len(h.data) < tail*11
	}
	if rebuild {
		h.rebuild()
		return
	}
	for i := start; i < len(h.data); i++ {
		h.siftUp(0, i)
	}
}
