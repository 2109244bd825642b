package workloads

import (
	"slices"
	"sort"
	"strings"
)

// onnxInfer infers the element type and shape of a node's outputs that
// the model does not declare, by the operator's definition in the ONNX
// operator specification (opset 13 and later), for the operators of the
// suite's models and their kin. An output it cannot infer keeps an
// unknown shape; that is an error only if the value is planned.
var onnxInfer = map[string]func(r *onnxReader, n *onnxNode) ([]int64, bool){}

// onnxSameShape are the operators whose output 0 has input 0's type and
// shape.
var onnxSameShape = []string{
	"Abs", "BatchNormalization", "Ceil", "Clip", "Cos", "Dropout", "Elu", "Erf", "Exp",
	"Floor", "Gelu", "HardSigmoid", "HardSwish", "Identity", "InstanceNormalization",
	"LRN", "LayerNormalization", "LeakyRelu", "Log", "LogSoftmax", "Mish", "Neg", "PRelu",
	"Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Softmax", "Softplus",
	"Sqrt", "Tanh",
}

// onnxBroadcast are the operators whose output broadcasts their inputs
// (numpy rules), with input 0's type.
var onnxBroadcast = []string{"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Mod"}

// onnxCompare are the broadcasting operators with a BOOL output.
var onnxCompare = []string{"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"}

const onnxTypeBool = 9

func init() {
	for _, op := range onnxSameShape {
		onnxInfer[op] = func(r *onnxReader, n *onnxNode) ([]int64, bool) { return r.in(n, 0) }
	}
	for _, op := range onnxBroadcast {
		onnxInfer[op] = func(r *onnxReader, n *onnxNode) ([]int64, bool) { return r.broadcast(n, n.inputs) }
	}
	for _, op := range onnxCompare {
		onnxInfer[op] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
			d, ok := r.broadcast(n, n.inputs)
			r.setType(n, onnxTypeBool)
			return d, ok
		}
	}
	onnxInfer["Where"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		d, ok := r.broadcast(n, n.inputs)
		if len(n.inputs) > 1 && n.inputs[1] != nil {
			r.setType(n, n.inputs[1].elem)
		}
		return d, ok
	}
	onnxInfer["Cast"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		if a := r.attr(n, "to"); a != nil {
			r.setType(n, int32(a.i))
		}
		return r.in(n, 0)
	}
	onnxInfer["Shape"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		d, ok := r.in(n, 0)
		r.setType(n, onnxTypeInt64)
		return []int64{int64(len(d))}, ok
	}
	onnxInfer["Conv"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) { return r.window(n, true) }
	for _, op := range []string{"MaxPool", "AveragePool", "LpPool"} {
		onnxInfer[op] = func(r *onnxReader, n *onnxNode) ([]int64, bool) { return r.window(n, false) }
	}
	for _, op := range []string{"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"} {
		onnxInfer[op] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
			d, ok := r.in(n, 0)
			if !ok || len(d) < 2 {
				return nil, false
			}
			out := slices.Clone(d)
			for i := 2; i < len(out); i++ {
				out[i] = 1
			}
			return out, true
		}
	}
	onnxInfer["Flatten"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		d, ok := r.in(n, 0)
		axis := r.int(n, "axis", 1) // in [-rank, rank]
		if axis < 0 {
			axis += int64(len(d))
		}
		if !ok || axis < 0 || axis > int64(len(d)) {
			return nil, false
		}
		a, ok3 := elems(d[:axis])
		b, ok4 := elems(d[axis:])
		return []int64{a, b}, ok3 && ok4
	}
	onnxInfer["Gemm"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		a, ok := r.in(n, 0)
		b, ok2 := r.in(n, 1)
		if !ok || !ok2 || len(a) != 2 || len(b) != 2 {
			return nil, false
		}
		if r.int(n, "transA", 0) != 0 {
			a = []int64{a[1], a[0]}
		}
		if r.int(n, "transB", 0) != 0 {
			b = []int64{b[1], b[0]}
		}
		return []int64{a[0], b[1]}, a[1] == b[0]
	}
	onnxInfer["MatMul"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) { return r.matmul(n) }
	onnxInfer["Transpose"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		d, ok := r.in(n, 0)
		if !ok {
			return nil, false
		}
		perm := make([]int64, len(d))
		for i := range perm {
			perm[i] = int64(len(d) - 1 - i)
		}
		if a := r.attr(n, "perm"); a != nil {
			perm = a.ints
		}
		if len(perm) != len(d) {
			return nil, false
		}
		out := make([]int64, len(d))
		for i, p := range perm {
			if p < 0 || p >= int64(len(d)) {
				return nil, false
			}
			out[i] = d[p]
		}
		return out, true
	}
	onnxInfer["Reshape"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) { return r.reshape(n) }
	onnxInfer["Gather"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		d, ok := r.in(n, 0)
		idx, ok2 := r.in(n, 1)
		axis, ok3 := r.axis(n, "axis", 0, len(d))
		if !ok || !ok2 || !ok3 || len(d) == 0 {
			return nil, false
		}
		return slices.Concat(d[:axis], idx, d[axis+1:]), true
	}
	onnxInfer["Concat"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		first, ok := r.in(n, 0)
		axis, ok2 := r.axis(n, "axis", 0, len(first))
		if !ok || !ok2 || len(first) == 0 {
			return nil, false
		}
		out := slices.Clone(first)
		for i := 1; i < len(n.inputs); i++ {
			d, ok := r.in(n, i)
			if !ok || len(d) != len(out) {
				return nil, false
			}
			out[axis] += d[axis]
		}
		return out, true
	}
	onnxInfer["Unsqueeze"] = func(r *onnxReader, n *onnxNode) ([]int64, bool) {
		d, ok := r.in(n, 0)
		axes, ok2 := r.ints(n, 1, "axes")
		if !ok || !ok2 {
			return nil, false
		}
		rank := len(d) + len(axes)
		at := map[int]bool{}
		for _, a := range axes {
			if a < -int64(rank) || a >= int64(rank) {
				return nil, false
			}
			at[int((a+int64(rank))%int64(rank))] = true
		}
		out := make([]int64, 0, rank)
		for i, j := 0, 0; i < rank; i++ {
			if at[i] {
				out = append(out, 1)
			} else if j < len(d) {
				out = append(out, d[j])
				j++
			}
		}
		return out, len(out) == rank
	}
}

