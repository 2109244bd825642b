package workloads

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
)

// FormatTFLiteModel is a `.tflite` model file (a FlatBuffer with file
// identifier TFL3).
const FormatTFLiteModel = "tflite-model"

// isTFLiteModel reports whether data carries the TFLite FlatBuffer file
// identifier at byte 4.
func isTFLiteModel(data []byte) bool {
	return len(data) >= 8 && string(data[4:8]) == "TFL3"
}

// ReadTFLiteModel reads the usage records of a `.tflite` model as TFLite's
// interpreter plans them:
//
//   - the operators of subgraph 0, in order, are the tasks 0..T-1;
//   - a tensor produced by an operator lives from that operator to its last
//     consumer; a graph input lives from task 0; a graph output lives to the
//     end (task T-1); a produced tensor nobody reads lives at its producer;
//   - an operator's intermediates live during that operator;
//   - variable tensors are not planned: TFLite's interpreter and TFLite
//     Micro both keep them in a persistent area apart from the arena they
//     plan, so they go to Problem.Persistent, spanning the whole run;
//   - constant tensors (a buffer with data) are not planned, nor are tensors
//     no operator touches and that are neither graph inputs nor outputs;
//   - STRING, RESOURCE and VARIANT tensors are not planned: TFLite gives
//     them dynamic memory outside its arena;
//   - bytes are the product of the shape (1 for a scalar) times the element
//     size of the tensor's type; sub-byte types (INT4, UINT4, INT2) are
//     counted packed, rounded up to whole bytes;
//   - an offline memory plan (metadata "OfflineMemoryAllocation", as Vela
//     writes it) gives the fixed offsets (Problem.Fixed), read as TFLite
//     Micro reads it (offlinePlan): an offset of -1 means "plan this
//     tensor", and a variable tensor with an offset is planned in the
//     arena at it, from task 0 to the last operator naming it, rather than
//     kept persistent.
//
// Buffer IDs are tensor indices in subgraph 0, in index order. The FlatBuffer is read field by field
// from schema.fbs's field numbers, every offset checked: a malformed file is
// an *InputError naming the byte and the table being read, never a panic.
func ReadTFLiteModel(r io.Reader, name string) (*Problem, error) {
	return readParsed(r, name, parseTFLiteModel)
}

// Field numbers of schema.fbs (tensorflow/compiler/mlir/lite/schema/
// schema.fbs), the only ones read.
const (
	fbModelOperatorCodes = 1
	fbModelSubgraphs     = 2
	fbModelBuffers       = 4
	fbModelMetadata      = 6

	fbMetadataName   = 0
	fbMetadataBuffer = 1

	fbSubgraphTensors   = 0
	fbSubgraphInputs    = 1
	fbSubgraphOutputs   = 2
	fbSubgraphOperators = 3

	fbTensorShape    = 0
	fbTensorType     = 1
	fbTensorBuffer   = 2
	fbTensorName     = 3
	fbTensorVariable = 5

	fbOperatorOpcodeIndex   = 0
	fbOperatorInputs        = 1
	fbOperatorOutputs       = 2
	fbOperatorIntermediates = 8

	fbOpCodeDeprecatedBuiltin = 0
	fbOpCodeBuiltin           = 3

	fbBufferData   = 0
	fbBufferOffset = 1
)

// tfliteTypeBits is the element size in bits of each TensorType, indexed by
// its schema value; 0 marks the types TFLite allocates dynamically.
var tfliteTypeBits = [...]struct {
	name string
	bits int64
}{
	{"FLOAT32", 32}, {"FLOAT16", 16}, {"INT32", 32}, {"UINT8", 8}, {"INT64", 64},
	{"STRING", 0}, {"BOOL", 8}, {"INT16", 16}, {"COMPLEX64", 64}, {"INT8", 8},
	{"FLOAT64", 64}, {"COMPLEX128", 128}, {"UINT64", 64}, {"RESOURCE", 0},
	{"VARIANT", 0}, {"UINT32", 32}, {"UINT16", 16}, {"INT4", 4}, {"BFLOAT16", 16},
	{"INT2", 2}, {"UINT4", 4}, {"FLOAT8E4M3FN", 8}, {"FLOAT8E5M2", 8},
}

