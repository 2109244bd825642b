package workloads

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path"
	"slices"
	"strings"
	"unicode"

	"google.golang.org/protobuf/encoding/protowire"
)

// FormatONNXModel is a `.onnx` model file (a protobuf ModelProto).
const FormatONNXModel = "onnx-model"

// isONNXModel reports whether data is an ONNX model. ONNX files carry no
// magic number, so the sniff is: a name ending in .onnx (before any .gz),
// or, whatever the name, data that starts with ModelProto's ir_version
// field (tag byte 0x08, which no text format starts with) and holds a
// graph field, its top level well-formed protobuf. A file named .onnx is
// always read as ONNX, so a damaged one gets the ONNX reader's error.
func isONNXModel(data []byte, name string) bool {
	base := strings.ToLower(path.Base(name))
	if strings.HasSuffix(strings.TrimSuffix(base, ".gz"), ".onnx") {
		return true
	}
	if len(data) < 2 || data[0] != 0x08 {
		return false
	}
	graph := false
	for b := data; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		graph = graph || (num == pbModelGraph && typ == protowire.BytesType)
		b = b[n+m:]
	}
	return graph
}

// ReadONNXModel reads the usage records of an `.onnx` model, with the
// lifetime rules of ReadTFLiteModel:
//
//   - the nodes of the main graph, in order, are the tasks 0..T-1, except
//     those folded as ONNX Runtime's ConstantFolding folds them when a
//     session loads (its basic rule, not its exceptions for quantized
//     graphs): a Constant node, and a node of the default domain every
//     input of which is a constant, unless it is RandomUniform,
//     RandomNormal, RandomUniformLike, RandomNormalLike or Multinomial; a
//     folded node's outputs are constants;
//   - a value produced by a task lives from that task to its last
//     consumer; a graph input lives from task 0; a graph output lives to
//     the end (task T-1); a produced value nobody reads lives at its
//     producer;
//   - constants are not planned: initializers (weights, even when also
//     listed as graph inputs, as models of IR version 3 do), sparse
//     initializers and folded nodes' outputs;
//   - STRING tensors and values that are not tensors (sequences, maps,
//     optionals, sparse tensors) are not planned: they have no size
//     before the run;
//   - bytes are the product of the shape (1 for a scalar) times the
//     element size of the value's type, sub-byte types (INT4, UINT4,
//     FLOAT4E2M1, INT2, UINT2) packed and rounded up to whole bytes;
//     shapes come from the model's graph inputs, outputs and value_info
//     (onnx.shape_inference writes them), else are inferred for the
//     operators onnxInfer lists; a value with neither is an error.
//
// Buffer IDs number the planned values in the order they are defined:
// graph inputs, then each task's outputs. Nodes must be in topological
// order, as onnx.proto requires, and each value defined once. Nodes with
// subgraphs (If, Loop, Scan) are refused: their bodies are not read.
//
// The protobuf is decoded field by field with protowire, by the field
// numbers of onnx.proto (onnx/onnx, onnx/onnx.proto; DataType values
// through ONNX 1.20, IR version 13), reading only what planning needs:
// weights are never copied. A malformed file is an *InputError naming
// the byte and the message being read, never a panic.
func ReadONNXModel(r io.Reader, name string) (*Problem, error) {
	return readParsed(r, name, parseONNXModel)
}

// Field numbers of onnx.proto, the only ones read, by message.
const (
	pbModelIRVersion, pbModelGraph = 1, 7

	pbGraphNode, pbGraphInitializer, pbGraphSparseInit    = 1, 5, 15
	pbGraphInput, pbGraphOutput, pbGraphValueInfo         = 11, 12, 13
	pbNodeInput, pbNodeOutput, pbNodeOpType, pbNodeDomain = 1, 2, 4, 7
	pbNodeAttribute                                       = 5
	pbAttrName, pbAttrInt, pbAttrString, pbAttrTensor     = 1, 3, 4, 5
	pbAttrGraph, pbAttrInts, pbAttrGraphs                 = 6, 8, 11
	pbTensorDims, pbTensorDataType, pbTensorInt32Data     = 1, 2, 5
	pbTensorInt64Data, pbTensorName, pbTensorRawData      = 7, 8, 9
	pbSparseValues, pbSparseDims                          = 1, 3
	pbValueInfoName, pbValueInfoType                      = 1, 2
	pbTypeTensor, pbTypeDenotation                        = 1, 6
	pbTensorTypeElem, pbTensorTypeShape, pbShapeDim       = 1, 2, 1
	pbDimValue, pbDimParam                                = 1, 2
)

