package workloads

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// Size types (DESIGN §17): TFLite's GPU delegate plans records whose size
// is a byte count (size_t), a 2D or 3D texture extent (uint2, uint3: x, y
// and z in texels) or a BHWC tensor shape. A problem of another size type
// than bytes holds each record's extents in Problem.Shapes and its byte
// view in Buffers (the product of the extents times Problem.ElementSize),
// so every byte planner, bound and allocator still reads it; the planners
// that know the size type read the extents.

// SizeType is what a problem's record sizes are.
type SizeType uint8

// The size types, after TFLite's TensorUsageRecord<TensorSizeT>.
const (
	// SizeBytes: a byte count (size_t); Problem.Shapes is nil.
	SizeBytes SizeType = iota
	// SizeTexture2D: a 2D texture of x by y elements (uint2).
	SizeTexture2D
	// SizeTexture3D: a 3D texture of x by y by z elements (uint3).
	SizeTexture3D
	// SizeBHWC: a tensor shape batch, height, width, channels (BHWC).
	SizeBHWC
)

// sizeTypes describes each SizeType: its name, its columns in the TFLite
// records format and the largest extent (uint32 for textures, int32 for
// BHWC, as TFLite's types hold them).
var sizeTypes = [...]struct {
	name    string
	columns []string
	max     int64
}{
	SizeBytes:     {"bytes", []string{"size"}, math.MaxInt64},
	SizeTexture2D: {"2d", []string{"x", "y"}, math.MaxUint32},
	SizeTexture3D: {"3d", []string{"x", "y", "z"}, math.MaxUint32},
	SizeBHWC:      {"bhwc", []string{"b", "h", "w", "c"}, math.MaxInt32},
}

// SizeTypes lists every size type, bytes first.
var SizeTypes = []SizeType{SizeBytes, SizeTexture2D, SizeTexture3D, SizeBHWC}

// String returns the size type's name: bytes, 2d, 3d or bhwc.
func (t SizeType) String() string {
	if int(t) < len(sizeTypes) {
		return sizeTypes[t].name
	}
	return "sizetype(" + strconv.Itoa(int(t)) + ")"
}

// Dims returns the number of extents of a record of size type t (1 for
// bytes).
func (t SizeType) Dims() int { return len(sizeTypes[t].columns) }

// Columns returns the names of t's size columns in the TFLite records
// format (DESIGN §17).
func (t SizeType) Columns() []string { return sizeTypes[t].columns }

// MaxExtent returns the largest extent TFLite's type for t holds.
func (t SizeType) MaxExtent() int64 { return sizeTypes[t].max }

// Shape holds a record's extents in the order of SizeType.Columns: x, y[,
// z] for a texture, b, h, w, c for BHWC. Unused entries are 0.
type Shape [4]int64

// Elements returns the product of s's first dims extents, and false if it
// overflows int64. A zero extent makes it 0 whatever the others are (a
// 2^32-1 x 2^32-1 x 0 texture is empty, not too large).
func (s Shape) Elements(dims int) (int64, bool) {
	if slices.Contains(s[:dims], 0) {
		return 0, true
	}
	n := int64(1)
	for _, e := range s[:dims] {
		hi, lo := bits.Mul64(uint64(n), uint64(e))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = int64(lo)
	}
	return n, true
}

// Format writes s as its dims extents joined by "x": "2x8", "1x1x2x8".
func (s Shape) Format(dims int) string {
	var b strings.Builder
	for d, e := range s[:dims] {
		if d > 0 {
			b.WriteByte('x')
		}
		b.WriteString(strconv.FormatInt(e, 10))
	}
	return b.String()
}

// Covers reports whether an object of shape obj holds a tensor of shape
// t in every one of the dims dimensions (TFLite's IsCoveringObject).
func (obj Shape) Covers(t Shape, dims int) bool {
	for d := range dims {
		if obj[d] < t[d] {
			return false
		}
	}
	return true
}