// flatbuf reads a FlatBuffer with bounds checks. The first failure sticks in
// err; later reads return zeros, so callers check err once per table.
type flatbuf struct {
	data []byte
	name string
	err  error
	// read counts the vector elements read, which may not pass
	// fbReadsPerByte per byte of the file: tables may share a vector, and
	// a model of kilobytes whose tensors all point at one shape of
	// thousands of dimensions would otherwise cost time quadratic in its
	// size.
	read int64
}

// fbReadsPerByte bounds flatbuf.read: a model whose vectors are its own
// reads about a quarter of an element per byte.
const fbReadsPerByte = 4

// spend counts reading n elements at at.
func (f *flatbuf) spend(at, n int, what string) bool {
	f.read += int64(n)
	if f.err == nil && f.read > fbReadsPerByte*int64(len(f.data))+1<<16 {
		f.fail(at, "%s: the model's tables point at the same vectors over and over: reading it would take more than %d vector elements, the limit for a file of its size", what, fbReadsPerByte*int64(len(f.data))+1<<16)
	}
	return f.err == nil
}

func (f *flatbuf) fail(at int, format string, args ...any) {
	if f.err == nil {
		f.err = &InputError{File: f.name, Msg: fmt.Sprintf("byte %d: ", at) + fmt.Sprintf(format, args...) +
			": not a well-formed TFLite model (FlatBuffer, schema.fbs)"}
	}
}

func (f *flatbuf) need(at, n int, what string) bool {
	if f.err != nil {
		return false
	}
	if at < 0 || n < 0 || at > len(f.data)-n {
		f.fail(at, "%s runs past the end of the file (%d bytes)", what, len(f.data))
		return false
	}
	return true
}

func (f *flatbuf) u16(at int, what string) int {
	if !f.need(at, 2, what) {
		return 0
	}
	return int(binary.LittleEndian.Uint16(f.data[at:]))
}

func (f *flatbuf) u32(at int, what string) uint32 {
	if !f.need(at, 4, what) {
		return 0
	}
	return binary.LittleEndian.Uint32(f.data[at:])
}

// indirect follows the unsigned offset stored at at.
func (f *flatbuf) indirect(at int, what string) int {
	off := f.u32(at, what)
	if f.err != nil {
		return 0
	}
	to := int64(at) + int64(off)
	if to >= int64(len(f.data)) {
		f.fail(at, "%s points past the end of the file", what)
		return 0
	}
	return int(to)
}

// field returns the position of field id of the table at tab, or -1 when
// the table leaves it out (its default applies).
func (f *flatbuf) field(tab, id int, what string) int {
	soff := int32(f.u32(tab, what+" table"))
	if f.err != nil {
		return -1
	}
	vt := int64(tab) - int64(soff)
	if vt < 0 || vt >= int64(len(f.data)) {
		f.fail(tab, "%s table's vtable is outside the file", what)
		return -1
	}
	vsize := f.u16(int(vt), what+" vtable")
	slot := 4 + 2*id
	if f.err != nil || slot+2 > vsize {
		return -1
	}
	off := f.u16(int(vt)+slot, what+" vtable")
	if f.err != nil || off == 0 {
		return -1
	}
	return tab + off
}

// vector returns the start and length of the vector held by field id of
// the table at tab, with elements of elem bytes; (0, 0) when absent.
func (f *flatbuf) vector(tab, id, elem int, what string) (int, int) {
	at := f.field(tab, id, what)
	if at < 0 {
		return 0, 0
	}
	v := f.indirect(at, what)
	n := f.u32(v, what+" length")
	if f.err != nil {
		return 0, 0
	}
	if uint64(n)*uint64(elem) > uint64(len(f.data)-v-4) {
		f.fail(v, "%s of %d elements runs past the end of the file", what, n)
		return 0, 0
	}
	return v + 4, int(n)
}

// table returns the position of the i-th table of a vector of tables.
func (f *flatbuf) table(vec, i int, what string) int {
	return f.indirect(vec+4*i, what)
}

