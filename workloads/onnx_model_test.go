package workloads

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"membench/internal/hostile"
	ob "membench/internal/onnxbuild"
)

// tinyONNX exercises every lifetime rule: a graph input, a weight also
// listed as a graph input (IR 3 style), an unused graph input, a Constant
// node and an Identity of a weight (both folded), a value read three
// tasks after its producer, an unread output, a graph output, and shapes
// inferred for Conv, Relu, Shape, Reshape and MatMul when valueInfo is
// false.
func tinyONNX(valueInfo bool) ob.Model {
	g := ob.Graph{
		Nodes: []ob.Node{
			{Op: "Conv", Inputs: []string{"x", "W"}, Outputs: []string{"c"}, Attrs: []ob.Attr{ob.Ints("pads", 1, 1, 1, 1)}},
			{Op: "Relu", Inputs: []string{"c"}, Outputs: []string{"r"}},
			{Op: "Shape", Inputs: []string{"r"}, Outputs: []string{"s"}},
			{Op: "Constant", Outputs: []string{"shape"}, Attrs: []ob.Attr{{Name: "value", T: &ob.Tensor{Type: ob.Int64, Dims: []int64{2}, Int64s: []int64{1, -1}}}}},
			{Op: "Reshape", Inputs: []string{"r", "shape"}, Outputs: []string{"f"}},
			{Op: "Identity", Inputs: []string{"W2"}, Outputs: []string{"W2c"}},
			{Op: "MatMul", Inputs: []string{"f", "W2c"}, Outputs: []string{"y"}},
		},
		Initializers: []ob.Tensor{
			{Name: "W", Type: ob.Float, Dims: []int64{4, 3, 3, 3}, Raw: ob.Floats(108)},
			{Name: "W2", Type: ob.Float, Dims: []int64{256, 10}}, // no data: the reader reads none
		},
		Inputs:  []ob.Value{ob.V("x", ob.Float, 1, 3, 8, 8), ob.V("W", ob.Float, 4, 3, 3, 3), ob.V("unused", ob.Int8, 5)},
		Outputs: []ob.Value{ob.V("y", ob.Float, 1, 10)},
	}
	if valueInfo {
		g.ValueInfo = []ob.Value{
			ob.V("c", ob.Float, 1, 4, 8, 8), ob.V("r", ob.Float, 1, 4, 8, 8), ob.V("s", ob.Int64, 4),
			ob.V("f", ob.Float, 1, 256), ob.V("W2c", ob.Float, 256, 10),
		}
	}
	return ob.Model{Graph: g}
}

// tinyONNXWant are tinyONNX's records: IDs in definition order (graph
// inputs, then each task's outputs), tasks Conv 0, Relu 1, Shape 2,
// Reshape 3, MatMul 4.
var tinyONNXWant = []Buffer{
	{ID: 0, Size: 768, First: 0, Last: 0},  // x: 1x3x8x8 FLOAT
	{ID: 1, Size: 5, First: 0, Last: 0},    // unused: INT8 [5], a graph input
	{ID: 2, Size: 1024, First: 0, Last: 1}, // c
	{ID: 3, Size: 1024, First: 1, Last: 3}, // r: read by Shape and Reshape
	{ID: 4, Size: 32, First: 2, Last: 2},   // s: INT64 [4], unread
	{ID: 5, Size: 1024, First: 3, Last: 4}, // f: 1x256
	{ID: 6, Size: 40, First: 4, Last: 4},   // y: the graph output
}

func TestReadONNXModel(t *testing.T) {
	for _, vi := range []bool{true, false} {
		data := tinyONNX(vi).Bytes()
		w, err := LoadBytes(data, "tiny.onnx")
		if err != nil {
			t.Fatalf("value_info %v: %v", vi, err)
		}
		if w.Format != FormatONNXModel || w.Problem.Format != FormatONNXModel {
			t.Fatalf("value_info %v: format %q / %q", vi, w.Format, w.Problem.Format)
		}
		if !slices.Equal(w.Problem.Buffers, tinyONNXWant) {
			t.Errorf("value_info %v: buffers\n%+v\nwant\n%+v", vi, w.Problem.Buffers, tinyONNXWant)
		}
	}
}