// TensorProto.DataType values the reader names.
const (
	onnxUndefinedType = 0
	onnxTypeInt32     = 6
	onnxTypeInt64     = 7
	onnxTypeString    = 8
	// onnxNotTensorType marks a sequence, map, optional or sparse tensor.
	onnxNotTensorType = -1
)

const (
	// onnxMaxConstElems bounds the int constants kept for inference:
	// shapes and axes are short.
	onnxMaxConstElems = 1 << 10
	// The work budget: onnxReadsPerByte steps per byte of the file plus
	// onnxReadsFree.
	onnxReadsPerByte = 4
	onnxReadsFree    = 1 << 16

	onnxUnknownRank     = -1
	onnxDimUnknown      = -1
	onnxTaskNone        = -1
	onnxMaxNameInErrors = 60
)

// onnxTypeBits is the element size in bits of each TensorProto.DataType,
// indexed by its value; 0 marks UNDEFINED and STRING, which have none.
var onnxTypeBits = [...]struct {
	name string
	bits int64
}{
	{"UNDEFINED", 0}, {"FLOAT", 32}, {"UINT8", 8}, {"INT8", 8}, {"UINT16", 16}, {"INT16", 16},
	{"INT32", 32}, {"INT64", 64}, {"STRING", 0}, {"BOOL", 8}, {"FLOAT16", 16}, {"DOUBLE", 64},
	{"UINT32", 32}, {"UINT64", 64}, {"COMPLEX64", 64}, {"COMPLEX128", 128}, {"BFLOAT16", 16},
	{"FLOAT8E4M3FN", 8}, {"FLOAT8E4M3FNUZ", 8}, {"FLOAT8E5M2", 8}, {"FLOAT8E5M2FNUZ", 8},
	{"UINT4", 4}, {"INT4", 4}, {"FLOAT4E2M1", 4}, {"FLOAT8E8M0", 8}, {"UINT2", 2}, {"INT2", 2},
}

// onnxValue is one named value of the graph.
type onnxValue struct {
	name string
	// elem is the element type (a DataType), onnxNotTensorType for a
	// sequence, map, optional or sparse tensor, 0 when unknown.
	elem int32
	// dims is the static shape, nil with rank onnxUnknownRank.
	dims []int64
	rank int
	// declared: the shape came from the model, not inference.
	declared bool
	// constant: an initializer or a folded node's output.
	constant bool
	// ints holds an int constant's values (at most onnxMaxConstElems).
	ints []int64
	// defined: a graph input, initializer or some node's output.
	defined     bool
	first, last int
	id          int
}

// onnxReader is the state of parseONNXModel.
type onnxReader struct {
	data []byte
	name string
	err  error
	// read counts fields and dimensions decoded or visited, bounded by
	// onnxReadsPerByte per byte of the file: shape inference visits the
	// dimensions of each node's inputs, and a small model whose nodes
	// all read one value of a huge rank would otherwise cost time
	// quadratic in its size.
	read int64

	graphs []pbSpan // the ModelProto.graph fields, merged in order
	values []*onnxValue
	byName map[string]int32
	tasks  int
	// ids counts the planned values defined so far.
	ids int
	// inferAll ignores GraphProto.value_info, so that tests check
	// inference against the shapes a model declares.
	inferAll bool
}

// pbSpan is a message's bytes and their offset in the file.
type pbSpan struct {
	b  []byte
	at int
}

func (r *onnxReader) fail(at int, format string, args ...any) {
	if r.err == nil {
		r.err = &InputError{File: r.name, Msg: fmt.Sprintf("byte %d: ", at) + fmt.Sprintf(format, args...) +
			": not a well-formed ONNX model (protobuf ModelProto, onnx.proto)"}
	}
}

// failf records an error about the graph's meaning, not its encoding.
func (r *onnxReader) failf(format string, args ...any) {
	if r.err == nil {
		r.err = &InputError{File: r.name, Msg: fmt.Sprintf(format, args...)}
	}
}