func (f *flatbuf) i32s(tab, id int, what string) []int32 {
	start, n := f.vector(tab, id, 4, what)
	return f.i32sAt(start, n, what)
}

// i32sAt reads the n int32s of a vector starting at start.
func (f *flatbuf) i32sAt(start, n int, what string) []int32 {
	if !f.spend(start, n, what) {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(f.u32(start+4*i, what))
	}
	return out
}

func (f *flatbuf) scalar(tab, id, size int, what string) uint64 {
	at := f.field(tab, id, what)
	if at < 0 || !f.need(at, size, what) {
		return 0
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(f.data[at+i])
	}
	return v
}

// str reads a string, or its first max bytes.
func (f *flatbuf) str(tab, id int, what string, max int) string {
	start, n := f.vector(tab, id, 1, what)
	n = min(n, max)
	if n == 0 || !f.spend(start, n, what) {
		return ""
	}
	return string(f.data[start : start+n])
}

func parseTFLiteModel(data []byte, name string) (*Problem, error) {
	_, tensors, err := readModelTensors(data, name)
	if err != nil {
		return nil, err
	}
	p := &Problem{Name: name, Format: FormatTFLiteModel}
	var fixed []int64
	for _, t := range tensors {
		switch t.where {
		case tensorInArena:
			p.Buffers = append(p.Buffers, t.buf)
			fixed = append(fixed, t.offline)
		case tensorPersistent:
			p.Persistent = append(p.Persistent, t.buf)
		}
	}
	for _, o := range fixed {
		if o != NoOffset {
			p.Fixed = fixed
			break
		}
	}
	return p, nil
}

// modelTensor is a tensor of subgraph 0 that TFLite plans: its buffer
// (ID, bytes, lifetime), where it goes, its offline offset (NoOffset when
// none), its shape and TensorType as the model declares them, and whether
// it is a variable.
type modelTensor struct {
	buf      Buffer
	where    int
	offline  int64
	shape    []int32
	typ      uint64
	variable bool
	what     string // "tensor 3 (\"name\")", for messages
}

// readModelTensors reads the planned tensors of a `.tflite` model in
// index order, as ReadTFLiteModel describes.
func readModelTensors(data []byte, name string) (*tfliteReader, []modelTensor, error) {
	f := &flatbuf{data: data, name: name}
	defer func() { readStats.entries.Add(f.read) }()
	if !isTFLiteModel(data) {
		return nil, nil, &InputError{File: name, Msg: "not a TFLite model: want the file identifier TFL3 at byte 4"}
	}
	r := &tfliteReader{f: f, name: name}
	if err := r.open(); err != nil {
		return nil, nil, err
	}
	if err := r.lifetimes(); err != nil {
		return nil, nil, err
	}
	offline, err := r.offlinePlan()
	if err != nil {
		return nil, nil, err
	}
	var out []modelTensor
	for i := range r.ntensor {
		off := NoOffset
		if offline != nil {
			off = int64(offline[i])
		}
		t, err := r.tensor(i, off != NoOffset)
		if err != nil {
			return nil, nil, err
		}
		if t.where != tensorSkipped {
			t.offline = off
			out = append(out, t)
		}
	}
	return r, out, nil
}

// offlinePlanName is the metadata name of TFLite Micro's offline memory
// plan (kOfflineMemAllocMetadata).
const offlinePlanName = "OfflineMemoryAllocation"

