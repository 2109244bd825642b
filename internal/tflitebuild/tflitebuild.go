// Package tflitebuild writes small .tflite models with the FlatBuffers
// library's own builder, for tests: the reader in workloads is tested
// against a writer that shares none of its code, and tests that need a
// model file write one to a temporary folder rather than commit it.
package tflitebuild

import (
	"encoding/binary"
	"slices"

	flatbuffers "github.com/google/flatbuffers/go"
)

// Field slots of TFLite's schema (schema.fbs), by table.
const (
	modelVersion, modelOperatorCodes, modelSubgraphs, modelBuffers         = 0, 1, 2, 4
	modelMetadata, operatorOpcodeIndex                                     = 6, 0
	opcodeDeprecatedBuiltin, opcodeBuiltin                                 = 0, 3
	metadataName, metadataBuffer                                           = 0, 1
	subgraphTensors, subgraphInputs, subgraphOutputs, subgraphOperators    = 0, 1, 2, 3
	tensorShape, tensorType, tensorBuffer, tensorName, tensorIsVariable    = 0, 1, 2, 3, 5
	operatorInputs, operatorOutputs, operatorIntermediates, bufferDataSlot = 1, 2, 8, 0
)

// Tensor is one tensor of subgraph 0.
type Tensor struct {
	Shape    []int32
	Type     int8 // TensorType: 0 float32, 9 int8, ...
	Buffer   uint32
	Name     string
	Variable bool
}

// Op is one operator: its input, output and intermediate tensor indices,
// and its BuiltinOperator code (0, ADD, unless set: 6 is DEQUANTIZE).
type Op struct {
	In, Out, Inter []int32
	Code           int32
}

// Model is a one-subgraph model.
type Model struct {
	Tensors         []Tensor
	Inputs, Outputs []int32
	Ops             []Op
	// Buffers holds each buffer's data; buffer 0 is conventionally empty.
	Buffers [][]byte
	// Metadata are the model's metadata entries (Model.metadata).
	Metadata []Metadata
	// ExtraSubgraphs adds that many subgraphs after subgraph 0, each with
	// the given number of tensors and no operator (control-flow bodies:
	// TFLite Micro counts their tensors in an offline plan).
	ExtraSubgraphs []int
}

// Metadata is one entry of Model.metadata: a name and the index of the
// buffer holding its data.
type Metadata struct {
	Name   string
	Buffer uint32
}

// OfflinePlanName is the metadata name of TFLite Micro's offline memory
// plan.
const OfflinePlanName = "OfflineMemoryAllocation"

// OfflinePlan returns the data of an OfflineMemoryAllocation metadata
// buffer as TFLite Micro reads it (micro_allocation_info.cc,
// GetOfflinePlannedOffsets): little-endian 32-bit words, the version, the
// subgraph, the number of offsets, then one offset per tensor of every
// subgraph in order, -1 for "plan this one online".
func OfflinePlan(offsets []int32) []byte {
	out := binary.LittleEndian.AppendUint32(nil, 0)
	out = binary.LittleEndian.AppendUint32(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(offsets)))
	for _, o := range offsets {
		out = binary.LittleEndian.AppendUint32(out, uint32(o))
	}
	return out
}

// WithOfflinePlan returns m with an OfflineMemoryAllocation metadata entry
// holding offsets, in a buffer of its own appended to m.Buffers.
func (m Model) WithOfflinePlan(offsets []int32) Model {
	m.Buffers = append(slices.Clone(m.Buffers), OfflinePlan(offsets))
	m.Metadata = append(slices.Clone(m.Metadata), Metadata{Name: OfflinePlanName, Buffer: uint32(len(m.Buffers) - 1)})
	return m
}

// Ints writes v as a vector of int32.
func Ints(b *flatbuffers.Builder, v []int32) flatbuffers.UOffsetT {
	b.StartVector(4, len(v), 4)
	for i := len(v) - 1; i >= 0; i-- {
		b.PrependInt32(v[i])
	}
	return b.EndVector(len(v))
}

// Tables writes offs as a vector of tables.
func Tables(b *flatbuffers.Builder, offs []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	b.StartVector(4, len(offs), 4)
	for i := len(offs) - 1; i >= 0; i-- {
		b.PrependUOffsetT(offs[i])
	}
	return b.EndVector(len(offs))
}

