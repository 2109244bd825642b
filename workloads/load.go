package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
)

// Workload is a loaded workload. Problem is always set; Trace is the
// recorded trace when the input was one, else nil (use Problem.ToTrace).
type Workload struct {
	// Spec is the spec or path as given.
	Spec    string
	Problem *Problem
	Trace   *Trace
	// Format is the file format read (one of the Format constants), or ""
	// for a registered workload.
	Format string
}

// Warnings returns what the reader skipped in the file and said so
// (Trace.Warnings), or nil.
func (w *Workload) Warnings() []string {
	if w.Trace == nil {
		return nil
	}
	return w.Trace.Warnings
}

// The file formats Load recognises (DESIGN §5).
const (
	FormatTFLite     = "tflite"
	FormatMiniMalloc = "minimalloc"
	FormatTrace      = "trace"
	FormatJSON       = "json"
	FormatPyTorch    = "pytorch"
)

// Load opens a workload: a file path (format sniffed from its header or
// content) or a registered name with parameters, e.g.
// `synthetic/random-dag?n=1000&seed=3`. An existing file wins over a name.
//
// A file may take reader options after a '?', as a name takes parameters:
// `trace.json?device=cuda:0` picks the device of a Chrome trace,
// `snap.pickle?device=1` that of a PyTorch snapshot,
// `model.tflite?storage=texture2d&precision=f16` lays a model's tensors
// out as TFLite's GPU delegate would (ReadTFLiteGPU). The spec
// keeps them, so a sweep's records say which device was read.
func Load(spec string) (*Workload, error) { return LoadWith(spec, LoadOptions{}) }

// DefaultMaxInput is the most bytes a workload file may hold, or expand
// to when it is gzip-compressed, unless LoadOptions.MaxInput or the file
// option max-input says otherwise: a 10 MB file that expands to 10 GB is
// refused instead of exhausting memory. 1 GiB keeps a reader, which holds
// the file and about as much again, within a process of 8 GiB of address
// space.
const DefaultMaxInput = 1 << 30

// LoadOptions tune LoadWith.
type LoadOptions struct {
	// MaxInput caps the bytes a file may hold or expand to; 0 means
	// DefaultMaxInput. A file's own option `?max-input=SIZE` wins.
	MaxInput int64
}

// LoadWith is Load with options. A file may also take the option
// max-input=SIZE (K/M/G/T suffixes), as in `trace.gz?max-input=16G`,
// which a sweep's config can give.
func LoadWith(spec string, o LoadOptions) (*Workload, error) {
	st, err := os.Stat(spec)
	switch {
	case err == nil && st.IsDir():
		return nil, Usagef("workload %q is a directory, not a file", spec)
	case err == nil:
		return loadFile(spec, nil, o)
	}
	if path, query, ok := strings.Cut(spec, "?"); ok {
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			opts, err := url.ParseQuery(query)
			if err != nil {
				return nil, Usagef("workload %q: options after '?': %v", spec, err)
			}
			w, err := loadFile(path, opts, o)
			if err == nil {
				w.Spec = spec
				w.Problem.Name = spec
				if w.Trace != nil {
					w.Trace.Name = spec
				}
			}
			return w, err
		}
	}
	return loadRegistered(spec)
}

// LoadFile reads a workload file, sniffing its format: a file named .onnx
// or holding a protobuf ModelProto is an ONNX model, TFL3 at byte 4 marks
// a TFLite model, a pickle (first byte 0x80) is a PyTorch snapshot, '{'
// starts membench JSON, a CSV header names TFLite records or a MiniMalloc
// problem, and a/f/v lines are a trace. The problem's Name is the path.
func LoadFile(path string) (*Workload, error) { return loadFile(path, nil, LoadOptions{}) }

// fileOptions are the options each format takes after a file's '?', besides
// max-input, which every file takes.
var fileOptions = map[string][]string{FormatChrome: {"device"}, FormatPyTorch: {"device"},
	FormatTFLiteModel: {gpuStorageOption, gpuPrecisionOption}}

func loadFile(path string, opts url.Values, o LoadOptions) (*Workload, error) {
	if v, ok := opts["max-input"]; ok {
		n, err := ParseBytes(v[len(v)-1])
		if err != nil || n < 1 {
			return nil, Usagef("%s: max-input=%s: want a positive byte size such as 64M or 16G", path, Echo(v[len(v)-1]))
		}
		o.MaxInput = n
		opts = maps.Clone(opts)
		delete(opts, "max-input")
	}
	limit := o.maxInput()
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &InputError{File: path, Msg: "cannot read: " + err.Error()}
	}
	defer f.Close()
	data, err := readLimited(f, path, limit)
	if err != nil {
		return nil, err
	}
	return decode(data, path, opts, limit)
}

func (o LoadOptions) maxInput() int64 {
	if o.MaxInput > 0 {
		return o.MaxInput
	}
	return DefaultMaxInput
}

// LoadBytes reads a workload held in memory (an embedded file, say) exactly
// as LoadFile reads one on disk; name labels errors and gives the capacity
// of a MiniMalloc instance named NAME.CAPACITY.csv.
func LoadBytes(data []byte, name string) (*Workload, error) {
	return decode(data, name, nil, DefaultMaxInput)
}

