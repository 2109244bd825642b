package workloads

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// The GPU delegate's view of a `.tflite` model (DESIGN §17): the records
// TFLite's GPU delegate would plan for a model's tensors, laid out in the
// storage type it is asked for. The rules follow LiteRT at revision
// f67457790c9c2ab67347d6fe53270e8d3df20868:
//
//   - shapes (tflite/delegates/gpu/common/model_builder_helper.cc,
//     ExtractTensorShape): a tensor of rank 1 is BHWC (d0, 1, 1, 1), rank
//     2 (d0, 1, 1, d1), rank 3 (d0, 1, d1, d2), rank 4 (d0, d1, d2, d3);
//     the delegate refuses scalars and ranks above 4, and so does this
//     conversion;
//   - data types (model_builder_helper.cc ToDataType; gpu_model.cc
//     ReserveGraphTensors; precision.cc DeduceDataTypeFromPrecision):
//     FLOAT32 tensors are stored at the calculation precision, FLOAT32 or
//     FLOAT16; INT8 and UINT8 tensors are replaced by the float tensors
//     the delegate dequantizes them into (object_reader.cc
//     ReadNonConstantTensor, with quantized inference on, as
//     TfLiteGpuDelegateOptionsV2Default sets it), so they are floats too;
//     INT32, INT64 and BOOL keep their type; the delegate has no data type
//     for the others and this conversion refuses them. Element sizes are
//     common/data_type.cc's SizeOf: 1 for BOOL, 2 for FLOAT16, 4 for
//     FLOAT32 and INT32, 8 for INT64;
//   - layouts (common/task/tensor_desc.cc, GetStorageDims and
//     GetMemorySizeInBytes, for the BHWC/HWC layouts of runtime tensors,
//     depth 1): with slices = ceil(C/4), four channels to a texel,
//     TEXTURE_2D is (W*B) x (H*slices) texels, TEXTURE_3D and
//     TEXTURE_ARRAY are (W*B) x H x slices texels, and BUFFER and
//     IMAGE_BUFFER are W*B*H*slices texels, in bytes; a texel is 4
//     elements of the data type;
//   - which tensors (cl/inference_context.cc, GetTensorType and GetUsages;
//     model_builder.cc BuildModelEnforceIO and DequantizeOperationParser):
//     variables are kept in objects of their own, not shared, and left
//     out; a DEQUANTIZE whose input is a constant produces a constant (the
//     delegate skips those of FLOAT16 weights and turns the others into
//     CONSTANT nodes), so its output is left out; every other tensor
//     TFLite's interpreter plans is a record, with the interpreter's
//     lifetime (ReadTFLiteModel).
//
// What is not modelled, all of it device- or graph-rewrite-dependent: the
// delegate's own graph transformations (fused and merged operations,
// in-place and linked elementwise operations, the graph partition when
// some operator stays on the CPU), SINGLE_TEXTURE_2D for tensors of fewer
// than 4 channels, the fallback to another storage type when a texture
// exceeds the device's limits, and the row pitch alignment of 2D
// textures made from buffers.

// GPUStorage is the storage type the GPU delegate is asked to keep a
// model's tensors in, or GPUNone for the interpreter's byte records.
type GPUStorage uint8

// The storage types a `.tflite` workload takes (option storage=).
const (
	// GPUNone: no delegate; the records TFLite's interpreter plans.
	GPUNone GPUStorage = iota
	// GPUBuffer: TensorStorageType::BUFFER, byte records.
	GPUBuffer
	// GPUImageBuffer: TensorStorageType::IMAGE_BUFFER, byte records.
	GPUImageBuffer
	// GPUTexture2D: TensorStorageType::TEXTURE_2D, 2d records.
	GPUTexture2D
	// GPUTexture3D: TensorStorageType::TEXTURE_3D, 3d records.
	GPUTexture3D
	// GPUTextureArray: TensorStorageType::TEXTURE_ARRAY, 3d records.
	GPUTextureArray
	// GPUBHWC: the delegate's BHWC shape of each tensor, bhwc records of
	// the data type's element size.
	GPUBHWC
)