// spend counts n units of work and fails past the budget.
func (r *onnxReader) spend(at, n int, what string) bool {
	r.read += int64(n)
	if budget := onnxReadsPerByte*int64(len(r.data)) + onnxReadsFree; r.err == nil && r.read > budget {
		r.fail(at, "%s: the model names the same large values over and over: reading it would take more than %d steps, the limit for a file of its size", what, budget)
	}
	return r.err == nil
}

// pbField is one field of a message.
type pbField struct {
	num protowire.Number
	typ protowire.Type
	at  int    // the tag's offset in the file
	v   uint64 // a varint or fixed value
	b   pbSpan // a length-delimited value
}

// fields calls fn for each field of the message m, stopping at the first
// error.
func (r *onnxReader) fields(m pbSpan, what string, fn func(f pbField)) {
	for off := 0; off < len(m.b) && r.err == nil; {
		at := m.at + off
		num, typ, n := protowire.ConsumeTag(m.b[off:])
		if n < 0 {
			r.fail(at, "%s: %s", what, pbWords(n))
			return
		}
		f := pbField{num: num, typ: typ, at: at}
		rest := m.b[off+n:]
		var k int
		switch typ {
		case protowire.VarintType:
			f.v, k = protowire.ConsumeVarint(rest)
		case protowire.Fixed32Type:
			var v uint32
			v, k = protowire.ConsumeFixed32(rest)
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, k = protowire.ConsumeFixed64(rest)
		case protowire.BytesType:
			var v []byte
			v, k = protowire.ConsumeBytes(rest)
			f.b = pbSpan{v, at + n + k - len(v)}
		case protowire.StartGroupType, protowire.EndGroupType:
			// Deprecated, and in no message of onnx.proto: refused
			// rather than skipped level by nested level.
			r.fail(at, "%s field %d: wire type %d (a group), which onnx.proto does not use", what, num, typ)
			return
		default:
			k = protowire.ConsumeFieldValue(num, typ, rest)
		}
		if k < 0 {
			r.fail(at, "%s field %d: %s", what, num, pbWords(k))
			return
		}
		off += n + k
		if !r.spend(at, 1, what) {
			return
		}
		fn(f)
	}
}

// pbWords says what protowire's error code n means.
func pbWords(n int) string {
	err := protowire.ParseError(n)
	if err == io.ErrUnexpectedEOF {
		return "the message ends inside a field (truncated)"
	}
	// An invalid field number, a varint overflow, a reserved wire type,
	// without the library's "proto:" prefix (which it writes with a
	// space or a no-break space, so that no one matches on it).
	_, msg, _ := strings.Cut(err.Error(), ":")
	return strings.TrimLeft(msg, " \u00a0")
}

// bytes checks that f is length-delimited, as the field what is.
func (r *onnxReader) bytes(f pbField, what string) (pbSpan, bool) {
	if f.typ != protowire.BytesType {
		r.fail(f.at, "%s has wire type %d, want 2 (length-delimited)", what, f.typ)
		return pbSpan{}, false
	}
	return f.b, true
}

// varint checks that f is a varint, as the field what is.
func (r *onnxReader) varint(f pbField, what string) (int64, bool) {
	if f.typ != protowire.VarintType {
		r.fail(f.at, "%s has wire type %d, want 0 (varint)", what, f.typ)
		return 0, false
	}
	return int64(f.v), true
}

// int64s appends the values of a repeated int64 field, packed or not.
func (r *onnxReader) int64s(f pbField, what string, to []int64) []int64 {
	if f.typ == protowire.VarintType {
		return append(to, int64(f.v))
	}
	b, ok := r.bytes(f, what)
	for ok && len(b.b) > 0 {
		v, n := protowire.ConsumeVarint(b.b)
		if n < 0 {
			r.fail(b.at, "%s: %s", what, pbWords(n))
			return to
		}
		if !r.spend(b.at, 1, what) {
			return to
		}
		to = append(to, int64(v))
		b = pbSpan{b.b[n:], b.at + n}
	}
	return to
}

// str reads a string field.
func (r *onnxReader) str(f pbField, what string) string {
	b, ok := r.bytes(f, what)
	if !ok {
		return ""
	}
	return string(b.b)
}