// TestONNXSniff: a file named .onnx is ONNX whatever it holds; one named
// otherwise is ONNX when it starts with ir_version and holds a graph.
func TestONNXSniff(t *testing.T) {
	data := tinyONNX(true).Bytes()
	for _, c := range []struct {
		name string
		data []byte
		want string // format, or the error's prefix
	}{
		{"m.onnx", data, FormatONNXModel},
		{"M.ONNX.gz", data, FormatONNXModel},
		{"model.bin", data, FormatONNXModel},
		{"trace.csv", []byte("a,1,64\nf,1,\n"), FormatTrace},
		{"m.onnx", []byte("a,1,64\n"), "m.onnx: byte 0: ModelProto field 12: "},
		{"m.bin", []byte("\x08\x08"), "m.bin:1: unknown header"}, // no graph: not sniffed as ONNX
	} {
		w, err := decode(c.data, c.name, nil, 1<<20)
		switch {
		case err != nil && !strings.HasPrefix(err.Error(), c.want):
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		case err == nil && w.Format != c.want:
			t.Errorf("%s: sniffed %s, want %s", c.name, w.Format, c.want)
		}
	}
	// A real file on disk, through Load.
	path := filepath.Join(t.TempDir(), "tiny.onnx")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if w, err := Load(path); err != nil || !slices.Equal(w.Problem.Buffers, tinyONNXWant) {
		t.Errorf("Load(%s): %v", path, err)
	}
}

// TestONNXNotPlanned: STRING tensors and sequences are not planned; sub-
// byte types are packed; a scalar is one element.
func TestONNXNotPlanned(t *testing.T) {
	m := ob.Model{Graph: ob.Graph{
		Nodes: []ob.Node{
			{Op: "Custom", Domain: "com.example", Inputs: []string{"x"}, Outputs: []string{"str", "seq", "nib", "scalar"}},
			{Op: "Custom", Domain: "com.example", Inputs: []string{"str", "seq", "nib", "scalar"}, Outputs: []string{"y"}},
		},
		Inputs:    []ob.Value{ob.V("x", ob.Float16, 3)},
		Outputs:   []ob.Value{ob.V("y", ob.Bool, 2, 2)},
		ValueInfo: []ob.Value{ob.V("str", ob.String, 4), {Name: "seq", Type: ob.Float, Dims: []int64{4}, Sequence: true}, ob.V("nib", ob.Int4, 3, 3), ob.V("scalar", ob.Int64)},
	}}
	p, err := parseONNXModel(m.Bytes(), "n.onnx")
	if err != nil {
		t.Fatal(err)
	}
	want := []Buffer{
		{ID: 0, Size: 6, First: 0, Last: 0}, // x: FLOAT16 [3]
		{ID: 3, Size: 5, First: 0, Last: 1}, // nib: 9 INT4
		{ID: 4, Size: 8, First: 0, Last: 1}, // scalar INT64
		{ID: 5, Size: 4, First: 1, Last: 1}, // y: BOOL 2x2
	}
	if !slices.Equal(p.Buffers, want) {
		t.Errorf("buffers %+v, want %+v", p.Buffers, want)
	}
}