// offlinePlan returns the offsets of the model's offline memory plan for
// the tensors of subgraph 0, nil when it has none. It reads the plan as
// TFLite Micro does (tensorflow/tflite-micro micro_allocation_info.cc,
// GetOfflinePlannedOffsets, at 90b983c2b3f1480642e040bbd2ddb37b998f3424):
// the metadata entry named exactly "OfflineMemoryAllocation" (the last
// such entry wins) names a buffer whose data are little-endian 32-bit
// words: a version, a subgraph index, the number of offsets, which must
// equal the number of tensors of all subgraphs together, then the
// offsets, subgraph 0's tensors first. The reader also checks what TFLite
// Micro takes on trust: that the buffer holds every word, and that each
// offset is -1 or at least 0.
func (r *tfliteReader) offlinePlan() ([]int32, error) {
	f := r.f
	metas, nmeta := f.vector(r.model, fbModelMetadata, 4, "Model.metadata")
	if f.err != nil {
		return nil, f.err
	}
	plan := -1 // the metadata entry of the plan
	var buf uint64
	for i := range nmeta {
		m := f.table(metas, i, "Metadata")
		if f.str(m, fbMetadataName, "Metadata.name", len(offlinePlanName)+1) == offlinePlanName {
			plan, buf = i, f.scalar(m, fbMetadataBuffer, 4, "Metadata.buffer")
		}
		if f.err != nil {
			return nil, f.err
		}
	}
	if plan < 0 {
		return nil, nil
	}
	bad := func(format string, args ...any) error {
		return &InputError{File: r.name, Msg: fmt.Sprintf("metadata %d (%s): ", plan, offlinePlanName) + fmt.Sprintf(format, args...)}
	}
	if buf >= uint64(r.nbuf) {
		return nil, bad("names buffer %d, but the model has %d buffers", buf, r.nbuf)
	}
	start, n := f.vector(f.table(r.bufs, int(buf), "Buffer"), fbBufferData, 1, "Buffer.data")
	if f.err != nil {
		return nil, f.err
	}
	if n < 12 {
		return nil, bad("buffer %d holds %d bytes: want at least 12 (version, subgraph, number of offsets)", buf, n)
	}
	count := int64(f.u32(start+8, "offline plan length"))
	total, err := r.allTensors()
	if err != nil {
		return nil, err
	}
	if count != int64(total) {
		return nil, bad("holds %d offsets, but the model has %d tensors in all its subgraphs: want one offset per tensor", count, total)
	}
	if int64(n) < 12+4*count {
		return nil, bad("buffer %d holds %d bytes: want %d (12 and 4 per offset for %d offsets)", buf, n, 12+4*count, count)
	}
	offs := f.i32sAt(start+12, r.ntensor, "offline plan")
	if f.err != nil {
		return nil, f.err
	}
	for i, o := range offs {
		if o < -1 {
			return nil, bad("tensor %d has offset %d: want -1 (plan it) or an offset of at least 0", i, o)
		}
	}
	return offs, nil
}

// allTensors returns the number of tensors of all subgraphs together.
func (r *tfliteReader) allTensors() (int, error) {
	f := r.f
	total := 0
	for k := range r.nsub {
		_, n := f.vector(f.table(r.subs, k, "SubGraph"), fbSubgraphTensors, 4, "SubGraph.tensors")
		total += n
	}
	return total, f.err
}

// tfliteReader is the state of parseTFLiteModel: where the vectors of the
// model and of its subgraph 0 lie, and each tensor's lifetime.
type tfliteReader struct {
	f    *flatbuf
	name string

	model           int // the Model table
	subs, nsub      int // Model.subgraphs
	bufs, nbuf      int // Model.buffers: start, length
	tv, ntensor     int // SubGraph.tensors
	ov, nop         int // SubGraph.operators
	inputs, outputs []int32
	end             int // the last task

	// first and last task per tensor, -1 while untouched.
	first, last []int
}

// open finds the vectors of the model and of its subgraph 0.
func (r *tfliteReader) open() error {
	f := r.f
	r.model = f.indirect(0, "root table offset")
	r.subs, r.nsub = f.vector(r.model, fbModelSubgraphs, 4, "Model.subgraphs")
	r.bufs, r.nbuf = f.vector(r.model, fbModelBuffers, 4, "Model.buffers")
	if f.err != nil {
		return f.err
	}
	if r.nsub == 0 {
		return &InputError{File: r.name, Msg: "the model has no subgraph"}
	}
	sg := f.table(r.subs, 0, "SubGraph 0")
	r.tv, r.ntensor = f.vector(sg, fbSubgraphTensors, 4, "SubGraph.tensors")
	r.inputs = f.i32s(sg, fbSubgraphInputs, "SubGraph.inputs")
	r.outputs = f.i32s(sg, fbSubgraphOutputs, "SubGraph.outputs")
	r.ov, r.nop = f.vector(sg, fbSubgraphOperators, 4, "SubGraph.operators")
	if f.err != nil {
		return f.err
	}
	r.end = max(r.nop-1, 0)
	return nil
}