var gpuStorages = [...]struct {
	name, upstream string
	t              SizeType
}{
	GPUNone:         {"cpu", "", SizeBytes},
	GPUBuffer:       {"buffer", "BUFFER", SizeBytes},
	GPUImageBuffer:  {"image-buffer", "IMAGE_BUFFER", SizeBytes},
	GPUTexture2D:    {"texture2d", "TEXTURE_2D", SizeTexture2D},
	GPUTexture3D:    {"texture3d", "TEXTURE_3D", SizeTexture3D},
	GPUTextureArray: {"texture-array", "TEXTURE_ARRAY", SizeTexture3D},
	GPUBHWC:         {"bhwc", "BHWC", SizeBHWC},
}

// String returns the storage's option value: cpu, buffer, texture2d, ...
func (s GPUStorage) String() string { return gpuStorages[s].name }

// SizeType returns the size type of the records the storage gives.
func (s GPUStorage) SizeType() SizeType { return gpuStorages[s].t }

// GPUStorageNames lists the values of the storage option, cpu first.
func GPUStorageNames() []string {
	out := make([]string, len(gpuStorages))
	for i, s := range gpuStorages {
		out[i] = s.name
	}
	return out
}

// GPUOptions says how the GPU delegate keeps a model's tensors.
type GPUOptions struct {
	Storage GPUStorage
	// F16 stores float tensors as FLOAT16 (CalculationsPrecision F16 or
	// F32_F16); false stores them as FLOAT32, the delegate's default
	// (TfLiteGpuDelegateOptionsV2Default asks for maximum precision).
	F16 bool
}

// The options a `.tflite` workload takes, file or registered.
const (
	gpuStorageOption   = "storage"
	gpuPrecisionOption = "precision"
)

// ParseGPUOptions reads the storage and precision options ("" for a
// default: cpu, f32); what names the workload for errors.
func ParseGPUOptions(what, storage, precision string) (GPUOptions, error) {
	var o GPUOptions
	if storage != "" {
		k := slices.Index(GPUStorageNames(), storage)
		if k < 0 {
			return o, Usagef("%s: %s=%s: want one of %s", what, gpuStorageOption, Echo(storage), strings.Join(GPUStorageNames(), ", "))
		}
		o.Storage = GPUStorage(k)
	}
	switch precision {
	case "", "f32":
	case "f16":
		o.F16 = true
	default:
		return o, Usagef("%s: %s=%s: want f32 or f16", what, gpuPrecisionOption, Echo(precision))
	}
	if o.F16 && o.Storage == GPUNone {
		return o, Usagef("%s: %s=f16 needs a GPU storage (%s=%s, ...): TFLite's interpreter keeps each tensor's own type", what, gpuPrecisionOption, gpuStorageOption, GPUTexture2D)
	}
	return o, nil
}

// gpuTypes are the delegate's data types a runtime tensor may have, as
// named in messages, with SizeOf's element size.
var gpuTypes = map[string]int64{"FLOAT16": 2, "FLOAT32": 4, "INT32": 4, "INT64": 8, "BOOL": 1}

// gpuTensor is a runtime tensor of the delegate's graph: its lifetime,
// its BHWC shape and its data type as the model declares it after the
// delegate's mapping (FLOAT32 for floats, before the precision applies).
type gpuTensor struct {
	span  Buffer
	bhwc  Shape
	dtype string
	what  string
}

// tfliteDequantize is the BuiltinOperator code of DEQUANTIZE.
const tfliteDequantize = 6

