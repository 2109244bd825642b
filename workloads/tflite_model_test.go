package workloads

import (
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"membench/internal/hostile"
)

// fbTensor and fbOp describe a model to build with the FlatBuffers
// library's own builder, so that the reader is tested against an
// independent writer.
type fbTensor struct {
	shape    []int32
	typ      int8
	buffer   uint32
	name     string
	variable bool
}

type fbOp struct{ in, out, inter []int32 }

type fbModel struct {
	tensors         []fbTensor
	inputs, outputs []int32
	ops             []fbOp
	// buffers holds each buffer's data; buffer 0 is conventionally empty.
	buffers [][]byte
}

func (m fbModel) build() []byte {
	b := flatbuffers.NewBuilder(1024)
	ints := func(v []int32) flatbuffers.UOffsetT {
		b.StartVector(4, len(v), 4)
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependInt32(v[i])
		}
		return b.EndVector(len(v))
	}
	tables := func(offs []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
		b.StartVector(4, len(offs), 4)
		for i := len(offs) - 1; i >= 0; i-- {
			b.PrependUOffsetT(offs[i])
		}
		return b.EndVector(len(offs))
	}
	var bufs []flatbuffers.UOffsetT
	for _, d := range m.buffers {
		var dv flatbuffers.UOffsetT
		if len(d) > 0 {
			dv = b.CreateByteVector(d)
		}
		b.StartObject(3)
		if len(d) > 0 {
			b.PrependUOffsetTSlot(fbBufferData, dv, 0)
		}
		bufs = append(bufs, b.EndObject())
	}
	var tens []flatbuffers.UOffsetT
	for _, t := range m.tensors {
		shape, name := ints(t.shape), b.CreateString(t.name)
		b.StartObject(10)
		b.PrependUOffsetTSlot(fbTensorShape, shape, 0)
		b.PrependInt8Slot(fbTensorType, t.typ, 0)
		b.PrependUint32Slot(fbTensorBuffer, t.buffer, 0)
		b.PrependUOffsetTSlot(fbTensorName, name, 0)
		b.PrependBoolSlot(fbTensorVariable, t.variable, false)
		tens = append(tens, b.EndObject())
	}
	var ops []flatbuffers.UOffsetT
	for _, o := range m.ops {
		in, out, inter := ints(o.in), ints(o.out), ints(o.inter)
		b.StartObject(9)
		b.PrependUOffsetTSlot(fbOperatorInputs, in, 0)
		b.PrependUOffsetTSlot(fbOperatorOutputs, out, 0)
		if len(o.inter) > 0 {
			b.PrependUOffsetTSlot(fbOperatorIntermediates, inter, 0)
		}
		ops = append(ops, b.EndObject())
	}
	tv, iv, ov, opv := tables(tens), ints(m.inputs), ints(m.outputs), tables(ops)
	b.StartObject(5)
	b.PrependUOffsetTSlot(fbSubgraphTensors, tv, 0)
	b.PrependUOffsetTSlot(fbSubgraphInputs, iv, 0)
	b.PrependUOffsetTSlot(fbSubgraphOutputs, ov, 0)
	b.PrependUOffsetTSlot(fbSubgraphOperators, opv, 0)
	sg := b.EndObject()
	subs, bv := tables([]flatbuffers.UOffsetT{sg}), tables(bufs)
	b.StartObject(5)
	b.PrependUint32Slot(0, 3, 0)
	b.PrependUOffsetTSlot(fbModelSubgraphs, subs, 0)
	b.PrependUOffsetTSlot(fbModelBuffers, bv, 0)
	b.FinishWithFileIdentifier(b.EndObject(), []byte("TFL3"))
	return b.FinishedBytes()
}

