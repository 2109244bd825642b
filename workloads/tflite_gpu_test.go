package workloads

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"membench/internal/tflitebuild"
)

// gpuModel exercises every rule of the GPU delegate's view: ranks 1 to 4,
// a batch above 1, channels not a multiple of 4, a DEQUANTIZE of FLOAT16
// weights (left out), an INT8 tensor (dequantized to float) and a
// variable (left out).
func gpuModel() tflitebuild.Model {
	return tflitebuild.Model{
		Tensors: []tflitebuild.Tensor{
			{Shape: []int32{1, 4, 6, 3}, Name: "input"},                 // 0 BHWC 1,4,6,3
			{Shape: []int32{8}, Type: 1, Buffer: 1, Name: "w16"},        // 1 FLOAT16 constant
			{Shape: []int32{8}, Name: "w"},                              // 2 its DEQUANTIZE: a constant to the delegate
			{Shape: []int32{1, 4, 6, 8}, Name: "a"},                     // 3 1,4,6,8
			{Shape: []int32{2, 3, 5}, Type: 9, Name: "b"},               // 4 INT8 2,1,3,5
			{Shape: []int32{2, 10}, Name: "c"},                          // 5 2,1,1,10
			{Shape: []int32{1, 4}, Name: "state", Variable: true},       // 6 variable
			{Shape: []int32{7}, Name: "out"},                            // 7 7,1,1,1
			{Shape: []int32{1, 1, 1, 1}, Type: 2, Buffer: 2, Name: "k"}, // 8 INT32 constant
		},
		Inputs:  []int32{0},
		Outputs: []int32{7},
		Ops: []tflitebuild.Op{
			{In: []int32{1}, Out: []int32{2}, Code: tfliteDequantize},
			{In: []int32{0, 2}, Out: []int32{3}},
			{In: []int32{3, 8}, Out: []int32{4}},
			{In: []int32{4, 6}, Out: []int32{5}},
			{In: []int32{5}, Out: []int32{7}},
		},
		Buffers: [][]byte{nil, make([]byte, 16), make([]byte, 4)},
	}
}

func TestReadTFLiteGPU(t *testing.T) {
	data := gpuModel().Build()
	spans := []Buffer{{ID: 0, First: 0, Last: 1}, {ID: 1, First: 1, Last: 2}, {ID: 2, First: 2, Last: 3}, {ID: 3, First: 3, Last: 4}, {ID: 4, First: 4, Last: 4}}
	cases := []struct {
		o      GPUOptions
		elem   int64
		shapes []Shape
		bytes  []int64 // the byte view
	}{
		{GPUOptions{Storage: GPUBHWC}, 4, []Shape{{1, 4, 6, 3}, {1, 4, 6, 8}, {2, 1, 3, 5}, {2, 1, 1, 10}, {7, 1, 1, 1}}, []int64{288, 768, 120, 80, 28}},
		{GPUOptions{Storage: GPUBHWC, F16: true}, 2, []Shape{{1, 4, 6, 3}, {1, 4, 6, 8}, {2, 1, 3, 5}, {2, 1, 1, 10}, {7, 1, 1, 1}}, []int64{144, 384, 60, 40, 14}},
		// TEXTURE_2D: (W*B) x (H*slices) texels of 4 elements.
		{GPUOptions{Storage: GPUTexture2D}, 16, []Shape{{6, 4}, {6, 8}, {6, 2}, {2, 3}, {7, 1}}, []int64{384, 768, 192, 96, 112}},
		{GPUOptions{Storage: GPUTexture2D, F16: true}, 8, []Shape{{6, 4}, {6, 8}, {6, 2}, {2, 3}, {7, 1}}, []int64{192, 384, 96, 48, 56}},
		// TEXTURE_3D and TEXTURE_ARRAY: (W*B) x H x slices.
		{GPUOptions{Storage: GPUTexture3D}, 16, []Shape{{6, 4, 1}, {6, 4, 2}, {6, 1, 2}, {2, 1, 3}, {7, 1, 1}}, []int64{384, 768, 192, 96, 112}},
		{GPUOptions{Storage: GPUTextureArray, F16: true}, 8, []Shape{{6, 4, 1}, {6, 4, 2}, {6, 1, 2}, {2, 1, 3}, {7, 1, 1}}, []int64{192, 384, 96, 48, 56}},
		// BUFFER and IMAGE_BUFFER: the same texels, in bytes.
		{GPUOptions{Storage: GPUBuffer}, 0, nil, []int64{384, 768, 192, 96, 112}},
		{GPUOptions{Storage: GPUImageBuffer, F16: true}, 0, nil, []int64{192, 384, 96, 48, 56}},
	}
	for _, c := range cases {
		p, err := ReadTFLiteGPU(data, "g.tflite", c.o)
		if err != nil {
			t.Fatalf("%+v: %v", c.o, err)
		}
		if p.SizeType != c.o.Storage.SizeType() || p.ElementSize != c.elem || !slices.Equal(p.Shapes, c.shapes) {
			t.Errorf("%s f16=%v: %s records of %d-byte elements %v; want %s, %d, %v", c.o.Storage, c.o.F16, p.SizeType, p.ElementSize, p.Shapes, c.o.Storage.SizeType(), c.elem, c.shapes)
		}
		want := slices.Clone(spans)
		for i := range want {
			want[i].Size = c.bytes[i]
		}
		if !slices.Equal(p.Buffers, want) {
			t.Errorf("%s f16=%v: buffers %v, want %v", c.o.Storage, c.o.F16, p.Buffers, want)
		}
		if err := checkProblem(p); err != nil {
			t.Errorf("%s: %v", c.o.Storage, err)
		}
	}
	// cpu: the interpreter's records, whatever the delegate would do.
	cpu, err := ReadTFLiteGPU(data, "g.tflite", GPUOptions{})
	if err != nil || cpu.Len() != 6 || cpu.Format != FormatTFLiteModel || len(cpu.Persistent) != 1 {
		t.Errorf("cpu: %v, %v", cpu, err)
	}
}

