// Package hostile generates malformed and adversarial workload files: the
// shapes that made readers run out of memory, overflow their stack, take
// time quadratic in their size or accept values that wrap around. The
// tests of cmd/membench and workloads read them; the small ones are also
// committed under cmd/membench/testdata/hostile/.
package hostile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"strconv"
	"strings"

	flatbuffers "github.com/google/flatbuffers/go"

	"membench/internal/onnxbuild"
	"membench/internal/tflitebuild"
)

// Gzip compresses data as one gzip member.
func Gzip(data []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// GzipBomb is a gzip file that expands to n bytes of a trace comment.
func GzipBomb(n int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	line := []byte("#" + strings.Repeat(" ", 1023))
	for w := 0; w < n; w += len(line) {
		zw.Write(line[:min(len(line), n-w)])
	}
	zw.Close()
	return b.Bytes()
}

// Pickle writes the opcodes of protocol 2 pickles.
type Pickle struct{ bytes.Buffer }

// NewPickle starts a protocol 2 pickle.
func NewPickle() *Pickle {
	p := &Pickle{}
	p.WriteString("\x80\x02")
	return p
}

// Str pushes a string (BINUNICODE).
func (p *Pickle) Str(s string) *Pickle {
	p.WriteByte('X')
	binary.Write(p, binary.LittleEndian, uint32(len(s)))
	p.WriteString(s)
	return p
}

// Int pushes a 32-bit integer (BININT).
func (p *Pickle) Int(v int32) *Pickle {
	p.WriteByte('J')
	binary.Write(p, binary.LittleEndian, v)
	return p
}

// Op writes opcodes as they are.
func (p *Pickle) Op(ops string) *Pickle { p.WriteString(ops); return p }

// Put memoizes the top of the stack at k (LONG_BINPUT).
func (p *Pickle) Put(k uint32) *Pickle {
	p.WriteByte('r')
	binary.Write(p, binary.LittleEndian, k)
	return p
}

// Get pushes memo entry k (LONG_BINGET).
func (p *Pickle) Get(k uint32) *Pickle {
	p.WriteByte('j')
	binary.Write(p, binary.LittleEndian, k)
	return p
}

// snapshot wraps entries (the pickled trace entries of device 0, pushed
// by entries) in a snapshot dict.
func snapshot(entries func(p *Pickle)) []byte {
	p := NewPickle()
	p.Op("}(").Str("segments").Op("]").Str("device_traces").Op("](](")
	entries(p)
	p.Op("eeu.")
	return p.Bytes()
}

// DeepList is a pickle of a list nested depth deep, built on the stack:
// depth EMPTY_LISTs then depth-1 APPENDs.
func DeepList(depth int) []byte {
	p := NewPickle()
	p.Op(strings.Repeat("]", depth) + strings.Repeat("a", depth-1) + ".")
	return p.Bytes()
}

// DeepFrames is a snapshot whose one entry's "frames" is a list nested
// depth deep, built through the memo with a stack of three items.
func DeepFrames(depth int) []byte {
	return snapshot(func(p *Pickle) {
		p.Op("}(").Str("action").Str("alloc").Str("addr").Int(0).Str("size").Int(64).Str("frames")
		p.Op("]").Put(0)
		for k := 1; k < depth; k++ {
			p.Op("]").Put(uint32(k)).Op("a").Op("0").Get(uint32(k))
		}
		p.Op("0").Get(0).Op("u")
	})
}

// SharedHistory is a PyTorch 1.13 snapshot (a list of segments) of one
// segment of blocks that are all one block dict, whose history lists one
// allocation dict entries times, all through the pickle memo: about six
// bytes per block and per entry, blocks*entries allocations.
func SharedHistory(blocks, entries int) []byte {
	p := NewPickle()
	p.Op("](}(").Str("device").Int(0).Str("address").Int(0).Str("blocks").Op("](")
	p.Op("}(").Str("size").Int(512).Str("state").Str("active_allocated").Str("history").Op("](")
	p.Op("}(").Str("addr").Int(0).Str("real_size").Int(512).Op("u").Put(0)
	for range entries - 1 {
		p.Get(0)
	}
	p.Op("eu").Put(1)
	for range blocks - 1 {
		p.Get(1)
	}
	p.Op("eue.")
	return p.Bytes()
}

// Long4Size is a snapshot whose one alloc has a size pickled as a LONG4
// of n bytes.
func Long4Size(n int) []byte {
	return snapshot(func(p *Pickle) {
		p.Op("}(").Str("action").Str("alloc").Str("addr").Int(0).Str("size")
		p.WriteByte(0x8b)
		binary.Write(p, binary.LittleEndian, uint32(n))
		p.Write(bytes.Repeat([]byte{0x11}, n-1))
		p.WriteByte(0x01)
		p.Op("u")
	})
}

// TextLong is a snapshot whose one alloc has a size pickled as a text
// LONG of n digits.
func TextLong(n int) []byte {
	return snapshot(func(p *Pickle) {
		p.Op("}(").Str("action").Str("alloc").Str("addr").Int(0).Str("size")
		p.Op("L" + strings.Repeat("7", n) + "L\n")
		p.Op("u")
	})
}

// TextInt is a snapshot whose one alloc has a size pickled as a text INT
// with the argument arg.
func TextInt(arg string) []byte {
	return snapshot(func(p *Pickle) {
		p.Op("}(").Str("action").Str("alloc").Str("addr").Int(0).Str("size")
		p.Op("I" + arg + "\n")
		p.Op("u")
	})
}

// ChromeTrace is a Chrome trace of the [memory] events with the given
// args, one event a line.
func ChromeTrace(args ...string) []byte {
	var b strings.Builder
	b.WriteString("{\"traceEvents\": [\n")
	for i, a := range args {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"name": "[memory]", "ph": "i", "ts": ` + strconv.Itoa(i+1) + `, "args": {` + a + `}}`)
	}
	b.WriteString("\n]}\n")
	return []byte(b.String())
}

// DeepJSON is a membench JSON problem whose provenance holds arrays
// nested depth deep.
func DeepJSON(depth int) []byte {
	return []byte(`{"provenance": {"x": ` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}, "buffers": []}`)
}

// DeepChrome is a Chrome trace whose one event holds arrays nested depth
// deep.
func DeepChrome(depth int) []byte {
	return []byte(`{"traceEvents": [{"name": "x", "args": {"x": ` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}]}`)
}

// TFLiteSharedInputs is a .tflite model of n tensors and n operators whose
// tables all point to one vector of every tensor as inputs.
func TFLiteSharedInputs(n int) []byte {
	return tflite(n, func(b *flatbuffers.Builder) (tensors, ops flatbuffers.UOffsetT) {
		all := make([]int32, n)
		for i := range all {
			all[i] = int32(i)
		}
		shape := tflitebuild.Ints(b, []int32{4})
		tens := make([]flatbuffers.UOffsetT, n)
		for i := range tens {
			tens[i] = tensor(b, shape)
		}
		in, out := tflitebuild.Ints(b, all), tflitebuild.Ints(b, nil)
		opv := make([]flatbuffers.UOffsetT, n)
		for i := range opv {
			b.StartObject(9)
			b.PrependUOffsetTSlot(1, in, 0)
			b.PrependUOffsetTSlot(2, out, 0)
			opv[i] = b.EndObject()
		}
		return tflitebuild.Tables(b, tens), tflitebuild.Tables(b, opv)
	})
}

// TFLiteSharedShape is a .tflite model of n tensors, all graph inputs,
// whose tables all point to one shape of n dimensions.
func TFLiteSharedShape(n int) []byte {
	return tflite(n, func(b *flatbuffers.Builder) (tensors, ops flatbuffers.UOffsetT) {
		dims := make([]int32, n)
		for i := range dims {
			dims[i] = 1
		}
		shape := tflitebuild.Ints(b, dims)
		tens := make([]flatbuffers.UOffsetT, n)
		for i := range tens {
			tens[i] = tensor(b, shape)
		}
		return tflitebuild.Tables(b, tens), tflitebuild.Tables(b, nil)
	})
}

// tensor is a FLOAT32 tensor of the given shape.
func tensor(b *flatbuffers.Builder, shape flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	b.StartObject(10)
	b.PrependUOffsetTSlot(0, shape, 0)
	return b.EndObject()
}

// tflite builds a model of one subgraph whose n tensors are all graph
// inputs and outputs.
func tflite(n int, body func(b *flatbuffers.Builder) (tensors, ops flatbuffers.UOffsetT)) []byte {
	b := flatbuffers.NewBuilder(1024)
	tv, opv := body(b)
	io := make([]int32, n)
	for i := range io {
		io[i] = int32(i)
	}
	iv := tflitebuild.Ints(b, io)
	b.StartObject(5)
	b.PrependUOffsetTSlot(0, tv, 0)
	b.PrependUOffsetTSlot(1, iv, 0)
	b.PrependUOffsetTSlot(2, iv, 0)
	b.PrependUOffsetTSlot(3, opv, 0)
	sg := b.EndObject()
	subs := tflitebuild.Tables(b, []flatbuffers.UOffsetT{sg})
	b.StartVector(4, 0, 4)
	bv := b.EndVector(0)
	b.StartObject(5)
	b.PrependUint32Slot(0, 3, 0)
	b.PrependUOffsetTSlot(2, subs, 0)
	b.PrependUOffsetTSlot(4, bv, 0)
	b.FinishWithFileIdentifier(b.EndObject(), []byte("TFL3"))
	return b.FinishedBytes()
}

// ONNXSharedRank is an .onnx model of one graph input of rank dims
// (every dimension 1) read by n Relu nodes, none of whose outputs has a
// declared shape: inferring each output's shape visits all the input's
// dimensions, dims*n steps from a file of about 4*dims + 20*n bytes.
func ONNXSharedRank(n, dims int) []byte {
	shape := make([]int64, dims)
	for i := range shape {
		shape[i] = 1
	}
	g := onnxbuild.Graph{Inputs: []onnxbuild.Value{onnxbuild.V("x", onnxbuild.Float, shape...)}}
	for i := range n {
		g.Nodes = append(g.Nodes, onnxbuild.Node{Op: "Relu", Inputs: []string{"x"}, Outputs: []string{"r" + strconv.Itoa(i)}})
	}
	return onnxbuild.Model{Graph: g}.Bytes()
}

// ONNXDeepGroups is a file named .onnx of n nested protobuf groups (the
// deprecated wire type 3), which a recursive skipper follows level by
// level.
func ONNXDeepGroups(n int) []byte {
	return []byte(strings.Repeat("\xcb\x06", n)) // field 105, start group
}

// File is one hostile input of the corpus.
type File struct {
	Name string
	// Data generates the file's content.
	Data func() []byte
	// Committed files are small enough to keep in
	// cmd/membench/testdata/hostile/; the others are generated by the
	// tests that read them.
	Committed bool
}

// smallTrace is a valid membench trace, compressed by the gzip inputs.
const smallTrace = "a,1,64\na,2,128\nf,1,\nf,2,\n"

// Files is the corpus of hostile inputs, the shapes of membench issue 18
// in sizes that fail fast once the readers bound their work; the large
// ones are the sizes that exhausted time or memory before.
func Files() []File {
	return []File{
		{"gzip-bomb.gz", func() []byte { return GzipBomb(16 << 20) }, true},
		{"gzip-header.gz", func() []byte { return []byte("\x1f\x8bnot a gzip header, though it starts like one\n") }, true},
		{"gzip-trailing.gz", func() []byte { return append(Gzip([]byte(smallTrace)), "trailing garbage\n"...) }, true},
		{"gzip-truncated.gz", func() []byte { z := Gzip([]byte(smallTrace)); return z[:len(z)-6] }, true},
		{"pickle-deep.pickle", func() []byte { return DeepList(2000) }, true},
		{"pickle-deep-1e7.pickle", func() []byte { return DeepList(10_000_000) }, false},
		{"pickle-shared-history.pickle", func() []byte { return SharedHistory(1000, 1000) }, true},
		{"pickle-shared-history-big.pickle", func() []byte { return SharedHistory(33000, 33000) }, false},
		{"pickle-long4.pickle", func() []byte { return Long4Size(9) }, true},
		{"pickle-long4-10mb.pickle", func() []byte { return Long4Size(10 << 20) }, false},
		{"pickle-text-long.pickle", func() []byte { return TextLong(21) }, true},
		{"pickle-text-long-4e6.pickle", func() []byte { return TextLong(4_000_000) }, false},
		{"pickle-text-int.pickle", func() []byte { return TextInt("abc") }, true},
		{"chrome-addr-wrap.json", func() []byte {
			return ChromeTrace(`"Addr": 18446744073709551616, "Bytes": 64`, `"Addr": 0, "Bytes": -64`)
		}, true},
		{"chrome-device-type.json", func() []byte {
			return ChromeTrace(`"Addr": 1, "Bytes": 64, "Device Type": 9223372036854775808, "Device Id": 0`)
		}, true},
		{"json-deep.json", func() []byte { return DeepJSON(10001) }, true},
		{"json-deep-1e7.json", func() []byte { return DeepJSON(10_000_000) }, false},
		{"chrome-deep.json", func() []byte { return DeepChrome(10001) }, true},
		{"chrome-deep-1e7.json", func() []byte { return DeepChrome(10_000_000) }, false},
		{"tflite-shared-inputs.tflite", func() []byte { return TFLiteSharedInputs(2500) }, false},
		{"tflite-shared-shape.tflite", func() []byte { return TFLiteSharedShape(2000) }, false},
		{"onnx-shared-rank.onnx", func() []byte { return ONNXSharedRank(20000, 20000) }, false},
		{"onnx-deep-groups.onnx", func() []byte { return ONNXDeepGroups(1_000_000) }, false},
	}
}