// onnxInferredOps lists the operators shape inference knows.
func onnxInferredOps() string {
	ops := make([]string, 0, len(onnxInfer))
	for op := range onnxInfer {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return strings.Join(ops, ", ")
}

// infer fills in the outputs of n that the model leaves without a shape.
// Output 0 gets the inferred shape and, unless set, input 0's type; other
// outputs stay unknown.
func (r *onnxReader) infer(n *onnxNode) {
	if len(n.output) == 0 || n.output[0] == nil || n.output[0].declared {
		return
	}
	f := onnxInfer[n.op]
	if f == nil || (n.domain != "" && n.domain != "ai.onnx") {
		return
	}
	out := n.output[0]
	if out.elem == onnxUndefinedType && len(n.inputs) > 0 && n.inputs[0] != nil {
		out.elem = n.inputs[0].elem
	}
	if d, ok := f(r, n); ok && r.err == nil && static(d) {
		out.dims, out.rank = d, len(d)
	}
}

// in returns the shape of input i of n, false when unknown.
func (r *onnxReader) in(n *onnxNode, i int) ([]int64, bool) {
	if i >= len(n.inputs) || n.inputs[i] == nil || n.inputs[i].rank < 0 {
		return nil, false
	}
	v := n.inputs[i]
	return v.dims, r.spend(n.at, len(v.dims), n.what()+": shape inference")
}

// setType sets the element type of n's output 0.
func (r *onnxReader) setType(n *onnxNode, elem int32) {
	if n.output[0].elem == onnxUndefinedType || !n.output[0].declared {
		n.output[0].elem = elem
	}
}

// int returns the int attribute name of n, or def.
func (r *onnxReader) int(n *onnxNode, name string, def int64) int64 {
	if a := r.attr(n, name); a != nil && a.hasI {
		return a.i
	}
	return def
}

// axis returns the axis attribute name of n, or def, counted from the
// end when negative, within [0, rank).
func (r *onnxReader) axis(n *onnxNode, name string, def int64, rank int) (int, bool) {
	a := r.int(n, name, def)
	if a < 0 {
		a += int64(rank)
	}
	return int(a), a >= 0 && a < int64(rank)
}

// ints returns the int values of input i of n, a constant, or of the
// attribute name (the form of earlier opsets).
func (r *onnxReader) ints(n *onnxNode, i int, name string) ([]int64, bool) {
	if i < len(n.inputs) && n.inputs[i] != nil {
		v := n.inputs[i]
		return v.ints, v.constant && v.ints != nil
	}
	if a := r.attr(n, name); a != nil {
		return a.ints, true
	}
	return nil, false
}

// broadcast returns the shape the inputs broadcast to (numpy rules).
func (r *onnxReader) broadcast(n *onnxNode, inputs []*onnxValue) ([]int64, bool) {
	var out []int64
	for i := range inputs {
		d, ok := r.in(n, i)
		if !ok {
			return nil, false
		}
		if out, ok = broadcastDims(out, d); !ok {
			return nil, false
		}
	}
	return out, true
}

// matmul returns the shape of numpy's matmul of inputs 0 and 1.
func (r *onnxReader) matmul(n *onnxNode) ([]int64, bool) {
	a, ok := r.in(n, 0)
	b, ok2 := r.in(n, 1)
	if !ok || !ok2 || len(a) == 0 || len(b) == 0 {
		return nil, false
	}
	a1, b1 := len(a) == 1, len(b) == 1
	if a1 {
		a = []int64{1, a[0]}
	}
	if b1 {
		b = []int64{b[0], 1}
	}
	if a[len(a)-1] != b[len(b)-2] {
		return nil, false
	}
	batch, ok := broadcastDims(a[:len(a)-2], b[:len(b)-2])
	if !ok {
		return nil, false
	}
	out := batch
	if !a1 {
		out = append(out, a[len(a)-2])
	}
	if !b1 {
		out = append(out, b[len(b)-1])
	}
	return out, true
}

// broadcastDims broadcasts two shapes (numpy rules).
func broadcastDims(a, b []int64) ([]int64, bool) {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := slices.Clone(a)
	off := len(a) - len(b)
	for k, x := range b {
		switch o := out[off+k]; {
		case o == x, x == 1:
		case o == 1:
			out[off+k] = x
		default:
			return nil, false
		}
	}
	return out, true
}

// reshape returns Reshape's output shape from its constant shape input:
// 0 copies the input's dimension (unless allowzero), -1 takes the rest.
func (r *onnxReader) reshape(n *onnxNode) ([]int64, bool) {
	d, ok := r.in(n, 0)
	shape, ok2 := r.ints(n, 1, "shape")
	if !ok || !ok2 {
		return nil, false
	}
	total, ok := elems(d)
	if !ok {
		return nil, false
	}
	out := slices.Clone(shape)
	rest := -1
	known := int64(1)
	for i, s := range out {
		switch {
		case s == 0 && r.int(n, "allowzero", 0) == 0:
			if i >= len(d) {
				return nil, false
			}
			out[i] = d[i]
		case s == -1 && rest < 0:
			rest = i
			continue
		case s < 0:
			return nil, false
		}
		if k, ok := elems([]int64{known, out[i]}); ok {
			known = k
		} else {
			return nil, false
		}
	}
	if rest >= 0 {
		if known == 0 || total%known != 0 {
			return nil, false
		}
		out[rest] = total / known
	}
	return out, true
}

// window returns the output shape of a convolution (conv: the kernel's
// shape from the weights, input 1) or pooling over N x C x D1 x ... Dn.
func (r *onnxReader) window(n *onnxNode, conv bool) ([]int64, bool) {
	x, ok := r.in(n, 0)
	if !ok || len(x) < 3 {
		return nil, false
	}
	spatial := len(x) - 2
	var kernel []int64
	if a := r.attr(n, "kernel_shape"); a != nil {
		kernel = a.ints
	}
	out := []int64{x[0], x[1]}
	if conv {
		w, ok := r.in(n, 1)
		if !ok || len(w) != len(x) {
			return nil, false
		}
		if kernel == nil {
			kernel = w[2:]
		}
		out[1] = w[0]
	}
	if len(kernel) != spatial {
		return nil, false
	}
	list := func(name string, def int64, n2 int) []int64 {
		if a := r.attr(n, name); a != nil && len(a.ints) == n2 {
			return a.ints
		}
		l := make([]int64, n2)
		for i := range l {
			l[i] = def
		}
		return l
	}
	strides, dil, pads := list("strides", 1, spatial), list("dilations", 1, spatial), list("pads", 0, 2*spatial)
	autoPad := ""
	if a := r.attr(n, "auto_pad"); a != nil {
		autoPad = a.s
	}
	ceil := r.int(n, "ceil_mode", 0) != 0
	for i := range spatial {
		if strides[i] < 1 || dil[i] < 1 || kernel[i] < 1 {
			return nil, false
		}
		in, k := x[2+i], dil[i]*(kernel[i]-1)+1
		var o int64
		switch autoPad {
		case "SAME_UPPER", "SAME_LOWER":
			o = (in + strides[i] - 1) / strides[i]
		case "VALID":
			if in < k {
				return nil, false
			}
			o = (in-k)/strides[i] + 1
		default:
			span := in + pads[i] + pads[i+spatial] - k
			if span < 0 {
				return nil, false
			}
			o = span/strides[i] + 1
			// ceil_mode rounds up, but a last window that would start
			// in the end padding is dropped (ONNX's pooling rule).
			if ceil && span%strides[i] != 0 && o*strides[i] < in+pads[i] {
				o++
			}
		}
		if o < 0 {
			return nil, false
		}
		out = append(out, o)
	}
	return out, true
}