// Build returns the model's bytes.
func (m Model) Build() []byte {
	b := flatbuffers.NewBuilder(1024)
	var bufs []flatbuffers.UOffsetT
	for _, d := range m.Buffers {
		var dv flatbuffers.UOffsetT
		if len(d) > 0 {
			dv = b.CreateByteVector(d)
		}
		b.StartObject(3)
		if len(d) > 0 {
			b.PrependUOffsetTSlot(bufferDataSlot, dv, 0)
		}
		bufs = append(bufs, b.EndObject())
	}
	var tens []flatbuffers.UOffsetT
	for _, t := range m.Tensors {
		shape, name := Ints(b, t.Shape), b.CreateString(t.Name)
		b.StartObject(10)
		b.PrependUOffsetTSlot(tensorShape, shape, 0)
		b.PrependInt8Slot(tensorType, t.Type, 0)
		b.PrependUint32Slot(tensorBuffer, t.Buffer, 0)
		b.PrependUOffsetTSlot(tensorName, name, 0)
		b.PrependBoolSlot(tensorIsVariable, t.Variable, false)
		tens = append(tens, b.EndObject())
	}
	// One operator code per distinct code, in order of first use, each
	// with both code fields as converters write them.
	var codes []int32
	for _, o := range m.Ops {
		if !slices.Contains(codes, o.Code) {
			codes = append(codes, o.Code)
		}
	}
	var ocs []flatbuffers.UOffsetT
	for _, c := range codes {
		b.StartObject(4)
		b.PrependInt8Slot(opcodeDeprecatedBuiltin, int8(min(c, 127)), 0)
		b.PrependInt32Slot(opcodeBuiltin, c, 0)
		ocs = append(ocs, b.EndObject())
	}
	var ops []flatbuffers.UOffsetT
	for _, o := range m.Ops {
		in, out, inter := Ints(b, o.In), Ints(b, o.Out), Ints(b, o.Inter)
		b.StartObject(9)
		if k := slices.Index(codes, o.Code); k > 0 {
			b.PrependUint32Slot(operatorOpcodeIndex, uint32(k), 0)
		}
		b.PrependUOffsetTSlot(operatorInputs, in, 0)
		b.PrependUOffsetTSlot(operatorOutputs, out, 0)
		if len(o.Inter) > 0 {
			b.PrependUOffsetTSlot(operatorIntermediates, inter, 0)
		}
		ops = append(ops, b.EndObject())
	}
	tv, iv, ov, opv := Tables(b, tens), Ints(b, m.Inputs), Ints(b, m.Outputs), Tables(b, ops)
	b.StartObject(5)
	b.PrependUOffsetTSlot(subgraphTensors, tv, 0)
	b.PrependUOffsetTSlot(subgraphInputs, iv, 0)
	b.PrependUOffsetTSlot(subgraphOutputs, ov, 0)
	b.PrependUOffsetTSlot(subgraphOperators, opv, 0)
	sgs := []flatbuffers.UOffsetT{b.EndObject()}
	for _, n := range m.ExtraSubgraphs {
		var ts []flatbuffers.UOffsetT
		for range n {
			shape := Ints(b, []int32{1})
			b.StartObject(10)
			b.PrependUOffsetTSlot(tensorShape, shape, 0)
			ts = append(ts, b.EndObject())
		}
		tv := Tables(b, ts)
		b.StartObject(5)
		b.PrependUOffsetTSlot(subgraphTensors, tv, 0)
		sgs = append(sgs, b.EndObject())
	}
	var metas []flatbuffers.UOffsetT
	for _, md := range m.Metadata {
		name := b.CreateString(md.Name)
		b.StartObject(2)
		b.PrependUOffsetTSlot(metadataName, name, 0)
		b.PrependUint32Slot(metadataBuffer, md.Buffer, 0)
		metas = append(metas, b.EndObject())
	}
	subs, bv := Tables(b, sgs), Tables(b, bufs)
	var cv flatbuffers.UOffsetT
	if len(ocs) > 0 {
		cv = Tables(b, ocs)
	}
	var mv flatbuffers.UOffsetT
	if len(metas) > 0 {
		mv = Tables(b, metas)
	}
	b.StartObject(8)
	b.PrependUint32Slot(modelVersion, 3, 0)
	b.PrependUOffsetTSlot(modelSubgraphs, subs, 0)
	if len(ocs) > 0 {
		b.PrependUOffsetTSlot(modelOperatorCodes, cv, 0)
	}
	b.PrependUOffsetTSlot(modelBuffers, bv, 0)
	if len(metas) > 0 {
		b.PrependUOffsetTSlot(modelMetadata, mv, 0)
	}
	b.FinishWithFileIdentifier(b.EndObject(), []byte("TFL3"))
	return b.FinishedBytes()
}

// Stateful is a small model with a variable tensor (a recurrent state, as
// in TFLite Micro's keyword benchmark): input 10 B at operator 0, state
// 40 B (variable), hidden 20 B over operators 0-1, output 4 B at 1.
func Stateful() Model {
	return Model{
		Tensors: []Tensor{
			{Shape: []int32{1, 10}, Type: 9, Name: "input"},
			{Shape: []int32{10, 20}, Type: 9, Buffer: 1, Name: "weights"},
			{Shape: []int32{1, 40}, Type: 9, Name: "state", Variable: true},
			{Shape: []int32{1, 20}, Type: 9, Name: "hidden"},
			{Shape: []int32{1, 4}, Type: 9, Name: "output"},
		},
		Inputs:  []int32{0},
		Outputs: []int32{4},
		Ops: []Op{
			{In: []int32{0, 1, 2}, Out: []int32{3}},
			{In: []int32{3}, Out: []int32{4}},
		},
		Buffers: [][]byte{nil, make([]byte, 200)},
	}
}
