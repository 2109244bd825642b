// Package tflitebuild writes small .tflite models with the FlatBuffers
// library's own builder, for tests: the reader in workloads is tested
// against a writer that shares none of its code, and tests that need a
// model file write one to a temporary folder rather than commit it.
package tflitebuild

import flatbuffers "github.com/google/flatbuffers/go"

// Field slots of TFLite's schema (schema.fbs), by table.
const (
	modelVersion, modelSubgraphs, modelBuffers                             = 0, 2, 4
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

// Op is one operator: its input, output and intermediate tensor indices.
type Op struct{ In, Out, Inter []int32 }

// Model is a one-subgraph model.
type Model struct {
	Tensors         []Tensor
	Inputs, Outputs []int32
	Ops             []Op
	// Buffers holds each buffer's data; buffer 0 is conventionally empty.
	Buffers [][]byte
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
	var ops []flatbuffers.UOffsetT
	for _, o := range m.Ops {
		in, out, inter := Ints(b, o.In), Ints(b, o.Out), Ints(b, o.Inter)
		b.StartObject(9)
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
	sg := b.EndObject()
	subs, bv := Tables(b, []flatbuffers.UOffsetT{sg}), Tables(b, bufs)
	b.StartObject(5)
	b.PrependUint32Slot(modelVersion, 3, 0)
	b.PrependUOffsetTSlot(modelSubgraphs, subs, 0)
	b.PrependUOffsetTSlot(modelBuffers, bv, 0)
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