// ShapeBytes returns the bytes of a record or object of shape s in p: its
// elements times p.ElementSize, and false if that overflows int64.
func (p *Problem) ShapeBytes(s Shape) (int64, bool) {
	n, ok := s.Elements(p.SizeType.Dims())
	if !ok {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(n), uint64(p.ElementSize))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// CheckShapes reports what is wrong with p's size type, shapes and
// reallocation graph, or nil: Shapes must be nil for bytes and otherwise
// hold one shape per buffer, each extent within the size type's range,
// ElementSize must be positive, each buffer's Size must be its shape's
// bytes, and Reuse, when set, must hold one ascending list of buffer
// indexes per buffer.
func CheckShapes(p *Problem) error {
	if p.Reuse != nil {
		if len(p.Reuse) != len(p.Buffers) {
			return fmt.Errorf("%d reallocation lists for %d buffers", len(p.Reuse), len(p.Buffers))
		}
		for i, l := range p.Reuse {
			for k, j := range l {
				if j < 0 || j >= len(p.Buffers) || k > 0 && j < l[k-1] {
					return fmt.Errorf("buffer %d: reallocation list %v: want ascending buffer indexes in [0, %d)", i, l, len(p.Buffers))
				}
			}
		}
	}
	if int(p.SizeType) >= len(sizeTypes) {
		return fmt.Errorf("unknown size type %d", p.SizeType)
	}
	if p.SizeType == SizeBytes {
		if p.Shapes != nil {
			return fmt.Errorf("%d shapes for a problem of byte sizes", len(p.Shapes))
		}
		return nil
	}
	if len(p.Shapes) != len(p.Buffers) {
		return fmt.Errorf("%d shapes for %d buffers", len(p.Shapes), len(p.Buffers))
	}
	if p.ElementSize < 1 {
		return fmt.Errorf("element size %d, want >= 1", p.ElementSize)
	}
	dims, top := p.SizeType.Dims(), p.SizeType.MaxExtent()
	for i, s := range p.Shapes {
		for d, e := range s {
			if d < dims && (e < 0 || e > top) || d >= dims && e != 0 {
				return fmt.Errorf("buffer %d: shape %v is not %d extents in [0, %d]", i, s, dims, top)
			}
		}
		n, ok := p.ShapeBytes(s)
		if !ok {
			return fmt.Errorf("buffer %d: shape %s of %d-byte elements overflows int64 bytes", i, s.Format(dims), p.ElementSize)
		}
		if n != p.Buffers[i].Size {
			return fmt.Errorf("buffer %d: size %d, want its shape %s of %d-byte elements: %d", i, p.Buffers[i].Size, s.Format(dims), p.ElementSize, n)
		}
	}
	return nil
}

// refuseShapes is the error of a writer or conversion, named by what, that
// cannot hold p's shapes or reallocation graph (nil when p has neither).
func refuseShapes(what string, p *Problem) error {
	switch {
	case p.SizeType != SizeBytes:
		return Usagef("%s cannot hold %s sizes: write the problem as TFLite records", what, p.SizeType)
	case p.Reuse != nil:
		return Usagef("%s cannot hold a reallocation graph: write the problem as TFLite records", what)
	}
	return nil
}

// ReallocationGraph returns TFLite's reallocation graph of a dependency
// graph (LiteRT tflite/delegates/gpu/common/memory_management/types.cc,
// revision f67457790c9c): deps[x] lists the tensors computed from tensor
// x. For each tensor r with children, a breadth-first search from each
// child counts, per tensor, the searches that reach it (a search does not
// count the child it starts from); every tensor
// that all of r's searches reach can share memory with r, and the graph
// gets the edge both ways. Each list is then sorted ascending (keeping
// repeats, as upstream does for a graph with cycles). Out-of-range
// entries are the caller's to refuse.
func ReallocationGraph(deps [][]int) [][]int {
	n := len(deps)
	out := make([][]int, n)
	visits := make([]int, n)
	seen := make([]bool, n)
	var queue []int
	for root, children := range deps {
		if len(children) == 0 {
			continue
		}
		clear(visits)
		for _, c := range children {
			clear(seen)
			queue = append(queue[:0], c)
			seen[c] = true
			for len(queue) > 0 {
				v := queue[0]
				queue = queue[1:]
				for _, w := range deps[v] {
					if !seen[w] {
						seen[w] = true
						visits[w]++
						queue = append(queue, w)
					}
				}
			}
		}
		for v, k := range visits {
			if k == len(children) {
				out[root] = append(out[root], v)
				out[v] = append(out[v], root)
			}
		}
	}
	for _, l := range out {
		slices.Sort(l)
	}
	return out
}

// NewShapeProblem returns a problem of size type t whose buffer i has
// lifetime spans[i] (its Size is ignored) and extents shapes[i], elements
// of elemSize bytes. Each buffer's ID is its index and its Size the bytes
// of its shape; the problem is checked with CheckShapes.
func NewShapeProblem(name string, t SizeType, elemSize int64, shapes []Shape, spans []Buffer) (*Problem, error) {
	if len(shapes) != len(spans) {
		return nil, fmt.Errorf("%s: %d shapes for %d lifetimes", name, len(shapes), len(spans))
	}
	p := &Problem{Name: name, SizeType: t, ElementSize: elemSize, Shapes: shapes, Buffers: make([]Buffer, len(spans))}
	if t == SizeBytes {
		return nil, fmt.Errorf("%s: a problem of shapes needs a size type other than bytes", name)
	}
	for i, b := range spans {
		n, ok := p.ShapeBytes(shapes[i])
		if !ok {
			return nil, fmt.Errorf("%s: buffer %d: shape %s of %d-byte elements overflows int64 bytes", name, i, shapes[i].Format(t.Dims()), elemSize)
		}
		p.Buffers[i] = Buffer{ID: i, Size: n, First: b.First, Last: b.Last}
	}
	if err := CheckShapes(p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}