// TestONNXErrors: each broken model gives its InputError.
func TestONNXErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(g *ob.Graph)
		want string
	}{
		{"order", func(g *ob.Graph) { g.Nodes[0], g.Nodes[1] = g.Nodes[1], g.Nodes[0] },
			`x.onnx: node 0 (Relu) reads "c", which no earlier node produces and which is neither a graph input nor an initializer (nodes must be in topological order)`},
		{"twice", func(g *ob.Graph) { g.Nodes[1].Outputs = []string{"c"} },
			`x.onnx: node 1 (Relu) writes "c", which is already defined (every value has one producer)`},
		{"input twice", func(g *ob.Graph) { g.Inputs = append(g.Inputs, g.Inputs[0]) }, `x.onnx: graph input "x" is listed twice`},
		{"output", func(g *ob.Graph) { g.Outputs[0].Name = "nowhere" },
			`x.onnx: graph output "nowhere" is produced by no node and is neither a graph input nor an initializer`},
		{"dynamic", func(g *ob.Graph) { g.Inputs[0].Dims = []int64{-1, 3, 8, 8} },
			`x.onnx: value "x" has no static type and shape: the model's inputs, outputs and value_info give none, and membench infers them only for Abs,`},
		{"unknown op", func(g *ob.Graph) { g.Nodes[1].Op = "Swish" },
			`x.onnx: value "r" has no static type and shape`},
		{"odd op_type named", func(g *ob.Graph) { g.Nodes[1].Op = "a\nb"; g.Nodes[1].Attrs = []ob.Attr{{Name: "g", G: &ob.Graph{}}} },
			`x.onnx: node 1 (op_type "a\nb") has a subgraph attribute`},
		{"subgraph", func(g *ob.Graph) { g.Nodes[1].Attrs = []ob.Attr{{Name: "then_branch", G: &ob.Graph{}}} },
			`x.onnx: node 1 (Relu) has a subgraph attribute: control flow (If, Loop, Scan) is not supported`},
		{"type", func(g *ob.Graph) { g.Inputs[0].Type = 99 },
			`x.onnx: value "x" has unknown element type 99 (want a TensorProto.DataType, 1 to 26)`},
		{"overflow", func(g *ob.Graph) { g.Inputs[2].Dims = []int64{1 << 62, 4} }, `x.onnx: value "unused": INT8 [4611686018427387904 4] overflows 64 bits`},
		{"negative dims", func(g *ob.Graph) { g.Initializers[0].Dims = []int64{-4, 3, 3, 3} },
			`x.onnx: byte 204: GraphProto.initializer "W" has dimension -4: want dimensions >= 0: not a well-formed ONNX model (protobuf ModelProto, onnx.proto)`},
		{"unnamed", func(g *ob.Graph) { g.Initializers[1].Name = "" },
			`x.onnx: byte 652: GraphProto.initializer has no name: not a well-formed ONNX model`},
		{"unnamed input", func(g *ob.Graph) { g.Inputs[2].Name = "" },
			`x.onnx: byte 723: GraphProto.input has no name: not a well-formed ONNX model`},
	}
	for _, c := range cases {
		m := tinyONNX(false)
		c.edit(&m.Graph)
		_, err := parseONNXModel(m.Bytes(), "x.onnx")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v\n  want %s", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte("\x08\x08"), "x.onnx: not an ONNX model: ModelProto has no graph (field 7)"},
		{[]byte("\x08"), "x.onnx: byte 0: ModelProto field 1: the message ends inside a field (truncated): not a well-formed ONNX model (protobuf ModelProto, onnx.proto)"},
		{[]byte("\x3a\x04\x0a\x02\x22\x01"), "x.onnx: byte 4: NodeProto field 4: the message ends inside a field (truncated): not a well-formed ONNX model (protobuf ModelProto, onnx.proto)"},
		{[]byte("\x3d\x00\x00\x00\x00"), "x.onnx: byte 0: ModelProto.graph has wire type 5, want 2 (length-delimited): not a well-formed ONNX model (protobuf ModelProto, onnx.proto)"},
		{[]byte("\x08\x08\x3f"), "x.onnx: byte 2: ModelProto field 7: cannot parse reserved wire type: not a well-formed ONNX model (protobuf ModelProto, onnx.proto)"},
		{[]byte("\x08\x08\x00"), "x.onnx: byte 2: ModelProto: invalid field number: not a well-formed ONNX model (protobuf ModelProto, onnx.proto)"},
		{[]byte("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"), "x.onnx: byte 0: ModelProto field 1: variable length integer overflow: not a well-formed ONNX model (protobuf ModelProto, onnx.proto)"},
		{[]byte("\x08\x08\xcb\x06\xcb\x06"), "x.onnx: byte 2: ModelProto field 105: wire type 3 (a group), which onnx.proto does not use: not a well-formed ONNX model (protobuf ModelProto, onnx.proto)"},
	} {
		_, err := parseONNXModel(c.data, "x.onnx")
		if err == nil || err.Error() != c.want {
			t.Errorf("% x: got %v\n  want %s", c.data, err, c.want)
		}
	}
}

