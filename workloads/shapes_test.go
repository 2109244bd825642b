package workloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestReallocationGraphGoldens(t *testing.T) {
	data, err := os.ReadFile("testdata/litert_reallocation_graph.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			Test        string
			Deps, Graph [][]int
		}
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		got := ReallocationGraph(c.Deps)
		if !slices.EqualFunc(got, c.Graph, func(a, b []int) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) }) {
			t.Errorf("%s: ReallocationGraph = %v, want %v", c.Test, got, c.Graph)
		}
	}
}

func TestReadTFLiteSizeTypes(t *testing.T) {
	tests := []struct {
		name, in string
		typ      SizeType
		elem     int64
		sizes    []int64
		shapes   []Shape
		reuse    [][]int
	}{
		{"bytes", "size,first_task,last_task\n16,0,1\n", SizeBytes, 0, []int64{16}, nil, nil},
		{"2d default element", "x,y,first_task,last_task\n2,8,0,1\n1,12,2,4\n", SizeTexture2D, 1,
			[]int64{16, 12}, []Shape{{2, 8}, {1, 12}}, nil},
		{"3d", "x,y,z,first_task,last_task,element_size\n1,2,8,0,1,8\n4,3,2,1,2,8\n", SizeTexture3D, 8,
			[]int64{128, 192}, []Shape{{1, 2, 8}, {4, 3, 2}}, nil},
		{"bhwc", "b,h,w,c,first_task,last_task,element_size\n1,1,2,8,0,1,2\n", SizeBHWC, 2,
			[]int64{32}, []Shape{{1, 1, 2, 8}}, nil},
		// A zero extent empties the texture, whatever the others: the
		// product of the others must not be taken for an overflow
		// (strategies/testdata/litert/14-3d-wide-n300.csv, line 80).
		{"zero extent beside the largest", "x,y,z,first_task,last_task,element_size\n3757277482,4294967295,0,90,93,8\n", SizeTexture3D, 8,
			[]int64{0}, []Shape{{3757277482, 4294967295, 0}}, nil},
		{"reuse sorted and deduplicated", "size,first_task,last_task,reuse\n4,0,0,2 1 2\n4,1,1,\n4,2,2,0\n", SizeBytes, 0,
			[]int64{4, 4, 4}, nil, [][]int{{1, 2}, {}, {0}}},
		{"deps make the reallocation graph", "size,first_task,last_task,deps\n4,0,0,1\n4,1,1,2\n4,2,2,\n", SizeBytes, 0,
			[]int64{4, 4, 4}, nil, [][]int{{2}, {}, {0}}},
		// A cycle makes ReallocationGraph repeat entries (and list a
		// tensor with itself); the reader keeps one of each.
		{"deps with a cycle", "size,first_task,last_task,deps\n4,0,0,1\n4,1,1,0\n", SizeBytes, 0,
			[]int64{4, 4}, nil, [][]int{{0}, {1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ReadTFLite(strings.NewReader(tc.in), "r.csv")
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int64
			for _, b := range p.Buffers {
				sizes = append(sizes, b.Size)
			}
			if p.SizeType != tc.typ || p.ElementSize != tc.elem || !slices.Equal(sizes, tc.sizes) || !slices.Equal(p.Shapes, tc.shapes) ||
				!slices.EqualFunc(p.Reuse, tc.reuse, slices.Equal) {
				t.Fatalf("got %s elem %d sizes %v shapes %v reuse %v", p.SizeType, p.ElementSize, sizes, p.Shapes, p.Reuse)
			}
			// Written back and read again, the problem is the same.
			var buf bytes.Buffer
			if err := WriteTFLite(&buf, p); err != nil {
				t.Fatal(err)
			}
			q, err := ReadTFLite(&buf, "r.csv")
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			if q.SizeType != p.SizeType || q.ElementSize != p.ElementSize || !slices.Equal(q.Shapes, p.Shapes) || !slices.Equal(q.Buffers, p.Buffers) ||
				!slices.EqualFunc(q.Reuse, p.Reuse, func(a, b []int) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) }) {
				t.Errorf("round trip changed the problem:\n%s", buf.String())
			}
		})
	}
}

func TestReadTFLiteSizeTypeErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"x,y,first_task,last_task,reuse\n", "r.csv:1: unknown header"},
		{"size,first_task,last_task,element_size\n", "r.csv:1: unknown header"},
		{"x,y,first_task,last_task\n2,8,0\n", "r.csv:2: want 4 columns (x,y,first_task,last_task), got 3"},
		{"x,y,first_task,last_task\n4294967296,1,0,1\n", "r.csv:2: x: 4294967296 overflows (max 4294967295)"},
		{"b,h,w,c,first_task,last_task\n1,2147483648,1,1,0,1\n", "r.csv:2: h: 2147483648 overflows (max 2147483647)"},
		{"x,y,first_task,last_task\n2,-1,0,1\n", "r.csv:2: y: -1 is negative"},
		{"x,y,first_task,last_task\n2,2,3,1\n", "r.csv:2: last_task 1 is before first_task 3"},
		{"x,y,first_task,last_task,element_size\n2,2,0,1,8\n2,2,0,1,4\n", "r.csv:3: element_size 4 differs from the first record's 8"},
		{"x,y,first_task,last_task,element_size\n2,2,0,1,0\n", "r.csv:2: element_size: want at least 1 byte"},
		{"x,y,z,first_task,last_task,element_size\n4294967295,4294967295,4294967295,0,1,8\n", "r.csv:2: shape 4294967295x4294967295x4294967295 of 8-byte elements overflows int64 bytes"},
		{"size,first_task,last_task,reuse\n4,0,1,1 x\n", "r.csv:2: reuse: want an integer"},
		{"size,first_task,last_task,reuse\n4,0,1,\n4,2,3,7\n", "r.csv:3: reuse: record 7 is not in the file (records 0..1)"},
		{"size,first_task,last_task,deps\n4,0,1,2\n", "r.csv:2: deps: record 2 is not in the file (records 0..0)"},
	}
	for _, tc := range tests {
		_, err := ReadTFLite(strings.NewReader(tc.in), "r.csv")
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadTFLite(%q) = %v, want an InputError containing %q", tc.in, err, tc.want)
		}
	}
}

func TestWritersRefuseShapes(t *testing.T) {
	p, err := NewShapeProblem("tex", SizeTexture2D, 4, []Shape{{2, 2}}, []Buffer{{First: 0, Last: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FormatJSON, FormatMiniMalloc} {
		err := Write(new(bytes.Buffer), &Workload{Problem: p}, f)
		if err == nil || !strings.Contains(err.Error(), "cannot hold 2d sizes") {
			t.Errorf("%s: %v, want a refusal of 2d sizes", f, err)
		}
	}
}