// checkIndex checks a tensor index that where names; -1 stands for none.
func (r *tfliteReader) checkIndex(t int32, where string) (int, error) {
	if t < -1 || int(t) >= r.ntensor {
		return 0, &InputError{File: r.name, Msg: fmt.Sprintf("%s names tensor %d, but subgraph 0 has %d tensors", where, t, r.ntensor)}
	}
	return int(t), nil
}

// use extends tensor t's lifetime to task.
func (r *tfliteReader) use(t, task int) {
	if r.first[t] < 0 || task < r.first[t] {
		r.first[t] = task
	}
	r.last[t] = max(r.last[t], task)
}

// lifetimes sets the first and last task of every tensor: the inputs
// live from task 0, the operators' tensors from the first to the last
// operator naming them, the outputs to the last task.
func (r *tfliteReader) lifetimes() error {
	r.first = make([]int, r.ntensor)
	r.last = make([]int, r.ntensor)
	for i := range r.first {
		r.first[i], r.last[i] = -1, -1
	}
	for _, t := range r.inputs {
		i, err := r.checkIndex(t, "SubGraph.inputs")
		if err != nil {
			return err
		}
		if i >= 0 {
			r.use(i, 0)
		}
	}
	vecs, err := r.operatorVectors()
	if err != nil {
		return err
	}
	for _, v := range vecs {
		for _, t := range v.list {
			if t >= 0 { // -1 is an omitted optional input
				r.use(int(t), v.first)
				r.use(int(t), v.last)
			}
		}
	}
	for _, t := range r.outputs {
		i, err := r.checkIndex(t, "SubGraph.outputs")
		if err != nil {
			return err
		}
		if i >= 0 {
			if r.first[i] < 0 {
				r.first[i] = r.end
			}
			r.last[i] = r.end
		}
	}
	return nil
}

// opVector is a vector of tensor indices and the first and last operator
// naming it.
type opVector struct {
	list        []int32
	first, last int
}

// operatorVectors reads the index vectors of the operators. Operators may
// share an index vector: each is read once, and its tensors are used from
// the first to the last operator naming it, so N operators naming one
// vector of N tensors cost N, not N^2.
func (r *tfliteReader) operatorVectors() ([]opVector, error) {
	f := r.f
	var vecs []opVector
	vecAt := map[int]int{} // vector start -> index in vecs
	for k := range r.nop {
		op := f.table(r.ov, k, "Operator")
		for _, fl := range []struct {
			id   int
			what string
		}{{fbOperatorInputs, "Operator.inputs"}, {fbOperatorOutputs, "Operator.outputs"}, {fbOperatorIntermediates, "Operator.intermediates"}} {
			start, n := f.vector(op, fl.id, 4, fl.what)
			if f.err != nil {
				return nil, f.err
			}
			if v, ok := vecAt[start]; ok && n > 0 {
				vecs[v].last = k
				continue
			}
			list := f.i32sAt(start, n, fl.what)
			if f.err != nil {
				return nil, f.err
			}
			for _, t := range list {
				if _, err := r.checkIndex(t, fmt.Sprintf("operator %d", k)); err != nil {
					return nil, err
				}
			}
			vecAt[start] = len(vecs)
			vecs = append(vecs, opVector{list, k, k})
		}
	}
	return vecs, nil
}

// Where tensor reports a tensor goes.
const (
	tensorSkipped    = iota // not planned: a constant, unused, or dynamic
	tensorInArena           // a buffer of the planned arena
	tensorPersistent        // a variable, live throughout
)