// TestReadTFLiteGPURefuses checks the delegate's refusals and the
// element-type rule, each naming the tensor.
func TestReadTFLiteGPURefuses(t *testing.T) {
	cases := []struct {
		name    string
		storage GPUStorage
		edit    func(*tflitebuild.Model)
		want    string
	}{
		{"scalar", GPUTexture2D, func(m *tflitebuild.Model) { m.Tensors[3].Shape = nil },
			`g.tflite: tensor 3 ("a") has shape [] of rank 0: TFLite's GPU delegate reads ranks 1 to 4 (ExtractTensorShape)`},
		{"rank 5", GPUBuffer, func(m *tflitebuild.Model) { m.Tensors[3].Shape = []int32{1, 1, 1, 1, 1} },
			`g.tflite: tensor 3 ("a") has shape [1 1 1 1 1] of rank 5: TFLite's GPU delegate reads ranks 1 to 4 (ExtractTensorShape)`},
		{"int16", GPUBHWC, func(m *tflitebuild.Model) { m.Tensors[5].Type = 7 },
			`g.tflite: tensor 5 ("c") is INT16: TFLite's GPU delegate has no data type for it (ToDataType)`},
		{"mixed", GPUTexture3D, func(m *tflitebuild.Model) { m.Tensors[5].Type = 2 },
			`g.tflite: tensor 0 ("input") is FLOAT32, tensor 5 ("c") is INT32: 3d records hold one element type (TFLite's GPU runtime plans each data type apart); use storage=buffer`},
		{"too wide", GPUTexture2D, func(m *tflitebuild.Model) { m.Tensors[4].Shape = []int32{1 << 16, 1 << 16, 1} },
			`g.tflite: tensor 4 ("b"): TEXTURE_2D of BHWC 65536x1x65536x1 is 4294967296x1, past the largest extent 4294967295`},
	}
	for _, c := range cases {
		m := gpuModel()
		c.edit(&m)
		_, err := ReadTFLiteGPU(m.Build(), "g.tflite", GPUOptions{Storage: c.storage})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
	// Bytes hold every data type together: INT32 keeps 4 bytes at f16.
	m := gpuModel()
	m.Tensors[5].Type = 2
	p, err := ReadTFLiteGPU(m.Build(), "g.tflite", GPUOptions{Storage: GPUBuffer, F16: true})
	if err != nil || p.Buffers[3].Size != 96 || p.Buffers[2].Size != 96 {
		t.Errorf("mixed buffer: %v, %v", p, err)
	}
}

// TestLoadTFLiteGPUOptions checks the options of a `.tflite` file.
func TestLoadTFLiteGPUOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.tflite")
	if err := os.WriteFile(path, gpuModel().Build(), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Load(path + "?storage=texture2d&precision=f16")
	if err != nil {
		t.Fatal(err)
	}
	if p := w.Problem; p.SizeType != SizeTexture2D || p.ElementSize != 8 || p.Len() != 5 || w.Format != FormatTFLiteModel || p.Format != "" {
		t.Errorf("got %s records of %d bytes, %d buffers, formats %q %q", p.SizeType, p.ElementSize, p.Len(), w.Format, p.Format)
	}
	for _, c := range []struct{ opts, want string }{
		{"?storage=texture", `g.tflite: storage="texture": want one of cpu, buffer, image-buffer, texture2d, texture3d, texture-array, bhwc`},
		{"?storage=bhwc&precision=f64", `g.tflite: precision="f64": want f32 or f16`},
		{"?precision=f16", "g.tflite: precision=f16 needs a GPU storage (storage=texture2d, ...): TFLite's interpreter keeps each tensor's own type"},
		{"?layout=hwc", `g.tflite: unknown option "layout" for a tflite-model file (valid: storage, precision)`},
	} {
		_, err := Load(path + c.opts)
		var ue *UsageError
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || !errors.As(err, &ue) {
			t.Errorf("%s: %v (%T)\nwant a usage error ...%s", c.opts, err, err, c.want)
		}
	}
}

var updateGPU = flag.Bool("update", false, "rewrite testdata/gpu/*.csv from ../shared/models/tflite")

// gpuGoldens are the records of selfie_segmentation.tflite in testdata/gpu.
var gpuGoldens = []struct {
	file string
	o    GPUOptions
}{
	{"selfie_segmentation.texture2d.csv", GPUOptions{Storage: GPUTexture2D}},
	{"selfie_segmentation.texture3d-f16.csv", GPUOptions{Storage: GPUTexture3D, F16: true}},
	{"selfie_segmentation.buffer-f16.csv", GPUOptions{Storage: GPUBuffer, F16: true}},
}

// TestReadTFLiteGPUShared reads every MediaPipe model in every storage
// (the DEQUANTIZE outputs of their FLOAT16 weights are left out, and each
// storage's records are checked) and compares selfie segmentation's
// records with the goldens in testdata/gpu (-update rewrites them).
func TestReadTFLiteGPUShared(t *testing.T) {
	const dir = "../../shared/models/tflite/"
	files, _ := filepath.Glob(dir + "*.tflite")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("%s absent", dir)
	}
	if len(files) == 0 {
		t.Fatalf("no models in %s", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cpu, err := ReadTFLiteGPU(data, f, GPUOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []GPUStorage{GPUBuffer, GPUImageBuffer, GPUTexture2D, GPUTexture3D, GPUTextureArray, GPUBHWC} {
			p, err := ReadTFLiteGPU(data, f, GPUOptions{Storage: st})
			if err != nil {
				t.Fatalf("%s storage=%s: %v", f, st, err)
			}
			if err := checkProblem(p); err != nil || p.Len() == 0 || p.Len() >= cpu.Len() {
				t.Errorf("%s storage=%s: %d records of the interpreter's %d: %v", f, st, p.Len(), cpu.Len(), err)
			}
		}
	}
	data, err := os.ReadFile(dir + "selfie_segmentation.tflite")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gpuGoldens {
		p, err := ReadTFLiteGPU(data, "selfie_segmentation.tflite", g.o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteTFLite(&b, p); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "gpu", g.file)
		if *updateGPU {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from the records read (run with -update): %v", path, err)
		}
	}
}