// TestReadONNXModelMalformed: every truncation and every flipped byte of
// a valid model gives an InputError naming the file or a valid problem,
// never a panic.
func TestReadONNXModelMalformed(t *testing.T) {
	data := tinyONNX(false).Bytes()
	for n := range len(data) {
		if _, err := parseONNXModel(data[:n], "cut.onnx"); err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "cut.onnx" {
				t.Fatalf("prefix %d: %v is not an InputError naming the file", n, err)
			}
		}
	}
	for i := range data {
		bad := slices.Clone(data)
		bad[i] ^= 0xff
		p, err := parseONNXModel(bad, "flip.onnx")
		if err != nil && !strings.HasPrefix(err.Error(), "flip.onnx: ") {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
		if err == nil {
			if err := checkProblem(p); err != nil {
				t.Fatalf("byte %d flipped: invalid problem: %v", i, err)
			}
		}
	}
}

func FuzzONNXModel(f *testing.F) {
	f.Add(tinyONNX(true).Bytes())
	f.Add(tinyONNX(false).Bytes())
	f.Add(hostile.ONNXSharedRank(50, 50))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseONNXModel(data, "fuzz.onnx")
		mustInputError(t, err)
		if err == nil {
			checkValid(t, p)
		}
	})
}

// TestONNXInferenceMatchesValueInfo: on the exported models
// (scripts/onnx/export.py, in MEMBENCH_ONNX_DIR or ../shared/models/onnx),
// the shapes inferred with value_info ignored give the records the
// declared shapes give.
func TestONNXInferenceMatchesValueInfo(t *testing.T) {
	dir := os.Getenv("MEMBENCH_ONNX_DIR")
	required := dir != ""
	if dir == "" {
		dir = "../../shared/models/onnx"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.onnx"))
	if len(files) == 0 && required {
		t.Fatalf("MEMBENCH_ONNX_DIR=%s has no .onnx files", dir)
	}
	if len(files) == 0 {
		t.Skipf("no .onnx files in %s (export with scripts/onnx/export.py and set MEMBENCH_ONNX_DIR)", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		declared, err := parseONNXModelWith(data, f, false)
		if err != nil {
			t.Fatal(err)
		}
		inferred, err := parseONNXModelWith(data, f, true)
		if err != nil {
			t.Fatalf("value_info ignored: %v", err)
		}
		if !slices.Equal(declared.Buffers, inferred.Buffers) {
			t.Errorf("%s: inferred records differ from the declared ones", f)
		}
	}
}

// TestONNXInfer checks the inferred shape of one node's output, y, over
// graph inputs x, w (and z) and int64 initializers named "k".
func TestONNXInfer(t *testing.T) {
	f := func(dims ...int64) []int64 { return dims }
	k := func(v ...int64) ob.Tensor {
		return ob.Tensor{Name: "k", Type: ob.Int64, Dims: []int64{int64(len(v))}, Int64s: v}
	}
	cases := []struct {
		name   string
		node   ob.Node
		shapes [][]int64 // of x, w, z
		init   []ob.Tensor
		want   []int64 // nil: not inferred
	}{
		{"conv", ob.Node{Op: "Conv", Inputs: []string{"x", "w"}, Attrs: []ob.Attr{ob.Ints("strides", 2, 2), ob.Ints("pads", 3, 3, 3, 3)}}, [][]int64{f(1, 3, 224, 224), f(64, 3, 7, 7)}, nil, f(1, 64, 112, 112)},
		{"conv same", ob.Node{Op: "Conv", Inputs: []string{"x", "w"}, Attrs: []ob.Attr{ob.Ints("strides", 2, 2), {Name: "auto_pad", S: "SAME_UPPER"}}}, [][]int64{f(1, 3, 15, 15), f(8, 3, 3, 3)}, nil, f(1, 8, 8, 8)},
		{"conv dilated", ob.Node{Op: "Conv", Inputs: []string{"x", "w"}, Attrs: []ob.Attr{ob.Ints("dilations", 2)}}, [][]int64{f(1, 4, 10), f(2, 4, 3)}, nil, f(1, 2, 6)},
		{"conv rank", ob.Node{Op: "Conv", Inputs: []string{"x", "w"}}, [][]int64{f(1, 3, 8, 8), f(8, 3, 3)}, nil, nil},
		{"conv valid too small", ob.Node{Op: "Conv", Inputs: []string{"x", "w"}, Attrs: []ob.Attr{{Name: "auto_pad", S: "VALID"}, ob.Ints("strides", 2)}}, [][]int64{f(1, 1, 2), f(1, 1, 3)}, nil, nil},
		{"maxpool", ob.Node{Op: "MaxPool", Inputs: []string{"x"}, Attrs: []ob.Attr{ob.Ints("kernel_shape", 3, 3), ob.Ints("strides", 2, 2), ob.Ints("pads", 1, 1, 1, 1)}}, [][]int64{f(1, 64, 112, 112)}, nil, f(1, 64, 56, 56)},
		{"maxpool ceil", ob.Node{Op: "MaxPool", Inputs: []string{"x"}, Attrs: []ob.Attr{ob.Ints("kernel_shape", 3, 3), ob.Ints("strides", 2, 2), ob.Int("ceil_mode", 1)}}, [][]int64{f(1, 1, 6, 6)}, nil, f(1, 1, 3, 3)},
		{"maxpool ceil drops a window in the padding", ob.Node{Op: "MaxPool", Inputs: []string{"x"}, Attrs: []ob.Attr{ob.Ints("kernel_shape", 2), ob.Ints("strides", 2), ob.Ints("pads", 1, 1), ob.Int("ceil_mode", 1)}}, [][]int64{f(1, 1, 3)}, nil, f(1, 1, 2)},
		{"global pool", ob.Node{Op: "GlobalAveragePool", Inputs: []string{"x"}}, [][]int64{f(1, 2048, 7, 7)}, nil, f(1, 2048, 1, 1)},
		{"flatten", ob.Node{Op: "Flatten", Inputs: []string{"x"}}, [][]int64{f(1, 2048, 1, 1)}, nil, f(1, 2048)},
		{"flatten -1", ob.Node{Op: "Flatten", Inputs: []string{"x"}, Attrs: []ob.Attr{ob.Int("axis", -1)}}, [][]int64{f(2, 3, 4)}, nil, f(6, 4)},
		{"gemm", ob.Node{Op: "Gemm", Inputs: []string{"x", "w"}, Attrs: []ob.Attr{ob.Int("transB", 1)}}, [][]int64{f(1, 2048), f(1000, 2048)}, nil, f(1, 1000)},
		{"matmul batched", ob.Node{Op: "MatMul", Inputs: []string{"x", "w"}}, [][]int64{f(1, 12, 128, 64), f(1, 12, 64, 128)}, nil, f(1, 12, 128, 128)},
		{"matmul vector", ob.Node{Op: "MatMul", Inputs: []string{"x", "w"}}, [][]int64{f(128, 64), f(64)}, nil, f(128)},
		{"matmul broadcast", ob.Node{Op: "MatMul", Inputs: []string{"x", "w"}}, [][]int64{f(64), f(3, 64, 5)}, nil, f(3, 5)},
		{"matmul mismatch", ob.Node{Op: "MatMul", Inputs: []string{"x", "w"}}, [][]int64{f(2, 3), f(4, 5)}, nil, nil},
		{"add", ob.Node{Op: "Add", Inputs: []string{"x", "w"}}, [][]int64{f(1, 128, 768), f(768)}, nil, f(1, 128, 768)},
		{"mul both ways", ob.Node{Op: "Mul", Inputs: []string{"x", "w"}}, [][]int64{f(4, 1), f(1, 5)}, nil, f(4, 5)},
		{"add mismatch", ob.Node{Op: "Add", Inputs: []string{"x", "w"}}, [][]int64{f(4, 3), f(5)}, nil, nil},
		{"where", ob.Node{Op: "Where", Inputs: []string{"x", "w", "z"}}, [][]int64{f(2, 1), f(3), f(1)}, nil, f(2, 3)},
		{"equal", ob.Node{Op: "Equal", Inputs: []string{"x", "w"}}, [][]int64{f(2, 3), f(3)}, nil, f(2, 3)},
		{"reshape", ob.Node{Op: "Reshape", Inputs: []string{"x", "k"}}, [][]int64{f(1, 128, 768)}, []ob.Tensor{k(1, 128, 12, 64)}, f(1, 128, 12, 64)},
		{"reshape 0 -1", ob.Node{Op: "Reshape", Inputs: []string{"x", "k"}}, [][]int64{f(2, 3, 4)}, []ob.Tensor{k(0, -1)}, f(2, 12)},
		{"reshape indivisible", ob.Node{Op: "Reshape", Inputs: []string{"x", "k"}}, [][]int64{f(2, 3, 4)}, []ob.Tensor{k(5, -1)}, nil},
		{"reshape of a graph input's values", ob.Node{Op: "Reshape", Inputs: []string{"x", "w"}}, [][]int64{f(2, 3), f(2)}, nil, nil},
		{"transpose", ob.Node{Op: "Transpose", Inputs: []string{"x"}, Attrs: []ob.Attr{ob.Ints("perm", 0, 2, 1, 3)}}, [][]int64{f(1, 128, 12, 64)}, nil, f(1, 12, 128, 64)},
		{"transpose reversed", ob.Node{Op: "Transpose", Inputs: []string{"x"}}, [][]int64{f(2, 3, 4)}, nil, f(4, 3, 2)},
		{"gather", ob.Node{Op: "Gather", Inputs: []string{"x", "w"}}, [][]int64{f(30522, 768), f(1, 128)}, nil, f(1, 128, 768)},
		{"gather scalar", ob.Node{Op: "Gather", Inputs: []string{"x", "w"}, Attrs: []ob.Attr{ob.Int("axis", 1)}}, [][]int64{f(2, 3, 4), f()}, nil, f(2, 4)},
		{"concat", ob.Node{Op: "Concat", Inputs: []string{"x", "w"}, Attrs: []ob.Attr{ob.Int("axis", -1)}}, [][]int64{f(2, 3), f(2, 5)}, nil, f(2, 8)},
		{"unsqueeze", ob.Node{Op: "Unsqueeze", Inputs: []string{"x", "k"}}, [][]int64{f(3)}, []ob.Tensor{k(0, -1)}, f(1, 3, 1)},
		{"unsqueeze attr", ob.Node{Op: "Unsqueeze", Inputs: []string{"x"}, Attrs: []ob.Attr{ob.Ints("axes", 1)}}, [][]int64{f(2, 3)}, nil, f(2, 1, 3)},
		{"shape", ob.Node{Op: "Shape", Inputs: []string{"x"}}, [][]int64{f(2, 3, 4)}, nil, f(3)},
		{"softmax", ob.Node{Op: "Softmax", Inputs: []string{"x"}}, [][]int64{f(1, 12, 128, 128)}, nil, f(1, 12, 128, 128)},
		{"custom domain", ob.Node{Op: "Relu", Domain: "com.example", Inputs: []string{"x"}}, [][]int64{f(2)}, nil, nil},
	}
	for _, c := range cases {
		g := ob.Graph{Initializers: c.init}
		c.node.Outputs = []string{"y"}
		g.Nodes = []ob.Node{c.node}
		for i, s := range c.shapes {
			g.Inputs = append(g.Inputs, ob.V([]string{"x", "w", "z"}[i], ob.Float, s...))
		}
		r := &onnxReader{data: ob.Model{Graph: g}.Bytes(), name: "m.onnx", byName: map[string]int32{}}
		r.model()
		r.declarations()
		r.lifetimes()
		if r.err != nil {
			t.Errorf("%s: %v", c.name, r.err)
			continue
		}
		y := r.value("y")
		if got := y.dims; (c.want == nil) != (y.rank < 0) || !slices.Equal(got, c.want) {
			t.Errorf("%s: inferred %v (rank %d), want %v", c.name, got, y.rank, c.want)
		}
	}
}

// BenchmarkReadONNXModel reads the exported ResNet-50 (102 MB, nearly all
// weights, which the reader skips).
func BenchmarkReadONNXModel(b *testing.B) {
	dir := os.Getenv("MEMBENCH_ONNX_DIR")
	if dir == "" {
		dir = "../../shared/models/onnx"
	}
	data, err := os.ReadFile(filepath.Join(dir, "resnet-50.onnx"))
	if err != nil {
		b.Skipf("exported model absent: %v", err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parseONNXModel(data, "resnet-50.onnx"); err != nil {
			b.Fatal(err)
		}
	}
}