// value returns the value named name, adding it when new.
func (r *onnxReader) value(name string) *onnxValue {
	if i, ok := r.byName[name]; ok {
		return r.values[i]
	}
	v := &onnxValue{name: name, rank: onnxUnknownRank, first: onnxTaskNone, last: onnxTaskNone, id: -1}
	r.byName[name] = int32(len(r.values))
	r.values = append(r.values, v)
	return v
}

// quote names a value in messages, cut to a readable length.
func quote(name string) string {
	if len(name) > onnxMaxNameInErrors {
		name = name[:onnxMaxNameInErrors] + "…"
	}
	return fmt.Sprintf("%q", name)
}

func parseONNXModel(data []byte, name string) (*Problem, error) {
	return parseONNXModelWith(data, name, false)
}

// parseONNXModelWith is parseONNXModel, ignoring value_info when inferAll.
func parseONNXModelWith(data []byte, name string, inferAll bool) (*Problem, error) {
	r := &onnxReader{data: data, name: name, byName: map[string]int32{}, inferAll: inferAll}
	defer func() { readStats.entries.Add(r.read) }()
	r.model()
	if r.err == nil && len(r.graphs) == 0 {
		r.failf("not an ONNX model: ModelProto has no graph (field 7)")
	}
	if r.err == nil {
		r.declarations()
	}
	if r.err == nil {
		r.lifetimes()
	}
	if r.err != nil {
		return nil, r.err
	}
	p := &Problem{Name: name, Format: FormatONNXModel}
	for _, v := range r.values {
		if v.id < 0 || v.elem == onnxNotTensorType || v.elem == onnxTypeString {
			continue // constant, or no size before the run
		}
		size, err := r.size(v)
		if err != nil {
			return nil, err
		}
		p.Buffers = append(p.Buffers, Buffer{ID: v.id, Size: size, First: v.first, Last: v.last})
	}
	// Values are stored in the order first named, defined in ID order.
	slices.SortFunc(p.Buffers, func(a, b Buffer) int { return a.ID - b.ID })
	return p, nil
}

// model finds the graph fields of the ModelProto.
func (r *onnxReader) model() {
	r.fields(pbSpan{r.data, 0}, "ModelProto", func(f pbField) {
		switch f.num {
		case pbModelIRVersion:
			r.varint(f, "ModelProto.ir_version")
		case pbModelGraph:
			if g, ok := r.bytes(f, "ModelProto.graph"); ok {
				r.graphs = append(r.graphs, g)
			}
		}
	})
}

// eachGraphField calls fn for every field of the graph, over all of its
// ModelProto.graph fields (protobuf merges repeated message fields).
func (r *onnxReader) eachGraphField(fn func(f pbField)) {
	for _, g := range r.graphs {
		r.fields(g, "GraphProto", fn)
	}
}

// declarations reads the initializers and the declared types of the
// graph's inputs, outputs and value_info.
func (r *onnxReader) declarations() {
	r.eachGraphField(func(f pbField) {
		switch f.num {
		case pbGraphInitializer:
			if t, ok := r.bytes(f, "GraphProto.initializer"); ok {
				r.initializer(t, "GraphProto.initializer")
			}
		case pbGraphSparseInit:
			if t, ok := r.bytes(f, "GraphProto.sparse_initializer"); ok {
				r.sparseInitializer(t)
			}
		case pbGraphValueInfo:
			if vi, ok := r.bytes(f, "GraphProto.value_info"); ok && !r.inferAll {
				r.valueInfo(vi, "GraphProto.value_info")
			}
		case pbGraphInput, pbGraphOutput:
			what := "GraphProto.input"
			if f.num == pbGraphOutput {
				what = "GraphProto.output"
			}
			if vi, ok := r.bytes(f, what); ok {
				r.valueInfo(vi, what)
			}
		}
	})
}

// onnxTensor is what a TensorProto says of its tensor.
type onnxTensor struct {
	name string
	elem int32
	dims []int64
	ints []int64
	raw  []byte
}