// sampleModel exercises every lifetime rule: graph input, constant weight,
// chained activations, an intermediate, an omitted optional input, a
// variable, an unread output of an operator, a graph output, a string
// tensor, a scalar and a packed INT4 tensor.
func sampleModel() fbModel {
	return fbModel{
		tensors: []fbTensor{
			{shape: []int32{1, 8, 8, 3}, name: "input"},                  // 0 f32: 768 B
			{shape: []int32{3, 3, 3, 4}, buffer: 1, name: "weights"},     // 1 constant
			{shape: []int32{1, 8, 8, 4}, typ: 9, name: "conv"},           // 2 int8: 256 B
			{shape: []int32{16}, typ: 1, name: "scratch"},                // 3 f16 intermediate: 32 B
			{shape: []int32{4}, typ: 2, name: "state", variable: true},   // 4 int32 variable: 16 B
			{shape: []int32{1, 4}, name: "unread"},                       // 5 f32: 16 B
			{shape: []int32{1, 4}, typ: 18, name: "output"},              // 6 bf16: 8 B
			{shape: []int32{2}, typ: 5, name: "strings"},                 // 7 STRING: not planned
			{shape: nil, typ: 4, name: "scalar"},                         // 8 int64 scalar: 8 B
			{shape: []int32{3, 3}, typ: 17, name: "packed"},              // 9 INT4: 9 nibbles = 5 B
			{shape: []int32{7}, name: "untouched"},                       // 10 no operator: not planned
			{shape: []int32{5}, typ: 3, buffer: 2, name: "empty buffer"}, // 11 buffer without data: planned
		},
		inputs:  []int32{0},
		outputs: []int32{6},
		ops: []fbOp{
			{in: []int32{0, 1, -1}, out: []int32{2}, inter: []int32{3}},
			{in: []int32{2, 4}, out: []int32{5, 7, 8}},
			{in: []int32{2, 8}, out: []int32{9, 11}},
			{in: []int32{9, 11}, out: []int32{6}},
		},
		buffers: [][]byte{nil, make([]byte, 108*4), nil},
	}
}

func TestReadTFLiteModel(t *testing.T) {
	data := sampleModel().build()
	w, err := LoadBytes(data, "m.tflite")
	if err != nil {
		t.Fatal(err)
	}
	if w.Format != FormatTFLiteModel {
		t.Fatalf("sniffed %s", w.Format)
	}
	want := []Buffer{
		{ID: 0, Size: 768, First: 0, Last: 0},
		{ID: 2, Size: 256, First: 0, Last: 2},
		{ID: 3, Size: 32, First: 0, Last: 0},
		{ID: 5, Size: 16, First: 1, Last: 1},
		{ID: 6, Size: 8, First: 3, Last: 3},
		{ID: 8, Size: 8, First: 1, Last: 2},
		{ID: 9, Size: 5, First: 2, Last: 3},
		{ID: 11, Size: 5, First: 2, Last: 3},
	}
	got := w.Problem.Buffers
	if len(got) != len(want) {
		t.Fatalf("got %d buffers %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("buffer %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// The variable tensor is TFLite's persistent memory, not the arena's:
	// kept apart, spanning the run, and the problem says where it came from.
	p := w.Problem
	if wantP := []Buffer{{ID: 4, Size: 16, First: 0, Last: 3}}; !slices.Equal(p.Persistent, wantP) {
		t.Errorf("persistent %+v, want %+v", p.Persistent, wantP)
	}
	if p.PersistentBytes() != 16 || p.Format != FormatTFLiteModel {
		t.Errorf("persistent bytes %d, format %q; want 16, %q", p.PersistentBytes(), p.Format, FormatTFLiteModel)
	}
}

// TestReadTFLiteModelMalformed checks that every truncation and a set of
// corruptions of a valid model give an InputError naming the file, never a
// panic.
func TestReadTFLiteModelMalformed(t *testing.T) {
	data := sampleModel().build()
	for n := 8; n < len(data); n++ {
		_, err := parseTFLiteModel(data[:n], "cut.tflite")
		if err == nil {
			continue // a prefix can still be a whole model when the tail is padding
		}
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != "cut.tflite" {
			t.Fatalf("prefix %d: %v is not an InputError naming the file", n, err)
		}
	}
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0xff
		if _, err := parseTFLiteModel(bad, "flip.tflite"); err != nil && !strings.HasPrefix(err.Error(), "flip.tflite: ") {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	cases := []struct {
		name string
		m    func(*fbModel)
		want string
	}{
		{"tensor index", func(m *fbModel) { m.ops[0].out = []int32{99} }, "x.tflite: operator 0 names tensor 99, but subgraph 0 has 12 tensors"},
		{"input index", func(m *fbModel) { m.inputs = []int32{-5} }, "x.tflite: SubGraph.inputs names tensor -5, but subgraph 0 has 12 tensors"},
		{"type", func(m *fbModel) { m.tensors[0].typ = 42 }, `x.tflite: tensor 0 ("input") has unknown type 42 (want a TensorType of schema.fbs, 0 to 22)`},
		{"dynamic", func(m *fbModel) { m.tensors[2].shape = []int32{1, -1} }, `x.tflite: tensor 2 ("conv") has dimension -1 in its shape [1 -1]: a dynamic shape has no size to plan`},
		{"buffer", func(m *fbModel) { m.tensors[2].buffer = 7 }, `x.tflite: tensor 2 ("conv") names buffer 7, but the model has 3 buffers`},
	}
	for _, c := range cases {
		m := sampleModel()
		c.m(&m)
		_, err := parseTFLiteModel(m.build(), "x.tflite")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
	if _, err := parseTFLiteModel([]byte("\x10\x00\x00\x00TFL3\xff\xff\xff\xff"), "t.tflite"); err == nil ||
		!strings.HasPrefix(err.Error(), "t.tflite: byte ") {
		t.Errorf("garbage after the identifier: %v", err)
	}
}

func FuzzTFLiteModel(f *testing.F) {
	f.Add(sampleModel().build())
	f.Add(hostile.TFLiteSharedInputs(100))
	f.Add(hostile.TFLiteSharedShape(100))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseTFLiteModel(data, "fuzz.tflite")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("not an InputError: %v", err)
			}
			return
		}
		if err := checkProblem(p); err != nil {
			t.Fatalf("reader returned an invalid problem: %v", err)
		}
	})
}

