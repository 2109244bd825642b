// Package onnxbuild writes small .onnx models (protobuf ModelProto) with
// protowire's encoders, for tests and internal/hostile: the reader in
// workloads is tested against a writer that shares none of its code, and
// no model file is committed.
package onnxbuild

import (
	"encoding/binary"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of onnx.proto, by message.
const (
	modelIRVersion, modelOpsetImport, modelProducer, modelGraph = 1, 8, 2, 7
	opsetDomain, opsetVersion                                   = 1, 2
	graphNode, graphName, graphInitializer                      = 1, 2, 5
	graphInput, graphOutput, graphValueInfo                     = 11, 12, 13
	nodeInput, nodeOutput, nodeName, nodeOpType, nodeDomain     = 1, 2, 3, 4, 7
	nodeAttribute                                               = 5
	attrName, attrType, attrI, attrS, attrT, attrG, attrInts    = 1, 20, 3, 4, 5, 6, 8
	tensorDims, tensorDataType, tensorName, tensorRaw           = 1, 2, 8, 9
	tensorInt64Data                                             = 7
	valueName, valueType                                        = 1, 2
	typeTensor, typeSequence, tensorElem, tensorShape           = 1, 4, 1, 2
	shapeDim, dimValue, dimParam                                = 1, 1, 2
)

// Element types (TensorProto.DataType).
const (
	Float   = 1
	Int8    = 3
	Int64   = 7
	String  = 8
	Bool    = 9
	Float16 = 10
	Int4    = 22
)

// Model is a ModelProto of one graph.
type Model struct {
	IRVersion int64 // 0: 8
	Opset     int64 // of the default domain; 0: 17
	Graph     Graph
}

// Graph is a GraphProto.
type Graph struct {
	Nodes        []Node
	Initializers []Tensor
	Inputs       []Value
	Outputs      []Value
	ValueInfo    []Value
}

// Node is a NodeProto.
type Node struct {
	Op, Domain, Name string
	Inputs, Outputs  []string
	Attrs            []Attr
}

// Attr is an AttributeProto of one kind: I (INT), Ints (INTS), S
// (STRING), T (TENSOR) or G (GRAPH).
type Attr struct {
	Name string
	I    *int64
	Ints []int64
	S    string
	T    *Tensor
	G    *Graph
}

// Int is an INT attribute.
func Int(name string, v int64) Attr { return Attr{Name: name, I: &v} }

// Ints is an INTS attribute.
func Ints(name string, v ...int64) Attr { return Attr{Name: name, Ints: v} }

// Tensor is a TensorProto; Int64s are written to int64_data, Raw to
// raw_data.
type Tensor struct {
	Name   string
	Type   int32
	Dims   []int64
	Int64s []int64
	Raw    []byte
}

// Value is a ValueInfoProto of a tensor type; Dims nil leaves the shape
// out, and a negative dimension is written as the dim_param "N".
// Sequence makes it a sequence of such tensors.
type Value struct {
	Name     string
	Type     int32
	Dims     []int64
	Sequence bool
}

// V is a tensor Value.
func V(name string, typ int32, dims ...int64) Value {
	if dims == nil {
		dims = []int64{}
	}
	return Value{Name: name, Type: typ, Dims: dims}
}

// Bytes encodes the model.
func (m Model) Bytes() []byte {
	ir, opset := m.IRVersion, m.Opset
	if ir == 0 {
		ir = 8
	}
	if opset == 0 {
		opset = 17
	}
	var b []byte
	b = varint(b, modelIRVersion, uint64(ir))
	b = str(b, modelProducer, "onnxbuild")
	b = msg(b, modelGraph, m.Graph.bytes())
	var o []byte
	o = str(o, opsetDomain, "")
	o = varint(o, opsetVersion, uint64(opset))
	return msg(b, modelOpsetImport, o)
}

func (g Graph) bytes() []byte {
	var b []byte
	for _, n := range g.Nodes {
		b = msg(b, graphNode, n.bytes())
	}
	b = str(b, graphName, "g")
	for _, t := range g.Initializers {
		b = msg(b, graphInitializer, t.Bytes())
	}
	for _, l := range []struct {
		field protowire.Number
		vs    []Value
	}{{graphInput, g.Inputs}, {graphOutput, g.Outputs}, {graphValueInfo, g.ValueInfo}} {
		for _, v := range l.vs {
			b = msg(b, l.field, v.bytes())
		}
	}
	return b
}

func (n Node) bytes() []byte {
	var b []byte
	for _, s := range n.Inputs {
		b = str(b, nodeInput, s)
	}
	for _, s := range n.Outputs {
		b = str(b, nodeOutput, s)
	}
	if n.Name != "" {
		b = str(b, nodeName, n.Name)
	}
	b = str(b, nodeOpType, n.Op)
	if n.Domain != "" {
		b = str(b, nodeDomain, n.Domain)
	}
	for _, a := range n.Attrs {
		b = msg(b, nodeAttribute, a.bytes())
	}
	return b
}

func (a Attr) bytes() []byte {
	b := str(nil, attrName, a.Name)
	switch {
	case a.I != nil:
		b = varint(b, attrI, uint64(*a.I))
		b = varint(b, attrType, 2)
	case a.Ints != nil:
		b = packed(b, attrInts, a.Ints)
		b = varint(b, attrType, 7)
	case a.T != nil:
		b = msg(b, attrT, a.T.Bytes())
		b = varint(b, attrType, 4)
	case a.G != nil:
		b = msg(b, attrG, a.G.bytes())
		b = varint(b, attrType, 5)
	default:
		b = str(b, attrS, a.S)
		b = varint(b, attrType, 3)
	}
	return b
}

// Bytes encodes the tensor.
func (t Tensor) Bytes() []byte {
	var b []byte
	if len(t.Dims) > 0 {
		b = packed(b, tensorDims, t.Dims)
	}
	b = varint(b, tensorDataType, uint64(t.Type))
	if t.Int64s != nil {
		b = packed(b, tensorInt64Data, t.Int64s)
	}
	b = str(b, tensorName, t.Name)
	if t.Raw != nil {
		b = msg(b, tensorRaw, t.Raw)
	}
	return b
}

func (v Value) bytes() []byte {
	var tt []byte
	tt = varint(tt, tensorElem, uint64(v.Type))
	if v.Dims != nil {
		var shape []byte
		for _, d := range v.Dims {
			var dim []byte
			if d < 0 {
				dim = str(dim, dimParam, "N")
			} else {
				dim = varint(dim, dimValue, uint64(d))
			}
			shape = msg(shape, shapeDim, dim)
		}
		tt = msg(tt, tensorShape, shape)
	}
	typ := msg(nil, typeTensor, tt)
	if v.Sequence {
		typ = msg(nil, typeSequence, msg(nil, 1, typ)) // Sequence.elem_type
	}
	b := str(nil, valueName, v.Name)
	return msg(b, valueType, typ)
}

// Floats is the raw_data of n float32 zeros.
func Floats(n int) []byte { return make([]byte, 4*n) }

// Int64Raw is the raw_data of int64 values, little-endian.
func Int64Raw(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func varint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func str(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func msg(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

func packed(b []byte, num protowire.Number, v []int64) []byte {
	var p []byte
	for _, x := range v {
		p = protowire.AppendVarint(p, uint64(x))
	}
	return msg(b, num, p)
}
