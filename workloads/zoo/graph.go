// Package zoo builds the usage records of published network architectures
// at TensorFlow Lite's granularity, and registers them as "zoo/...".
//
// Conventions, shared by every model through the Graph builder:
//   - One op per task, in topological execution order (for branching
//     blocks: branch after branch, in the order the source lists them).
//   - One tensor per op output. Batch normalisation and activations that
//     TFLite fuses into the preceding convolution, fully connected or add
//     (ReLU, ReLU6) make no tensor of their own; activations TFLite runs as
//     separate ops (swish = LOGISTIC then MUL, GELU, softmax) do.
//   - A tensor lives from the op that produces it to its last consumer.
//   - The graph's inputs and outputs are excluded, as TFLite's planner
//     (which only plans intermediate tensors) does; so are weights.
//   - Shapes are NHWC for images and [batch, seq, hidden] for transformers;
//     size = elements x element size (fp32 4, fp16 2, int8 1 bytes).
//
// Check: mobilenet-v2 at 224x224, fp32, batch 1 gives 65 tensors totalling
// 27,591,112 bytes = 26.31 MiB, the figures TFLite's authors published
// (Pisarchyk and Lee, "Efficient Memory Management for Deep Neural Net
// Inference", 2020).
package zoo

import (
	"fmt"

	"membench/workloads"
)

// Tensor is a handle to a tensor of a Graph.
type Tensor int

// Graph records ops and the tensors they produce and read.
type Graph struct {
	elem    int64
	ops     int
	tensors []tensor
}

type tensor struct {
	shape    []int
	first    int // producing op; -1 for a graph input
	last     int // last consuming op; -1 while unread
	excluded bool
}

// NewGraph returns an empty graph whose elements take elem bytes.
func NewGraph(elem int64) *Graph { return &Graph{elem: elem} }

// Input adds a graph input: read by ops, never planned.
func (g *Graph) Input(shape ...int) Tensor {
	g.tensors = append(g.tensors, tensor{shape: shape, first: -1, last: -1, excluded: true})
	return Tensor(len(g.tensors) - 1)
}

// Shape returns a copy of t's shape.
func (g *Graph) Shape(t Tensor) []int { return append([]int(nil), g.tensors[t].shape...) }

// Op runs one op (one task): it reads ins and produces one tensor per
// shape in outs.
func (g *Graph) Op(ins []Tensor, outs ...[]int) []Tensor {
	for _, t := range ins {
		g.tensors[t].last = g.ops
	}
	res := make([]Tensor, len(outs))
	for i, s := range outs {
		g.tensors = append(g.tensors, tensor{shape: s, first: g.ops, last: -1})
		res[i] = Tensor(len(g.tensors) - 1)
	}
	g.ops++
	return res
}

// op1 runs an op with a single output.
func (g *Graph) op1(out []int, ins ...Tensor) Tensor { return g.Op(ins, out)[0] }

// Output marks tensors as graph outputs, which are not planned.
func (g *Graph) Output(ts ...Tensor) {
	for _, t := range ts {
		g.tensors[t].excluded = true
	}
}

// Problem returns the usage records of the planned tensors in creation
// order, ID = index. A tensor nobody reads lives only at its own op.
func (g *Graph) Problem(name string) *workloads.Problem {
	var bufs []workloads.Buffer
	for _, t := range g.tensors {
		if t.excluded {
			continue
		}
		n := int64(1)
		for _, d := range t.shape {
			n *= int64(d)
		}
		last := max(t.last, t.first)
		bufs = append(bufs, workloads.Buffer{ID: len(bufs), Size: n * g.elem, First: t.first, Last: last})
	}
	return &workloads.Problem{Name: name, Buffers: bufs}
}

// Padding is a convolution or pooling padding mode.
type Padding int

// The padding modes of TensorFlow.
const (
	// Same pads so that the output is ceil(input / stride).
	Same Padding = iota
	// Valid does not pad: the output is ceil((input - kernel + 1) / stride).
	Valid
)

func outDim(in, k, stride int, p Padding) int {
	if p == Valid {
		in -= k - 1
	}
	return (in + stride - 1) / stride
}

func (g *Graph) nhwc(t Tensor) (n, h, w, c int) {
	s := g.tensors[t].shape
	if len(s) != 4 {
		panic(fmt.Sprintf("zoo: tensor %d has shape %v, want NHWC", t, s))
	}
	return s[0], s[1], s[2], s[3]
}

