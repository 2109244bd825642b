package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
func Load(spec string) (*Workload, error) {
	st, err := os.Stat(spec)
	switch {
	case err == nil && st.IsDir():
		return nil, Usagef("workload %q is a directory, not a file", spec)
	case err == nil:
		return LoadFile(spec)
	}
	return loadRegistered(spec)
}

// LoadFile reads a workload file, sniffing its format: a pickle (first byte
// 0x80) is a PyTorch snapshot, '{' starts membench JSON, a CSV header names
// TFLite records or a MiniMalloc problem, and a/f/v lines are a trace. The
// problem's Name is the path.
func LoadFile(path string) (*Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &InputError{File: path, Msg: "cannot read: " + err.Error()}
	}
	return decode(data, path)
}

// decode reads data in whatever format it is in; name labels errors.
func decode(data []byte, name string) (*Workload, error) {
	data = bytes.TrimPrefix(data, []byte(BOM))
	format, err := sniff(data, name)
	if err != nil {
		return nil, err
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
	case FormatTrace:
		w.Trace, w.Problem, err = parseTrace(data, name)
	case FormatPyTorch:
		if w.Trace, err = parsePyTorch(data, name); err == nil {
			w.Problem, err = w.Trace.ToProblem()
		}
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// sniff tells the format of a file from its first byte or first content
// line.
func sniff(data []byte, name string) (string, error) {
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
	if len(f[0]) == 1 && (f[0][0] == 'a' || f[0][0] == 'f' || f[0][0] == 'v') {
		return FormatTrace, nil
	}
	for _, c := range f {
		switch string(c) {
		case "id", "buffer", "lower", "upper", "start", "end":
			return FormatMiniMalloc, nil
		}
	}
	if string(f[0]) == "size" {
		return FormatTFLite, nil // its reader explains a wrong header
	}
	return "", &InputError{File: name, Line: s.line, Msg: fmt.Sprintf("unknown header %s: want %s", Echo(l), formatsWanted)}
}

const formatsWanted = "a TFLite header " + tfliteHeader + ", a MiniMalloc header " + mmWant +
	", trace lines a,ID,BYTES / f,ID, / v,ID,OF, a membench JSON object or a PyTorch snapshot pickle"

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
			return nil, Usagef("unknown workload %s: no such file, and no workloads are registered", Echo(sp.Name))
		}
		return nil, Usagef("unknown workload %s: no such file or registered name (valid: %s)", Echo(sp.Name), strings.Join(names, ", "))
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