// BenchmarkReadTFLiteModel reads the largest shared model (6.4 MB).
func BenchmarkReadTFLiteModel(b *testing.B) {
	data, err := os.ReadFile("../../shared/models/tflite/pose_landmark_full.tflite")
	if err != nil {
		b.Skipf("shared model absent: %v", err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parseTFLiteModel(data, "pose_landmark_full.tflite"); err != nil {
			b.Fatal(err)
		}
	}
}

// statefulModel is a small model with a variable tensor (a recurrent
// state, as in TFLite Micro's keyword benchmark): testdata/stateful.tflite
// holds its bytes for the command-line tests.
func statefulModel() fbModel {
	return fbModel{
		tensors: []fbTensor{
			{shape: []int32{1, 10}, typ: 9, name: "input"},                 // 0 int8: 10 B
			{shape: []int32{10, 20}, typ: 9, buffer: 1, name: "weights"},   // 1 constant
			{shape: []int32{1, 40}, typ: 9, name: "state", variable: true}, // 2 int8 variable: 40 B
			{shape: []int32{1, 20}, typ: 9, name: "hidden"},                // 3 int8: 20 B
			{shape: []int32{1, 4}, typ: 9, name: "output"},                 // 4 int8: 4 B
		},
		inputs:  []int32{0},
		outputs: []int32{4},
		ops: []fbOp{
			{in: []int32{0, 1, 2}, out: []int32{3}},
			{in: []int32{3}, out: []int32{4}},
		},
		buffers: [][]byte{nil, make([]byte, 200)},
	}
}

var updateStateful = flag.Bool("update-stateful", false, "rewrite testdata/stateful.tflite")

// TestStatefulModel: the variable tensor is persistent, the rest planned;
// the committed fixture is this model's bytes.
func TestStatefulModel(t *testing.T) {
	const path = "testdata/stateful.tflite"
	data := statefulModel().build()
	if *updateStateful {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(committed, data) {
		t.Fatalf("%s differs from statefulModel(): rerun with -update-stateful", path)
	}
	w, err := LoadBytes(data, path)
	if err != nil {
		t.Fatal(err)
	}
	p := w.Problem
	wantBufs := []Buffer{{ID: 0, Size: 10, First: 0, Last: 0}, {ID: 3, Size: 20, First: 0, Last: 1}, {ID: 4, Size: 4, First: 1, Last: 1}}
	wantPers := []Buffer{{ID: 2, Size: 40, First: 0, Last: 1}}
	if !slices.Equal(p.Buffers, wantBufs) || !slices.Equal(p.Persistent, wantPers) {
		t.Errorf("buffers %+v, persistent %+v; want %+v, %+v", p.Buffers, p.Persistent, wantBufs, wantPers)
	}
}

// TestPersistentJSON: a model's persistent tensors survive conversion to
// membench JSON and back; a label on one is refused.
func TestPersistentJSON(t *testing.T) {
	p, err := parseTFLiteModel(statefulModel().build(), "s.tflite")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteJSON(&out, p); err != nil {
		t.Fatal(err)
	}
	const want = `  "persistent": [
    {"id": 2, "size": 40, "first": 0, "last": 1}
  ]
}
`
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("JSON ends\n%s\nwant\n%s", out.String(), want)
	}
	back, err := parseJSON([]byte(out.String()), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Buffers, p.Buffers) || !slices.Equal(back.Persistent, p.Persistent) {
		t.Errorf("round trip: %+v / %+v, want %+v / %+v", back.Buffers, back.Persistent, p.Buffers, p.Persistent)
	}
	_, err = parseJSON([]byte(`{"buffers": [], "persistent": [{"label": "x", "size": 1, "first": 0, "last": 0}]}`), "l.json")
	if err == nil || err.Error() != "l.json:1: persistent buffer 0: persistent buffers take no label" {
		t.Errorf("labelled persistent buffer: %v", err)
	}
}