// gpuTensors returns the runtime tensors of a model as the GPU delegate
// reads them (the rules above), in tensor index order.
func gpuTensors(data []byte, name string) ([]gpuTensor, error) {
	r, tensors, err := readModelTensors(data, name)
	if err != nil {
		return nil, err
	}
	folded, err := r.constantDequantizeOutputs()
	if err != nil {
		return nil, err
	}
	var out []gpuTensor
	for _, t := range tensors {
		if t.where != tensorInArena || t.variable || folded[t.buf.ID] {
			continue
		}
		g := gpuTensor{span: t.buf, what: t.what}
		tt := tfliteTypeBits[t.typ].name
		switch tt {
		case "FLOAT32", "INT8", "UINT8":
			g.dtype = "FLOAT32"
		case "INT32", "INT64", "BOOL":
			g.dtype = tt
		default:
			return nil, &InputError{File: name, Msg: fmt.Sprintf("%s is %s: TFLite's GPU delegate has no data type for it (ToDataType)", t.what, tt)}
		}
		s := t.shape
		switch len(s) {
		case 1:
			g.bhwc = Shape{int64(s[0]), 1, 1, 1}
		case 2:
			g.bhwc = Shape{int64(s[0]), 1, 1, int64(s[1])}
		case 3:
			g.bhwc = Shape{int64(s[0]), 1, int64(s[1]), int64(s[2])}
		case 4:
			g.bhwc = Shape{int64(s[0]), int64(s[1]), int64(s[2]), int64(s[3])}
		default:
			return nil, &InputError{File: name, Msg: fmt.Sprintf("%s has shape %v of rank %d: TFLite's GPU delegate reads ranks 1 to 4 (ExtractTensorShape)", t.what, s, len(s))}
		}
		out = append(out, g)
	}
	return out, nil
}

// constantDequantizeOutputs returns the outputs of the DEQUANTIZE
// operators of subgraph 0 whose input is a constant tensor, by tensor
// index. An operator's code is the larger of OperatorCode's
// deprecated_builtin_code and builtin_code, as schema_utils.cc's
// GetBuiltinCode reads it.
func (r *tfliteReader) constantDequantizeOutputs() (map[int]bool, error) {
	f := r.f
	codes, ncode := f.vector(r.model, fbModelOperatorCodes, 4, "Model.operator_codes")
	if f.err != nil {
		return nil, f.err
	}
	out := map[int]bool{}
	for k := range r.nop {
		op := f.table(r.ov, k, "Operator")
		idx := f.scalar(op, fbOperatorOpcodeIndex, 4, "Operator.opcode_index")
		if f.err != nil {
			return nil, f.err
		}
		if idx >= uint64(ncode) {
			return nil, &InputError{File: r.name, Msg: fmt.Sprintf("operator %d has opcode_index %d, but the model has %d operator codes", k, idx, ncode)}
		}
		oc := f.table(codes, int(idx), "OperatorCode")
		code := max(int64(int8(f.scalar(oc, fbOpCodeDeprecatedBuiltin, 1, "OperatorCode.deprecated_builtin_code"))),
			int64(int32(f.scalar(oc, fbOpCodeBuiltin, 4, "OperatorCode.builtin_code"))))
		if f.err != nil {
			return nil, f.err
		}
		if code != tfliteDequantize {
			continue
		}
		start, nin := f.vector(op, fbOperatorInputs, 4, "Operator.inputs")
		in := int32(f.u32(start, "Operator.inputs"))
		outs := f.i32s(op, fbOperatorOutputs, "Operator.outputs")
		if f.err != nil {
			return nil, f.err
		}
		if nin == 0 || in < 0 || int(in) >= r.ntensor {
			continue // operatorVectors checked the indexes; no input, no constant
		}
		tab := f.table(r.tv, int(in), "Tensor")
		buf := f.scalar(tab, fbTensorBuffer, 4, "Tensor.buffer")
		if f.err != nil {
			return nil, f.err
		}
		if buf == 0 {
			continue
		}
		constant, err := r.constant(buf, fmt.Sprintf("tensor %d", in))
		if err != nil {
			return nil, err
		}
		for _, o := range outs {
			if constant && o >= 0 {
				out[int(o)] = true
			}
		}
	}
	return out, nil
}