// Conv is a 2-D convolution with a kh x kw kernel (bias, batch norm and
// ReLU/ReLU6 fused).
func (g *Graph) Conv(x Tensor, outC, kh, kw, stride int, p Padding) Tensor {
	n, h, w, _ := g.nhwc(x)
	return g.op1([]int{n, outDim(h, kh, stride, p), outDim(w, kw, stride, p), outC}, x)
}

// DWConv is a depthwise convolution (channel multiplier 1).
func (g *Graph) DWConv(x Tensor, k, stride int, p Padding) Tensor {
	_, _, _, c := g.nhwc(x)
	return g.Conv(x, c, k, k, stride, p)
}

// Pool is a k x k max or average pooling; its output is shaped as a
// depthwise convolution's.
func (g *Graph) Pool(x Tensor, k, stride int, p Padding) Tensor { return g.DWConv(x, k, stride, p) }

// GlobalPool averages over H and W (AVERAGE_POOL_2D or MEAN), keeping
// them as 1x1.
func (g *Graph) GlobalPool(x Tensor) Tensor {
	n, _, _, c := g.nhwc(x)
	return g.op1([]int{n, 1, 1, c}, x)
}

// Mean averages over H and W without keeping them (MEAN): [batch, C].
func (g *Graph) Mean(x Tensor) Tensor {
	n, _, _, c := g.nhwc(x)
	return g.op1([]int{n, c}, x)
}

// TransposeConv upsamples by stride with outC channels.
func (g *Graph) TransposeConv(x Tensor, outC, stride int) Tensor {
	n, h, w, _ := g.nhwc(x)
	return g.op1([]int{n, h * stride, w * stride, outC}, x)
}

// Crop is a centred SLICE to h x w.
func (g *Graph) Crop(x Tensor, h, w int) Tensor {
	n, _, _, c := g.nhwc(x)
	return g.op1([]int{n, h, w, c}, x)
}

// Concat joins tensors along the last axis.
func (g *Graph) Concat(xs ...Tensor) Tensor {
	s := g.Shape(xs[0])
	s[len(s)-1] = 0
	for _, x := range xs {
		xs := g.tensors[x].shape
		s[len(s)-1] += xs[len(xs)-1]
	}
	return g.op1(s, xs...)
}

// ConcatAxis joins tensors along the given axis.
func (g *Graph) ConcatAxis(axis int, xs ...Tensor) Tensor {
	s := g.Shape(xs[0])
	s[axis] = 0
	for _, x := range xs {
		s[axis] += g.tensors[x].shape[axis]
	}
	return g.op1(s, xs...)
}

// Elementwise is an op whose output has the shape of its first input:
// ADD, MUL, LOGISTIC, SOFTMAX, GELU, layer normalisation.
func (g *Graph) Elementwise(xs ...Tensor) Tensor { return g.op1(g.Shape(xs[0]), xs...) }

// FC is a fully connected layer on the last axis.
func (g *Graph) FC(x Tensor, out int) Tensor {
	s := g.Shape(x)
	s[len(s)-1] = out
	return g.op1(s, x)
}

// Reshape gives x a new shape with as many elements.
func (g *Graph) Reshape(x Tensor, shape ...int) Tensor { return g.op1(shape, x) }

// Transpose permutes the axes of x.
func (g *Graph) Transpose(x Tensor, perm ...int) Tensor {
	s := g.tensors[x].shape
	out := make([]int, len(perm))
	for i, p := range perm {
		out[i] = s[p]
	}
	return g.op1(out, x)
}

// BatchMatMul multiplies [..., m, k] by [..., k, n] (or by [..., n, k]
// with transposeB).
func (g *Graph) BatchMatMul(a, b Tensor, transposeB bool) Tensor {
	out := g.Shape(a)
	bs := g.tensors[b].shape
	if transposeB {
		out[len(out)-1] = bs[len(bs)-2]
	} else {
		out[len(out)-1] = bs[len(bs)-1]
	}
	return g.op1(out, a, b)
}

// Split cuts x into k equal parts along the last axis (one op, k outputs).
func (g *Graph) Split(x Tensor, k int) []Tensor {
	s := g.Shape(x)
	s[len(s)-1] /= k
	outs := make([][]int, k)
	for i := range outs {
		outs[i] = s
	}
	return g.Op([]Tensor{x}, outs...)
}

// Gather looks rows of a dim-wide table up by the indices in ids.
func (g *Graph) Gather(ids Tensor, dim int) Tensor {
	return g.op1(append(g.Shape(ids), dim), ids)
}
