package workloads

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"membench/internal/hostile"
	"membench/internal/tflitebuild"
)

// sampleModel exercises every lifetime rule: graph input, constant weight,
// chained activations, an intermediate, an omitted optional input, a
// variable, an unread output of an operator, a graph output, a string
// tensor, a scalar and a packed INT4 tensor.
func sampleModel() tflitebuild.Model {
	return tflitebuild.Model{
		Tensors: []tflitebuild.Tensor{
			{Shape: []int32{1, 8, 8, 3}, Name: "input"},                   // 0 f32: 768 B
			{Shape: []int32{3, 3, 3, 4}, Buffer: 1, Name: "weights"},      // 1 constant
			{Shape: []int32{1, 8, 8, 4}, Type: 9, Name: "conv"},           // 2 int8: 256 B
			{Shape: []int32{16}, Type: 1, Name: "scratch"},                // 3 f16 intermediate: 32 B
			{Shape: []int32{4}, Type: 2, Name: "state", Variable: true},   // 4 int32 variable: 16 B
			{Shape: []int32{1, 4}, Name: "unread"},                        // 5 f32: 16 B
			{Shape: []int32{1, 4}, Type: 18, Name: "output"},              // 6 bf16: 8 B
			{Shape: []int32{2}, Type: 5, Name: "strings"},                 // 7 STRING: not planned
			{Shape: nil, Type: 4, Name: "scalar"},                         // 8 int64 scalar: 8 B
			{Shape: []int32{3, 3}, Type: 17, Name: "packed"},              // 9 INT4: 9 nibbles = 5 B
			{Shape: []int32{7}, Name: "untouched"},                        // 10 no operator: not planned
			{Shape: []int32{5}, Type: 3, Buffer: 2, Name: "empty buffer"}, // 11 buffer without data: planned
		},
		Inputs:  []int32{0},
		Outputs: []int32{6},
		Ops: []tflitebuild.Op{
			{In: []int32{0, 1, -1}, Out: []int32{2}, Inter: []int32{3}},
			{In: []int32{2, 4}, Out: []int32{5, 7, 8}},
			{In: []int32{2, 8}, Out: []int32{9, 11}},
			{In: []int32{9, 11}, Out: []int32{6}},
		},
		Buffers: [][]byte{nil, make([]byte, 108*4), nil},
	}
}