// gpuProblem lays out the tensors ts in o's storage: byte records for
// BUFFER and IMAGE_BUFFER, texture or BHWC records otherwise, one record
// per tensor in order, buffer IDs their positions. Texture and BHWC
// problems hold one element size, so their tensors must share a data type
// (TFLite's GL runtime plans each data type apart).
func gpuProblem(name string, ts []gpuTensor, o GPUOptions) (*Problem, error) {
	dtype := func(g gpuTensor) string {
		if g.dtype == "FLOAT32" && o.F16 {
			return "FLOAT16"
		}
		return g.dtype
	}
	st := o.Storage.SizeType()
	if st == SizeBytes {
		p := &Problem{Name: name, Buffers: make([]Buffer, len(ts))}
		for i, g := range ts {
			n, ok := gpuBytes(g.bhwc, gpuTypes[dtype(g)])
			if !ok {
				return nil, &InputError{File: name, Msg: fmt.Sprintf("%s: %s of BHWC %s overflows int64 bytes", g.what, gpuStorages[o.Storage].upstream, g.bhwc.Format(4))}
			}
			p.Buffers[i] = Buffer{ID: i, Size: n, First: g.span.First, Last: g.span.Last}
		}
		return p, nil
	}
	var elem int64
	if len(ts) > 0 {
		first := dtype(ts[0])
		for _, g := range ts {
			if dt := dtype(g); dt != first {
				return nil, &InputError{File: name, Msg: fmt.Sprintf("%s is %s, %s is %s: %s records hold one element type (TFLite's GPU runtime plans each data type apart); use storage=%s", ts[0].what, first, g.what, dt, st, GPUBuffer)}
			}
		}
		elem = gpuTypes[first]
	}
	shapes := make([]Shape, len(ts))
	spans := make([]Buffer, len(ts))
	for i, g := range ts {
		b, h, w, c := g.bhwc[0], g.bhwc[1], g.bhwc[2], g.bhwc[3]
		slices := (c + 3) / 4
		switch o.Storage {
		case GPUTexture2D:
			shapes[i] = Shape{w * b, h * slices}
		case GPUTexture3D, GPUTextureArray:
			shapes[i] = Shape{w * b, h, slices}
		default:
			shapes[i] = g.bhwc
		}
		for d := range st.Dims() {
			if shapes[i][d] > st.MaxExtent() {
				return nil, &InputError{File: name, Msg: fmt.Sprintf("%s: %s of BHWC %s is %s, past the largest extent %d", g.what, gpuStorages[o.Storage].upstream, g.bhwc.Format(4), shapes[i].Format(st.Dims()), st.MaxExtent())}
			}
		}
		spans[i] = g.span
	}
	if o.Storage != GPUBHWC {
		elem *= 4 // a texel holds 4 elements
	}
	if len(ts) == 0 {
		elem = 1
	}
	p, err := NewShapeProblem(name, st, elem, shapes, spans)
	if err != nil {
		return nil, &InputError{File: name, Msg: err.Error()}
	}
	return p, nil
}

// gpuBytes returns the bytes of a BUFFER of BHWC shape s whose elements
// take elem bytes: W*B*H*ceil(C/4) texels of 4 elements; false on
// overflow.
func gpuBytes(s Shape, elem int64) (int64, bool) {
	n := uint64(1)
	for _, f := range []int64{s[0], s[1], s[2], (s[3] + 3) / 4, 4, elem} {
		hi, lo := bits.Mul64(n, uint64(f))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}

// ReadTFLiteGPU reads a `.tflite` model's records as TFLite's GPU delegate
// would plan them in o's storage (the rules above); GPUNone reads the
// interpreter's records (ReadTFLiteModel).
func ReadTFLiteGPU(data []byte, name string, o GPUOptions) (*Problem, error) {
	if o.Storage == GPUNone {
		return parseTFLiteModel(data, name)
	}
	ts, err := gpuTensors(data, name)
	if err != nil {
		return nil, err
	}
	return gpuProblem(name, ts, o)
}

// GPUFromBHWC lays out, in o's storage, the records of a problem read
// with storage=bhwc at precision f32 from a model whose runtime tensors
// are all floats (element size 4): the registered tflite/ workloads keep
// that problem and derive the other storages from it.
func GPUFromBHWC(p *Problem, o GPUOptions) (*Problem, error) {
	if o.Storage == GPUNone {
		return nil, fmt.Errorf("%s: storage=%s has no GPU layout", p.Name, GPUNone)
	}
	if p.SizeType != SizeBHWC || p.ElementSize != 4 && len(p.Buffers) > 0 {
		return nil, fmt.Errorf("%s: want the bhwc records of FLOAT32 tensors (element size 4), have %s records of element size %d", p.Name, p.SizeType, p.ElementSize)
	}
	ts := make([]gpuTensor, len(p.Buffers))
	for i, b := range p.Buffers {
		ts[i] = gpuTensor{span: b, bhwc: p.Shapes[i], dtype: "FLOAT32", what: fmt.Sprintf("record %d", i)}
	}
	return gpuProblem(p.Name, ts, o)
}
