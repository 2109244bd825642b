package workloads

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"testing"
)

func init() {
	Register(Info{
		Name:   "test/readers-tiny",
		Doc:    "n buffers in a chain, for the loader's tests",
		Params: []ParamDoc{{Name: "n", Default: "3", Doc: "buffers"}},
		New: func(a *Args) (*Problem, error) {
			n := a.Int("n", 3)
			if n < 0 {
				return nil, fmt.Errorf("n must be >= 0")
			}
			p := &Problem{}
			for i := range n {
				p.Buffers = append(p.Buffers, Buffer{ID: i, Size: int64(i + 1), First: i, Last: i + 1})
			}
			return p, nil
		},
	})
	Register(Info{
		Name: "test/readers-broken",
		Doc:  "a generator with a bug",
		New: func(a *Args) (*Problem, error) {
			return &Problem{Buffers: []Buffer{{ID: 0, Size: 1, First: 3, Last: 2}}}, nil
		},
	})
}

func TestLoadFiles(t *testing.T) {
	twoBufs := []Buffer{{ID: 0, Size: 16, First: 0, Last: 1}, {ID: 1, Size: 8, First: 1, Last: 2}}
	cases := []struct {
		path, format string
		bufs         []Buffer
		capacity     int64
		events       int // -1: no trace
	}{
		{"testdata/load/records.csv", FormatTFLite, twoBufs, 0, -1},
		{"testdata/load/mm.csv", FormatMiniMalloc, twoBufs, 0, -1},
		{"testdata/load/legacy.csv", FormatMiniMalloc, twoBufs, 0, -1},
		{"testdata/load/inst.4096.csv", FormatMiniMalloc, twoBufs, 4096, -1},
		{"testdata/load/p.json", FormatJSON, twoBufs, 0, -1},
		{"testdata/load/trace.csv", FormatTrace, []Buffer{{ID: 0, Size: 16, First: 0, Last: 2}, {ID: 1, Size: 8, First: 1, Last: 3}}, 0, 4},
		{"testdata/load/empty-trace.csv", FormatTrace, nil, 0, 0},
		{"testdata/pytorch/state_only.pickle", FormatPyTorch, []Buffer{{ID: 0, Size: 1000, First: 0, Last: 1}, {ID: 1, Size: 2048, First: 1, Last: 1}}, 0, 2},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			w, err := Load(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if w.Format != c.format || w.Spec != c.path || w.Problem.Name != c.path {
				t.Errorf("format %q spec %q name %q", w.Format, w.Spec, w.Problem.Name)
			}
			if !reflect.DeepEqual(w.Problem.Buffers, c.bufs) && !(len(c.bufs) == 0 && len(w.Problem.Buffers) == 0) {
				t.Errorf("buffers %+v, want %+v", w.Problem.Buffers, c.bufs)
			}
			if w.Problem.Capacity != c.capacity {
				t.Errorf("capacity %d, want %d", w.Problem.Capacity, c.capacity)
			}
			switch {
			case c.events < 0 && w.Trace != nil:
				t.Errorf("unexpected trace")
			case c.events >= 0 && (w.Trace == nil || len(w.Trace.Events) != c.events || w.Trace.Name != c.path):
				t.Errorf("trace %+v, want %d events", w.Trace, c.events)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		spec, want string
		input      bool // an *InputError, else a *UsageError
		missing    bool // wraps fs.ErrNotExist
	}{
		{"testdata/load/empty.csv", "testdata/load/empty.csv: empty file: want a TFLite header size,first_task,last_task, a MiniMalloc header id,lower,upper,size[,alignment][,hint][,gaps][,offset] or buffer,start,end,size, trace lines a,ID,BYTES / f,ID, / v,ID,OF, a membench JSON object, a Chrome trace (a JSON object with \"traceEvents\" or an array of trace events), a PyTorch snapshot pickle, a .tflite model or an .onnx model", true, false},
		{"testdata/load/badheader.csv", `testdata/load/badheader.csv:4: unknown header "size,first,last": want size,first_task,last_task[,reuse|deps] or x,y[,z],first_task,last_task[,element_size] or b,h,w,c,first_task,last_task[,element_size]`, true, false},
		{"testdata/load/badrow.csv", `testdata/load/badrow.csv:3: first_task: want an integer, got "x"`, true, false},
		{"testdata/load/unknown.txt", `testdata/load/unknown.txt:1: unknown header "hello, world": want a TFLite header size,first_task,last_task, a MiniMalloc header id,lower,upper,size[,alignment][,hint][,gaps][,offset] or buffer,start,end,size, trace lines a,ID,BYTES / f,ID, / v,ID,OF, a membench JSON object, a Chrome trace (a JSON object with "traceEvents" or an array of trace events), a PyTorch snapshot pickle, a .tflite model or an .onnx model`, true, false},
		{"testdata/load", `workload "testdata/load" is a directory, not a file`, false, false},
		{"no/such", `unknown workload "no/such": no such file or registered name (valid: test/readers-broken, test/readers-tiny)`, false, true},
		{"test/readers-tiny?m=1", `test/readers-tiny: unknown parameter "m" (valid: n)`, false, false},
		{"test/readers-tiny?n=x", `test/readers-tiny: parameter n="x": want an integer`, false, false},
		{"test/readers-tiny?n", `spec "test/readers-tiny?n": parameter "n" needs the form key=value`, false, false},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			_, err := Load(c.spec)
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
			var ie *InputError
			var ue *UsageError
			if c.input && !errors.As(err, &ie) || !c.input && !errors.As(err, &ue) {
				t.Fatalf("error is a %T", err)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != c.missing {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", got, c.missing)
			}
		})
	}
}

func TestLoadRegistered(t *testing.T) {
	w, err := Load("test/readers-tiny?n=2")
	if err != nil {
		t.Fatal(err)
	}
	want := &Problem{Name: "test/readers-tiny?n=2", Buffers: []Buffer{{0, 1, 0, 1}, {1, 2, 1, 2}}}
	if !reflect.DeepEqual(w.Problem, want) || w.Trace != nil || w.Spec != "test/readers-tiny?n=2" || w.Format != "" {
		t.Fatalf("got %+v", w)
	}
	if _, err := Load("test/readers-tiny?n=-1"); err == nil || err.Error() != "n must be >= 0" {
		t.Fatalf("generator error: %v", err)
	}
	_, err = Load("test/readers-broken")
	if want := "test/readers-broken: buffer 0 (id 0) ends at task 2 before it starts at 3"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