// tensor reads tensor i and returns it with where it goes; offline says
// the offline plan gives it an offset.
func (r *tfliteReader) tensor(i int, offline bool) (modelTensor, error) {
	f := r.f
	tab := f.table(r.tv, i, "Tensor")
	shape := f.i32s(tab, fbTensorShape, "Tensor.shape")
	typ := f.scalar(tab, fbTensorType, 1, "Tensor.type")
	buf := f.scalar(tab, fbTensorBuffer, 4, "Tensor.buffer")
	label := f.str(tab, fbTensorName, "Tensor.name", 61)
	variable := f.scalar(tab, fbTensorVariable, 1, "Tensor.is_variable") != 0
	if f.err != nil {
		return modelTensor{}, f.err
	}
	if len(label) > 60 {
		label = label[:60] + "…"
	}
	what := fmt.Sprintf("tensor %d (%q)", i, label)
	if buf > 0 && !variable {
		constant, err := r.constant(buf, what)
		if err != nil || constant {
			return modelTensor{}, err
		}
	}
	// TFLite Micro plans a variable with an offline offset in the arena
	// (InitializeAllocationInfo): created before the first operator, used
	// to the last operator naming it. One no operator names would overlap
	// nothing there, which lifetimes cannot say: it stays persistent.
	planned := variable && offline && r.last[i] >= 0
	switch {
	case planned:
		r.first[i] = 0
	case variable:
		r.first[i], r.last[i] = 0, r.end
	}
	if r.first[i] < 0 {
		return modelTensor{}, nil
	}
	size, dynamic, err := r.tensorSize(what, typ, shape)
	if err != nil || dynamic {
		return modelTensor{}, err
	}
	t := modelTensor{
		buf:   Buffer{ID: i, Size: size, First: r.first[i], Last: r.last[i]},
		where: tensorInArena, shape: shape, typ: typ, variable: variable, what: what,
	}
	if variable && !planned {
		t.where = tensorPersistent
	}
	return t, nil
}

// constant reports whether buffer buf, of the tensor that what names,
// holds data: a constant's data lives in the model, not the arena.
func (r *tfliteReader) constant(buf uint64, what string) (bool, error) {
	if buf >= uint64(r.nbuf) {
		return false, &InputError{File: r.name, Msg: fmt.Sprintf("%s names buffer %d, but the model has %d buffers", what, buf, r.nbuf)}
	}
	f := r.f
	b := f.table(r.bufs, int(buf), "Buffer")
	_, ndata := f.vector(b, fbBufferData, 1, "Buffer.data")
	offset := f.scalar(b, fbBufferOffset, 8, "Buffer.offset")
	if f.err != nil {
		return false, f.err
	}
	return ndata > 0 || offset > 1, nil
}

// tensorSize returns the bytes of a tensor of type typ and shape, or
// reports it dynamic (STRING, RESOURCE, VARIANT: outside the arena).
func (r *tfliteReader) tensorSize(what string, typ uint64, shape []int32) (size int64, dynamic bool, err error) {
	if int(int8(typ)) < 0 || int(typ) >= len(tfliteTypeBits) {
		return 0, false, &InputError{File: r.name, Msg: fmt.Sprintf("%s has unknown type %d (want a TensorType of schema.fbs, 0 to %d)", what, int8(typ), len(tfliteTypeBits)-1)}
	}
	tt := tfliteTypeBits[typ]
	if tt.bits == 0 {
		return 0, true, nil
	}
	elems := uint64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, false, &InputError{File: r.name, Msg: fmt.Sprintf("%s has dimension %d in its shape %v: a dynamic shape has no size to plan", what, d, shape)}
		}
		hi, lo := bits.Mul64(elems, uint64(d))
		if hi != 0 {
			return 0, false, &InputError{File: r.name, Msg: fmt.Sprintf("%s: shape %v overflows 64 bits", what, shape)}
		}
		elems = lo
	}
	hi, lo := bits.Mul64(elems, uint64(tt.bits))
	if hi != 0 || lo/8 > math.MaxInt64-1 {
		return 0, false, &InputError{File: r.name, Msg: fmt.Sprintf("%s: %s %v overflows 64 bits", what, tt.name, shape)}
	}
	return int64((lo + 7) / 8), false, nil
}
