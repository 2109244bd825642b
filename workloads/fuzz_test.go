package workloads

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"membench/internal/hostile"
)

// addSeeds adds every file matching the globs to the corpus.
func addSeeds(f *testing.F, globs ...string) {
	for _, g := range globs {
		paths, _ := filepath.Glob(g)
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
}

// mustInputError fails unless err is nil or an *InputError in words: no
// Go types or library prefixes, and bad values echoed short.
func mustInputError(t *testing.T, err error) {
	t.Helper()
	var ie *InputError
	if err != nil && !errors.As(err, &ie) {
		t.Fatalf("error %v is a %T, want *InputError", err, err)
	}
	if err == nil {
		return
	}
	msg := err.Error()
	for _, g := range []string{"&types.", "*types.", "Go struct field", "bufio.Scanner", "interface {}", "json: ", "[]uint8"} {
		if strings.Contains(msg, g) {
			t.Fatalf("error shows Go internals %q: %s", g, msg)
		}
	}
	if len(msg) > 1000 {
		t.Fatalf("error of %d bytes: %.300s…", len(msg), msg)
	}
}

// checkValid fails on a problem no reader may return.
func checkValid(t *testing.T, p *Problem) {
	t.Helper()
	if err := checkProblem(p); err != nil {
		t.Fatal(err)
	}
}

func FuzzReadTFLite(f *testing.F) {
	addSeeds(f, "testdata/load/*.csv")
	f.Add([]byte("size,first_task,last_task\n16,0,1\n-1,2,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadTFLite(bytes.NewReader(data), "f")
		mustInputError(t, err)
		if err != nil {
			return
		}
		checkValid(t, p)
		var buf bytes.Buffer
		WriteTFLite(&buf, p)
		q, err := ReadTFLite(&buf, "f")
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("write/read changed the problem: %v", err)
		}
	})
}

func FuzzReadMiniMalloc(f *testing.F) {
	addSeeds(f, "testdata/load/*.csv", "minimalloc/data/example.12.csv")
	f.Add([]byte("id,lower,upper,size,alignment\nb1,0,3,4,64\n2,3,9,4,64\n"))
	// The forms, in both headers and with MiniMalloc's aliases.
	f.Add([]byte("id,lower,upper,size,alignment,hint,gaps,offset\n0,0,9,8,4,-1,2-5 5-6@0:4,-1\n1,0,3,4,2,16,,8\n"))
	f.Add([]byte("buffer_id,begin,end,size,gaps,offset\nx,0,9,8,3-3@0:0 4-4,0\ny,2,5,4,,-1\n"))
	f.Add([]byte("id,lower,upper,size,hint,alignment\n0,0,3,4,-7,3\n1,2,3,4,12,6\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadMiniMalloc(bytes.NewReader(data), "f")
		mustInputError(t, err)
		if err != nil {
			return
		}
		checkValid(t, p)
		var buf bytes.Buffer
		WriteMiniMalloc(&buf, p)
		q, err := ReadMiniMalloc(&buf, "f")
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("write/read changed the problem: %v\n%+v\n%+v", err, p, q)
		}
	})
}

func FuzzReadTrace(f *testing.F) {
	addSeeds(f, "testdata/load/*.csv", "testdata/bfc/dnn_1k.csv")
	f.Add([]byte("a,1,10\nv,2,1\nf,1,\nf,2\n"))
	f.Add([]byte("a,1,10,2\nr,1,3\nv,2,1\nf,1,\nf,2,3\ns,3\ns,2\na,3,4\nf,3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTrace(bytes.NewReader(data), "f")
		mustInputError(t, err)
		if err != nil {
			return
		}
		p, err := tr.ToProblem()
		if err != nil {
			t.Fatalf("ReadTrace accepted a trace ToProblem refuses: %v", err)
		}
		checkValid(t, p)
		// Every free completes at or after its request, or never.
		comp, err := tr.FreeCompletions(0)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range comp {
			if c != NoFree && c != NeverCompletes && (int(c) < i || tr.Events[i].Kind != Free) {
				t.Fatalf("event %d (%v) completes at %d", i, tr.Events[i].Kind, c)
			}
		}
		var buf bytes.Buffer
		WriteTrace(&buf, tr)
		u, err := ReadTrace(&buf, "f")
		if err != nil || !reflect.DeepEqual(tr.Events, u.Events) && len(tr.Events)+len(u.Events) > 0 {
			t.Fatalf("write/read changed the trace: %v", err)
		}
	})
}

func FuzzReadJSON(f *testing.F) {
	addSeeds(f, "testdata/load/*.json")
	for _, s := range hostileSeeds("json-") {
		f.Add(s)
	}
	f.Add([]byte(`{"name": "x", "alignment": 64, "buffers": [{"id": 3, "label": "b", "size": 1, "first": 0, "last": 2}, {"size": 2, "first": 1, "last": 1}]}`))
	f.Add([]byte(`{"memories": [{"name": "s", "capacity": 64}, {"name": "d"}], "buffers": [` +
		`{"size": 8, "first": 0, "last": 9, "align": 4, "offset": 8, "hint": -1, "memory": "s", "gaps": [{"first": 2, "last": 3, "window": [0, 4]}, {"first": 5, "last": 5}]},` +
		`{"size": 8, "first": 0, "last": 9, "offset": -1, "hint": 16, "memory": "d"}, {"size": 1, "first": 3, "last": 3}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadJSON(bytes.NewReader(data), "f")
		mustInputError(t, err)
		if err != nil {
			return
		}
		checkValid(t, p)
		var buf bytes.Buffer
		WriteJSON(&buf, p)
		q, err := ReadJSON(&buf, "f")
		if err != nil || !reflect.DeepEqual(p.Buffers, q.Buffers) && len(p.Buffers)+len(q.Buffers) > 0 ||
			!reflect.DeepEqual(p.Labels, q.Labels) || p.Alignment != q.Alignment || p.Capacity != q.Capacity ||
			!reflect.DeepEqual([]any{p.Aligns, p.Gaps, p.Fixed, p.Hints, p.Spaces, p.Memories}, []any{q.Aligns, q.Gaps, q.Fixed, q.Hints, q.Spaces, q.Memories}) {
			t.Fatalf("write/read changed the problem: %v\n%+v\n%+v", err, p, q)
		}
	})
}

func FuzzReadPyTorch(f *testing.F) {
	addSeeds(f, "testdata/pytorch/*.pickle")
	for _, s := range hostileSeeds("pickle-") {
		f.Add(s)
	}
	f.Add(hostile.DeepFrames(2000))
	f.Add(hostile.TextInt("99999999999999999999"))
	f.Add(hostile.Long4Size(8))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadPyTorch(bytes.NewReader(data), "f")
		mustInputError(t, err)
		if err != nil {
			return
		}
		// The conversion must always yield a well-formed trace.
		p, err := tr.ToProblem()
		if err != nil {
			t.Fatalf("ReadPyTorch returned a trace ToProblem refuses: %v", err)
		}
		checkValid(t, p)
	})
}