// tensor reads a TensorProto: its name, type, shape and, for small int
// tensors, its values.
func (r *onnxReader) tensor(t pbSpan, what string) onnxTensor {
	var x onnxTensor
	var i32, i64 []int64
	r.fields(t, what, func(f pbField) {
		switch f.num {
		case pbTensorDims:
			x.dims = r.int64s(f, "TensorProto.dims", x.dims)
		case pbTensorDataType:
			v, _ := r.varint(f, "TensorProto.data_type")
			x.elem = int32(v)
		case pbTensorName:
			x.name = r.str(f, "TensorProto.name")
		case pbTensorRawData:
			b, _ := r.bytes(f, "TensorProto.raw_data")
			x.raw = b.b
		case pbTensorInt32Data:
			if len(i32) <= onnxMaxConstElems {
				i32 = r.int64s(f, "TensorProto.int32_data", i32)
			}
		case pbTensorInt64Data:
			if len(i64) <= onnxMaxConstElems {
				i64 = r.int64s(f, "TensorProto.int64_data", i64)
			}
		}
	})
	for _, d := range x.dims {
		if d < 0 {
			r.fail(t.at, "%s %s has dimension %d: want dimensions >= 0", what, quote(x.name), d)
		}
	}
	n, ok := elems(x.dims)
	if !ok || n > onnxMaxConstElems {
		return x
	}
	switch {
	case x.elem == onnxTypeInt64 && x.raw != nil && int64(len(x.raw)) == 8*n:
		for i := range n {
			x.ints = append(x.ints, int64(binary.LittleEndian.Uint64(x.raw[8*i:])))
		}
	case x.elem == onnxTypeInt32 && x.raw != nil && int64(len(x.raw)) == 4*n:
		for i := range n {
			x.ints = append(x.ints, int64(int32(binary.LittleEndian.Uint32(x.raw[4*i:]))))
		}
	case x.elem == onnxTypeInt64 && int64(len(i64)) == n:
		x.ints = i64
	case x.elem == onnxTypeInt32 && int64(len(i32)) == n:
		for _, v := range i32 {
			x.ints = append(x.ints, int64(int32(v)))
		}
	}
	return x
}