// decode reads data in whatever format it is in; name labels errors.
//
// A gzip-compressed file is decompressed first, whatever its format, to at
// most limit bytes, and a UTF-8 byte-order mark is dropped.
func decode(data []byte, name string, opts url.Values, limit int64) (*Workload, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		var err error
		if data, err = gunzip(data, name, limit); err != nil {
			return nil, err
		}
	} else {
		readStats.bytes.Add(int64(len(data)))
	}
	data = bytes.TrimPrefix(data, []byte(BOM))
	format, err := sniff(data, name)
	if err != nil {
		return nil, err
	}
	for k := range opts {
		if !slices.Contains(fileOptions[format], k) {
			valid := "none"
			if v := fileOptions[format]; len(v) > 0 {
				valid = strings.Join(v, ", ")
			}
			return nil, Usagef("%s: unknown option %q for a %s file (valid: %s)", name, k, format, valid)
		}
	}
	w := &Workload{Spec: name, Format: format}
	switch format {
	case FormatTFLite:
		w.Problem, err = parseTFLite(data, name)
	case FormatMiniMalloc:
		w.Problem, err = parseMiniMalloc(data, name)
		if err == nil && w.Problem.Capacity == 0 {
			w.Problem.Capacity = capacityFromName(name)
		}
	case FormatJSON:
		w.Problem, err = parseJSON(data, name)
	case FormatTFLiteModel:
		var o GPUOptions
		if o, err = ParseGPUOptions(name, opts.Get(gpuStorageOption), opts.Get(gpuPrecisionOption)); err == nil {
			w.Problem, err = ReadTFLiteGPU(data, name, o)
		}
	case FormatONNXModel:
		w.Problem, err = parseONNXModel(data, name)
	case FormatChrome:
		w.Trace, w.Problem, err = parseChromeTrace(data, name, opts.Get("device"))
	case FormatTrace:
		w.Trace, w.Problem, err = parseTrace(data, name)
	case FormatPyTorch:
		if w.Trace, err = parsePyTorch(data, name, opts.Get("device")); err == nil {
			w.Problem, err = w.Trace.ToProblem()
		}
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// sniff tells the format of a file from its first byte or first content
// line; an ONNX model, which has no magic number, from its name or its
// protobuf (isONNXModel).
func sniff(data []byte, name string) (string, error) {
	if isONNXModel(data, name) {
		return FormatONNXModel, nil
	}
	if isTFLiteModel(data) {
		return FormatTFLiteModel, nil
	}
	if isChromeTrace(data) {
		return FormatChrome, nil
	}
	if len(data) > 0 && data[0] == 0x80 {
		return FormatPyTorch, nil
	}
	if t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf"); len(t) > 0 && t[0] == '{' {
		return FormatJSON, nil
	}
	s := newLineScanner(data)
	l, ok := s.next()
	if !ok {
		if len(bytes.TrimSpace(data)) > 0 {
			return FormatTrace, nil // only comments: an empty trace
		}
		return "", &InputError{File: name, Msg: "empty file: want " + formatsWanted}
	}
	f := s.split(l)
	if len(f[0]) == 1 && (f[0][0] == 'a' || f[0][0] == 'f' || f[0][0] == 'v' || f[0][0] == 'e') {
		return FormatTrace, nil
	}
	for _, c := range f {
		switch string(c) {
		case "id", "buffer", "buffer_id", "lower", "upper", "start", "begin", "end":
			return FormatMiniMalloc, nil
		}
	}
	if string(f[0]) == "size" || slices.ContainsFunc(f, func(c []byte) bool { return string(c) == "first_task" }) {
		return FormatTFLite, nil // its reader explains a wrong header (texture and BHWC headers: DESIGN §17)
	}
	return "", &InputError{File: name, Line: s.line, Msg: fmt.Sprintf("unknown header %s: want %s", Echo(l), formatsWanted)}
}

const formatsWanted = "a TFLite header " + tfliteHeader + ", a MiniMalloc header " + mmWant +
	", trace lines a,ID,BYTES / f,ID, / v,ID,OF, a membench JSON object, a Chrome trace (a JSON object with \"traceEvents\" or an array of trace events)," +
	" a PyTorch snapshot pickle, a .tflite model or an .onnx model"

// validNames lists the names a user may have meant: all of them when they
// are few, else those of the family the name asks for, else the families.
func validNames(name string, names []string) string {
	if len(names) <= 20 {
		return "valid: " + strings.Join(names, ", ")
	}
	family, _, _ := strings.Cut(name, "/")
	var same, families []string
	for _, n := range names {
		f, _, _ := strings.Cut(n, "/")
		if f == family {
			same = append(same, n)
		}
		if len(families) == 0 || families[len(families)-1] != f+"/..." {
			families = append(families, f+"/...")
		}
	}
	if len(same) > 0 && len(same) <= 40 {
		return "valid in " + family + "/: " + strings.Join(same, ", ") + "; `membench list workloads` lists all"
	}
	return "families: " + strings.Join(families, ", ") + "; `membench list workloads` lists every name"
}

// loadRegistered builds a registered workload from its spec.
func loadRegistered(spec string) (*Workload, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	info, ok := Lookup(sp.Name)
	if !ok {
		var names []string
		for _, in := range All() {
			names = append(names, in.Name)
		}
		if len(names) == 0 {
			return nil, &UsageError{Msg: fmt.Sprintf("unknown workload %s: no such file, and no workloads are registered", Echo(sp.Name)), Err: fs.ErrNotExist}
		}
		return nil, &UsageError{Msg: fmt.Sprintf("unknown workload %s: no such file or registered name (%s)", Echo(sp.Name), validNames(sp.Name, names)), Err: fs.ErrNotExist}
	}
	args := NewArgs(sp)
	p, err := info.New(args)
	if cerr := args.Check(info.Params); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("workload %s returned no problem", sp.Name)
	}
	p.Name = spec
	if err := checkProblem(p); err != nil {
		return nil, err
	}
	return &Workload{Spec: spec, Problem: p}, nil
}