func TestReadTFLiteModel(t *testing.T) {
	data := sampleModel().Build()
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
	data := sampleModel().Build()
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
		m    func(*tflitebuild.Model)
		want string
	}{
		{"tensor index", func(m *tflitebuild.Model) { m.Ops[0].Out = []int32{99} }, "x.tflite: operator 0 names tensor 99, but subgraph 0 has 12 tensors"},
		{"input index", func(m *tflitebuild.Model) { m.Inputs = []int32{-5} }, "x.tflite: SubGraph.inputs names tensor -5, but subgraph 0 has 12 tensors"},
		{"type", func(m *tflitebuild.Model) { m.Tensors[0].Type = 42 }, `x.tflite: tensor 0 ("input") has unknown type 42 (want a TensorType of schema.fbs, 0 to 22)`},
		{"dynamic", func(m *tflitebuild.Model) { m.Tensors[2].Shape = []int32{1, -1} }, `x.tflite: tensor 2 ("conv") has dimension -1 in its shape [1 -1]: a dynamic shape has no size to plan`},
		{"buffer", func(m *tflitebuild.Model) { m.Tensors[2].Buffer = 7 }, `x.tflite: tensor 2 ("conv") names buffer 7, but the model has 3 buffers`},
	}
	for _, c := range cases {
		m := sampleModel()
		c.m(&m)
		_, err := parseTFLiteModel(m.Build(), "x.tflite")
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
	f.Add(sampleModel().Build())
	f.Add(sampleModel().WithOfflinePlan(planOf(12, map[int]int32{0: 0, 4: 1024})).Build())
	f.Add(hostile.TFLiteSharedInputs(100))
	f.Add(hostile.TFLiteSharedShape(100))
	f.Add(gpuModel().Build())
	f.Fuzz(func(t *testing.T, data []byte) {
		// The interpreter's records, and the GPU delegate's in bytes,
		// 2D textures and BHWC shapes (ReadTFLiteGPU).
		for _, st := range []GPUStorage{GPUNone, GPUBuffer, GPUTexture2D, GPUBHWC} {
			p, err := ReadTFLiteGPU(data, "fuzz.tflite", GPUOptions{Storage: st})
			if err != nil {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("storage=%s: not an InputError: %v", st, err)
				}
				continue
			}
			if err := checkProblem(p); err != nil {
				t.Fatalf("storage=%s: reader returned an invalid problem: %v", st, err)
			}
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

// TestStatefulModel: the variable tensor is persistent, the rest planned;
// the committed fixture is this model's bytes.
func TestStatefulModel(t *testing.T) {
	const path = "stateful.tflite"
	data := tflitebuild.Stateful().Build()
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
	p, err := parseTFLiteModel(tflitebuild.Stateful().Build(), "s.tflite")
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

// planOf returns n offline offsets, all -1 but those in set.
func planOf(n int, set map[int]int32) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = -1
		if o, ok := set[i]; ok {
			out[i] = o
		}
	}
	return out
}

// TestReadTFLiteModelOfflinePlan: an OfflineMemoryAllocation metadata
// buffer gives Problem.Fixed, -1 meaning "plan it"; a variable with an
// offset is planned in the arena from task 0 to its last operator, as
// TFLite Micro does; offsets of tensors that are not planned (constants,
// untouched) are dropped with them; the plan counts every subgraph's
// tensors.
func TestReadTFLiteModelOfflinePlan(t *testing.T) {
	m := sampleModel()
	m.ExtraSubgraphs = []int{2}
	m = m.WithOfflinePlan(planOf(14, map[int]int32{0: 0, 1: 64, 4: 1024, 6: 2048, 10: 4096, 13: 8}))
	p, err := parseTFLiteModel(m.Build(), "o.tflite")
	if err != nil {
		t.Fatal(err)
	}
	wantBufs := []Buffer{
		{ID: 0, Size: 768, First: 0, Last: 0},
		{ID: 2, Size: 256, First: 0, Last: 2},
		{ID: 3, Size: 32, First: 0, Last: 0},
		{ID: 4, Size: 16, First: 0, Last: 1},
		{ID: 5, Size: 16, First: 1, Last: 1},
		{ID: 6, Size: 8, First: 3, Last: 3},
		{ID: 8, Size: 8, First: 1, Last: 2},
		{ID: 9, Size: 5, First: 2, Last: 3},
		{ID: 11, Size: 5, First: 2, Last: 3},
	}
	if !slices.Equal(p.Buffers, wantBufs) {
		t.Errorf("buffers %+v, want %+v", p.Buffers, wantBufs)
	}
	if want := []int64{0, -1, -1, 1024, -1, 2048, -1, -1, -1}; !slices.Equal(p.Fixed, want) {
		t.Errorf("fixed %v, want %v", p.Fixed, want)
	}
	if len(p.Persistent) != 0 {
		t.Errorf("persistent %+v, want none: the variable is offline planned", p.Persistent)
	}
	if p.Forms() != FormFixed {
		t.Errorf("forms %v, want %v", p.Forms(), FormFixed)
	}

	// A plan of all -1 is no plan: no form.
	p, err = parseTFLiteModel(sampleModel().WithOfflinePlan(planOf(12, nil)).Build(), "o.tflite")
	if err != nil || p.Fixed != nil || len(p.Persistent) != 1 {
		t.Errorf("all -1: fixed %v persistent %v, err %v; want no fixed offsets and the variable persistent", p.Fixed, p.Persistent, err)
	}
	// Another metadata name is not the plan.
	other := sampleModel().WithOfflinePlan(planOf(12, map[int]int32{0: 0}))
	other.Metadata[0].Name = "OfflineMemoryAllocationX"
	if p, err := parseTFLiteModel(other.Build(), "o.tflite"); err != nil || p.Fixed != nil {
		t.Errorf("other name: fixed %v, err %v", p.Fixed, err)
	}
}

func TestReadTFLiteModelOfflinePlanMalformed(t *testing.T) {
	short := sampleModel().WithOfflinePlan(planOf(12, nil))
	short.Buffers[len(short.Buffers)-1] = short.Buffers[len(short.Buffers)-1][:20]
	tiny := sampleModel().WithOfflinePlan(nil)
	tiny.Buffers[len(tiny.Buffers)-1] = tiny.Buffers[len(tiny.Buffers)-1][:8]
	badBuf := sampleModel().WithOfflinePlan(planOf(12, nil))
	badBuf.Metadata[0].Buffer = 9
	cases := []struct {
		name string
		m    tflitebuild.Model
		want string
	}{
		{"count", sampleModel().WithOfflinePlan(planOf(11, nil)),
			"x.tflite: metadata 0 (OfflineMemoryAllocation): holds 11 offsets, but the model has 12 tensors in all its subgraphs: want one offset per tensor"},
		{"short", short, "x.tflite: metadata 0 (OfflineMemoryAllocation): buffer 3 holds 20 bytes: want 60 (12 and 4 per offset for 12 offsets)"},
		{"tiny", tiny, "x.tflite: metadata 0 (OfflineMemoryAllocation): buffer 3 holds 8 bytes: want at least 12 (version, subgraph, number of offsets)"},
		{"negative", sampleModel().WithOfflinePlan(planOf(12, map[int]int32{2: -2})),
			"x.tflite: metadata 0 (OfflineMemoryAllocation): tensor 2 has offset -2: want -1 (plan it) or an offset of at least 0"},
		{"buffer", badBuf, "x.tflite: metadata 0 (OfflineMemoryAllocation): names buffer 9, but the model has 4 buffers"},
	}
	for _, c := range cases {
		_, err := parseTFLiteModel(c.m.Build(), "x.tflite")
		var ie *InputError
		if err == nil || err.Error() != c.want || !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
}