// elems is the product of dims, false when it overflows.
func elems(dims []int64) (int64, bool) {
	n := uint64(1)
	for _, d := range dims {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}

// initializer records a constant from a TensorProto.
func (r *onnxReader) initializer(t pbSpan, what string) {
	x := r.tensor(t, what)
	if r.err != nil {
		return
	}
	if x.name == "" {
		r.fail(t.at, "%s has no name", what)
		return
	}
	v := r.value(x.name)
	r.setConstant(v, x)
}

// setConstant makes v the constant x describes.
func (r *onnxReader) setConstant(v *onnxValue, x onnxTensor) {
	v.constant, v.defined = true, true
	v.elem, v.dims, v.rank, v.declared, v.ints = x.elem, x.dims, len(x.dims), true, x.ints
}

// sparseInitializer records a SparseTensorProto's constant: its values
// tensor names it; its dims are the dense shape.
func (r *onnxReader) sparseInitializer(t pbSpan) {
	const what = "GraphProto.sparse_initializer"
	var x onnxTensor
	var dims []int64
	r.fields(t, what, func(f pbField) {
		switch f.num {
		case pbSparseValues:
			if b, ok := r.bytes(f, "SparseTensorProto.values"); ok {
				x = r.tensor(b, "SparseTensorProto.values")
			}
		case pbSparseDims:
			dims = r.int64s(f, "SparseTensorProto.dims", dims)
		}
	})
	if r.err == nil && x.name == "" {
		r.fail(t.at, "%s has no name in its values", what)
	}
	if r.err == nil {
		x.dims, x.ints = dims, nil
		r.setConstant(r.value(x.name), x)
	}
}

// valueInfo reads a ValueInfoProto's name and type. A value's own
// initializer wins over a declaration.
func (r *onnxReader) valueInfo(vi pbSpan, what string) {
	var name string
	var elem int32
	var dims []int64
	rank := onnxUnknownRank
	r.fields(vi, what, func(f pbField) {
		switch f.num {
		case pbValueInfoName:
			name = r.str(f, "ValueInfoProto.name")
		case pbValueInfoType:
			if t, ok := r.bytes(f, "ValueInfoProto.type"); ok {
				elem, dims, rank = r.typeProto(t, elem, dims, rank)
			}
		}
	})
	if r.err != nil {
		return
	}
	if name == "" {
		r.fail(vi.at, "%s has no name", what)
		return
	}
	v := r.value(name)
	if v.constant {
		return
	}
	if elem != onnxUndefinedType {
		v.elem = elem
	}
	if rank != onnxUnknownRank && static(dims) {
		v.dims, v.rank, v.declared = dims, rank, true
	}
}

// static reports whether every dimension is known.
func static(dims []int64) bool {
	for _, d := range dims {
		if d < 0 {
			return false
		}
	}
	return true
}

// typeProto reads a TypeProto into elem and shape (merging, as protobuf
// merges a repeated message field); a type that is not a tensor gives
// onnxNotTensorType.
func (r *onnxReader) typeProto(t pbSpan, elem int32, dims []int64, rank int) (int32, []int64, int) {
	r.fields(t, "TypeProto", func(f pbField) {
		if f.num != pbTypeTensor {
			if f.typ == protowire.BytesType && f.num != pbTypeDenotation {
				elem = onnxNotTensorType
			}
			return
		}
		tt, ok := r.bytes(f, "TypeProto.tensor_type")
		if !ok {
			return
		}
		r.fields(tt, "TypeProto.Tensor", func(f pbField) {
			switch f.num {
			case pbTensorTypeElem:
				v, _ := r.varint(f, "TypeProto.Tensor.elem_type")
				elem = int32(v)
			case pbTensorTypeShape:
				sh, ok := r.bytes(f, "TypeProto.Tensor.shape")
				if !ok {
					return
				}
				rank = max(rank, 0)
				r.fields(sh, "TensorShapeProto", func(f pbField) {
					if f.num != pbShapeDim {
						return
					}
					dim, ok := r.bytes(f, "TensorShapeProto.dim")
					if !ok {
						return
					}
					d := int64(onnxDimUnknown)
					r.fields(dim, "TensorShapeProto.Dimension", func(f pbField) {
						switch f.num {
						case pbDimValue:
							v, _ := r.varint(f, "Dimension.dim_value")
							d = max(v, onnxDimUnknown) // negative: unknown
						case pbDimParam:
							d = onnxDimUnknown
						}
					})
					dims = append(dims, d)
					rank++
				})
			}
		})
	})
	return elem, dims, rank
}

// onnxNonDeterministic are the operators ONNX Runtime never folds.
var onnxNonDeterministic = map[string]bool{
	"RandomUniform": true, "RandomNormal": true, "RandomUniformLike": true, "RandomNormalLike": true, "Multinomial": true,
}

// onnxNode is one node as lifetimes reads it.
type onnxNode struct {
	index          int // in the graph
	op, domain     string
	inputs, output []*onnxValue
	attrs          []pbSpan
	at             int
	// decoded holds attrs decoded, once asked for.
	decoded []onnxAttr
}

// what names the node in messages: its op_type bare when it is a plain
// name, as every operator's is, else quoted and cut.
func (n *onnxNode) what() string {
	plain := n.op != "" && len(n.op) <= onnxMaxNameInErrors
	for _, c := range n.op {
		plain = plain && (c == '_' || c == '.' || unicode.IsLetter(c) || unicode.IsDigit(c))
	}
	if plain {
		return fmt.Sprintf("node %d (%s)", n.index, n.op)
	}
	return fmt.Sprintf("node %d (op_type %s)", n.index, quote(n.op))
}

// lifetimes walks the nodes in order: graph inputs live from task 0,
// each task's values from the first to the last task naming them, graph
// outputs to the end. Nodes are decoded one at a time and not kept.
func (r *onnxReader) lifetimes() {
	var outputs []*onnxValue
	r.eachGraphField(func(f pbField) {
		switch f.num {
		case pbGraphInput:
			vi, _ := r.bytes(f, "GraphProto.input")
			if v := r.ioName(vi, "GraphProto.input"); v != nil && !v.constant {
				if v.defined {
					r.failf("graph input %s is listed twice", quote(v.name))
					return
				}
				r.define(v, 0)
			}
		case pbGraphOutput:
			vi, _ := r.bytes(f, "GraphProto.output")
			if v := r.ioName(vi, "GraphProto.output"); v != nil {
				outputs = append(outputs, v)
			}
		}
	})
	index := 0
	r.eachGraphField(func(f pbField) {
		if f.num != pbGraphNode {
			return
		}
		if b, ok := r.bytes(f, "GraphProto.node"); ok {
			r.node(b, index)
			index++
		}
	})
	end := max(r.tasks-1, 0)
	for _, v := range outputs {
		switch {
		case r.err != nil, v.constant:
		case !v.defined:
			r.failf("graph output %s is produced by no node and is neither a graph input nor an initializer", quote(v.name))
		default:
			if v.first < 0 {
				v.first = end
			}
			v.last = end
		}
	}
}

// ioName reads the name of a graph input or output.
func (r *onnxReader) ioName(vi pbSpan, what string) *onnxValue {
	var name string
	r.fields(vi, what, func(f pbField) {
		if f.num == pbValueInfoName {
			name = r.str(f, "ValueInfoProto.name")
		}
	})
	if r.err == nil && name == "" {
		r.fail(vi.at, "%s has no name", what)
	}
	if r.err != nil {
		return nil
	}
	return r.value(name)
}

// define makes v a planned value, live from task.
func (r *onnxReader) define(v *onnxValue, task int) {
	v.defined, v.id = true, r.ids
	r.ids++
	r.use(v, task)
}

func (r *onnxReader) use(v *onnxValue, task int) {
	if v.first < 0 || task < v.first {
		v.first = task
	}
	v.last = max(v.last, task)
}

// node decodes node index and extends the lifetimes of what it reads
// and writes.
func (r *onnxReader) node(b pbSpan, index int) {
	n := &onnxNode{index: index, at: b.at}
	r.fields(b, "NodeProto", func(f pbField) {
		switch f.num {
		case pbNodeInput, pbNodeOutput:
			what := "NodeProto.input"
			if f.num == pbNodeOutput {
				what = "NodeProto.output"
			}
			name := r.str(f, what)
			var v *onnxValue
			if name != "" { // "": an omitted optional input or output
				v = r.value(name)
			}
			if f.num == pbNodeInput {
				n.inputs = append(n.inputs, v)
			} else {
				n.output = append(n.output, v)
			}
		case pbNodeOpType:
			n.op = r.str(f, "NodeProto.op_type")
		case pbNodeDomain:
			n.domain = r.str(f, "NodeProto.domain")
		case pbNodeAttribute:
			if a, ok := r.bytes(f, "NodeProto.attribute"); ok {
				n.attrs = append(n.attrs, a)
			}
		}
	})
	if r.err != nil {
		return
	}
	for _, a := range n.attrs {
		r.fields(a, "AttributeProto", func(f pbField) {
			if f.num == pbAttrGraph || f.num == pbAttrGraphs {
				r.failf("%s has a subgraph attribute: control flow (If, Loop, Scan) is not supported", n.what())
			}
		})
	}
	folded := n.domain == "" || n.domain == "ai.onnx"
	folded = folded && !onnxNonDeterministic[n.op]
	for _, v := range n.inputs {
		switch {
		case r.err != nil, v == nil:
		case !v.defined:
			r.failf("%s reads %s, which no earlier node produces and which is neither a graph input nor an initializer (nodes must be in topological order)", n.what(), quote(v.name))
		case !v.constant:
			folded = false
		}
	}
	for _, v := range n.output {
		if r.err == nil && v != nil && v.defined {
			r.failf("%s writes %s, which is already defined (every value has one producer)", n.what(), quote(v.name))
		}
	}
	if r.err != nil {
		return
	}
	if n.op == "Constant" && (n.domain == "" || n.domain == "ai.onnx") {
		r.constantNode(n)
		return
	}
	r.infer(n)
	if folded {
		for _, v := range n.output {
			if v != nil {
				v.constant, v.defined = true, true
			}
		}
		return
	}
	task := r.tasks
	r.tasks++
	for _, v := range n.inputs {
		if v != nil && !v.constant {
			r.use(v, task)
		}
	}
	for _, v := range n.output {
		if v != nil {
			r.define(v, task)
		}
	}
}

// onnxAttr is one decoded attribute.
type onnxAttr struct {
	name   string
	i      int64
	hasI   bool
	ints   []int64
	s      string
	tensor *onnxTensor
}

// attr returns the attribute named name of n (the last, as protobuf
// readers keep); nil when absent.
func (r *onnxReader) attr(n *onnxNode, name string) *onnxAttr {
	if n.decoded == nil {
		n.decoded = r.decodeAttrs(n)
	}
	for i := len(n.decoded) - 1; i >= 0; i-- {
		if n.decoded[i].name == name {
			return &n.decoded[i]
		}
	}
	return nil
}

// decodeAttrs decodes the attributes of n.
func (r *onnxReader) decodeAttrs(n *onnxNode) []onnxAttr {
	out := make([]onnxAttr, 0, len(n.attrs))
	for _, a := range n.attrs {
		var x onnxAttr
		r.fields(a, "AttributeProto", func(f pbField) {
			switch f.num {
			case pbAttrName:
				x.name = r.str(f, "AttributeProto.name")
			case pbAttrInt:
				x.i, _ = r.varint(f, "AttributeProto.i")
				x.hasI = true
			case pbAttrInts:
				x.ints = r.int64s(f, "AttributeProto.ints", x.ints)
			case pbAttrString:
				x.s = r.str(f, "AttributeProto.s")
			case pbAttrTensor:
				if b, ok := r.bytes(f, "AttributeProto.t"); ok {
					t := r.tensor(b, "AttributeProto.t")
					x.tensor = &t
				}
			}
		})
		out = append(out, x)
	}
	return out
}

// constantNode makes the output of a Constant node a constant of the
// type and shape its value attribute gives.
func (r *onnxReader) constantNode(n *onnxNode) {
	if len(n.output) != 1 || n.output[0] == nil {
		r.failf("%s has %d outputs, want 1", n.what(), len(n.output))
		return
	}
	v := n.output[0]
	x := onnxTensor{elem: onnxUndefinedType}
	known := true
	switch {
	case r.has(n, "value"):
		if a := r.attr(n, "value"); a.tensor != nil {
			x = *a.tensor
		}
	case r.has(n, "value_int"):
		x = onnxTensor{elem: onnxTypeInt64, ints: []int64{r.attr(n, "value_int").i}}
	case r.has(n, "value_ints"):
		a := r.attr(n, "value_ints")
		x = onnxTensor{elem: onnxTypeInt64, dims: []int64{int64(len(a.ints))}, ints: a.ints}
	case r.has(n, "value_float"):
		x = onnxTensor{elem: 1}
	default:
		known = false // value_floats, value_string(s), sparse_value: no shape needed so far
	}
	declared := v.declared
	dims, rank := v.dims, v.rank
	r.setConstant(v, x)
	if !known && declared {
		v.dims, v.rank = dims, rank
	} else if !known {
		v.rank, v.dims, v.declared = onnxUnknownRank, nil, false
	}
}

// has reports whether n has an attribute named name.
func (r *onnxReader) has(n *onnxNode, name string) bool { return r.attr(n, name) != nil }

// size returns the bytes of a planned value.
func (r *onnxReader) size(v *onnxValue) (int64, error) {
	what := "value " + quote(v.name)
	if v.elem < 0 || int(v.elem) >= len(onnxTypeBits) {
		return 0, &InputError{File: r.name, Msg: fmt.Sprintf("%s has unknown element type %d (want a TensorProto.DataType, 1 to %d)", what, v.elem, len(onnxTypeBits)-1)}
	}
	if v.elem == onnxUndefinedType || v.rank == onnxUnknownRank {
		return 0, &InputError{File: r.name, Msg: fmt.Sprintf("%s has no static type and shape: the model's inputs, outputs and value_info give none, and membench infers them only for %s; export with static shapes or run onnx.shape_inference.infer_shapes on the model", what, onnxInferredOps())}
	}
	n, ok := elems(v.dims)
	hi, lo := bits.Mul64(uint64(n), uint64(onnxTypeBits[v.elem].bits))
	if !ok || hi != 0 || lo/8 > math.MaxInt64-1 {
		return 0, &InputError{File: r.name, Msg: fmt.Sprintf("%s: %s %v overflows 64 bits", what, onnxTypeBits[v.elem].name, v.dims)}
	}
	return int64((lo + 7) / 8), nil
}
