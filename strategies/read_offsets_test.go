package strategies_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

func TestReadOffsets(t *testing.T) {
	bufs := []workloads.Buffer{{ID: 7, Size: 32, First: 0, Last: 1}, {ID: 3, Size: 8, First: 1, Last: 2}, {ID: 5, Size: 16, First: 2, Last: 2}}
	for _, tc := range []struct {
		name, in string
		want     []int64
		err      string
	}{
		{"plain", "7,0\n3,32\n5,40\n", []int64{0, 32, 40}, ""},
		{"header, comments, blanks, spaces", "# solution\nid,offset\n\n 5 , 40\n3,32\n7,0\n", []int64{0, 32, 40}, ""},
		{"minimalloc columns", "buffer,lower,upper,size,offset\n7,0,2,32,0\n3,1,3,8,32\n5,2,3,16,40\n", []int64{0, 32, 40}, ""},
		{"bad header", "id,where\n7,0\n", nil, `sol.csv:1: header "id,where": want id,offset lines or a header naming columns id and offset`},
		{"columns", "7,0\n3,32,1\n", nil, "sol.csv:2: want 2 columns, got 3"},
		{"not an int id", "7,0\nx,1\n", nil, `sol.csv:2: id "x": want an integer`},
		{"unknown id", "7,0\n\n4,1\n", nil, "sol.csv:3: id 4: not a buffer id of the workload"},
		{"negative offset", "7,-8\n", nil, `sol.csv:1: offset "-8": want a non-negative integer`},
		{"duplicate", "7,0\n3,32\n7,0\n", nil, "sol.csv:3: id 7 repeats line 1"},
		{"missing", "3,32\n", nil, "sol.csv: no offset for buffer id 7 (2 of 3 buffers missing; want one line per buffer)"},
	} {
		got, err := strategies.ReadOffsets(strings.NewReader(tc.in), "sol.csv", bufs)
		if tc.err != "" {
			var ie *workloads.InputError
			if !errors.As(err, &ie) || err.Error() != tc.err {
				t.Errorf("%s: %v, %v; want input error %q", tc.name, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	dup := []workloads.Buffer{{ID: 1, Size: 1}, {ID: 1, Size: 2}}
	if _, err := strategies.ReadOffsets(strings.NewReader("1,0\n"), "sol.csv", dup); err == nil ||
		err.Error() != "sol.csv: the workload's buffer ids are not unique, so offsets cannot be matched by id" {
		t.Errorf("duplicate workload ids: %v", err)
	}
}

// TestReadOffsetsBadInput: a byte-order mark is skipped, and a line of any
// length is read, its bad field echoed short.
func TestReadOffsetsBadInput(t *testing.T) {
	bufs := []workloads.Buffer{{ID: 0, Size: 8}, {ID: 1, Size: 8}}
	got, err := strategies.ReadOffsets(strings.NewReader(workloads.BOM+"id,offset\n0,0\n1,8\n"), "sol.csv", bufs)
	if err != nil || !slices.Equal(got, []int64{0, 8}) {
		t.Errorf("with a BOM: %v, %v", got, err)
	}
	huge := strings.Repeat("7", 20<<20) // past the 16 MiB a bufio.Scanner line held
	_, err = strategies.ReadOffsets(strings.NewReader("0,0\n1,"+huge+"\n"), "sol.csv", bufs)
	if want := `sol.csv:2: offset "` + huge[:80] + `…" (20971520 bytes): want a non-negative integer`; err == nil || err.Error() != want {
		t.Errorf("huge line: %v\nwant %s", err, want)
	}
}

func TestReadPlan(t *testing.T) {
	bufs := []workloads.Buffer{{ID: 4, Size: 8, First: 0, Last: 1}, {ID: 2, Size: 16, First: 1, Last: 2}}
	for _, tc := range []struct {
		name, in string
		want     strategies.Plan
		err      string
	}{
		{"json", `{"strategy": "x", "footprint": 24, "offsets": [0, 8], "object_ids": [0, 1], "object_sizes": [8, 16]}`,
			strategies.Plan{Offsets: []int64{0, 8}, Footprint: 24, ObjectIDs: []int{0, 1}, ObjectSizes: []int64{8, 16}}, ""},
		{"json footprint computed", workloads.BOM + "\n {\"offsets\": [16, 0]}", strategies.Plan{Offsets: []int64{16, 0}, Footprint: 24}, ""},
		{"csv", workloads.BOM + "4,16\n2,0\n", strategies.Plan{Offsets: []int64{16, 0}, Footprint: 24}, ""},
		{"type", "{\n\"offsets\": [0,\n\"8\"]}", strategies.Plan{}, `p.json:3: field "offsets": want an integer, got a string`},
		{"float", "{\"offsets\": [0, 8.5]}", strategies.Plan{}, `p.json:1: field "offsets": want an integer, got the number 8.5`},
		{"objects", "{\"offsets\": [0, 8],\n\"object_ids\": {}}", strategies.Plan{}, `p.json:2: field "object_ids": want an array of integers, got an object`},
		{"footprint", "{\"offsets\": [0, 8],\n\n\"footprint\": \"big\"}", strategies.Plan{}, `p.json:3: field "footprint": want an integer, got a string`},
		{"syntax", "{\"offsets\": [0 8]}", strategies.Plan{}, `p.json:1: invalid JSON: invalid character '8' after array element`},
		{"count", "{\"offsets\": [0]}", strategies.Plan{}, `p.json: 1 offsets for 2 buffers`},
		{"no offsets", "{\"footprint\": 3}", strategies.Plan{}, `p.json: no "offsets" array: want plan JSON as 'membench plan --format json' prints`},
		{"csv error", "4,0\n2,x\n", strategies.Plan{}, `p.json:2: offset "x": want a non-negative integer`},
	} {
		got, err := strategies.ReadPlan("p.json", []byte(tc.in), &workloads.Problem{Buffers: bufs})
		if tc.err != "" {
			var ie *workloads.InputError
			if !errors.As(err, &ie) || err.Error() != tc.err {
				t.Errorf("%s: %v, want input error %s", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got.Offsets, tc.want.Offsets) || got.Footprint != tc.want.Footprint ||
			!slices.Equal(got.ObjectIDs, tc.want.ObjectIDs) || !slices.Equal(got.ObjectSizes, tc.want.ObjectSizes) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

// TestReadPlanLabels: where the problem keeps its file's ids (MiniMalloc
// ids that are not numbers), a CSV plan names buffers by them, with or
// without a header, and an unknown, repeated or missing label is an
// error that quotes it.
func TestReadPlanLabels(t *testing.T) {
	p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 8, First: 0, Last: 1}, {ID: 1, Size: 16, First: 1, Last: 2}},
		Labels: []string{"conv", "7"}}
	for _, tc := range []struct{ name, in, err string }{
		{"plain", "7,0\nconv,16\n", ""},
		{"header", "id,offset\nconv,16\n7,0\n", ""},
		{"buffer header", "offset,buffer\n16,conv\n0,7\n", ""},
		{"integer id is not a label", "conv,16\n1,0\n", `p.csv:2: id "1": not a buffer id of the workload`},
		{"repeat", "conv,16\nconv,0\n", `p.csv:2: id "conv" repeats line 1`},
		{"missing", "7,0\n", `p.csv: no offset for buffer id "conv" (1 of 2 buffers missing; want one line per buffer)`},
	} {
		got, err := strategies.ReadPlan("p.csv", []byte(tc.in), p)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: %v, want %s", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got.Offsets, []int64{16, 0}) || got.Footprint != 24 {
			t.Errorf("%s: %+v, %v; want offsets [16 0], footprint 24", tc.name, got, err)
		}
	}
}

// FuzzReadPlan: any plan file gives a plan with one offset per buffer or
// an input error in words.
func FuzzReadPlan(f *testing.F) {
	f.Add([]byte(`{"footprint": 24, "offsets": [0, 8], "object_ids": [0, 1], "object_sizes": [8, 16]}`))
	f.Add([]byte("id,offset\n4,16\n2,0\n"))
	f.Add([]byte("# c\n4,16\n\n2,0"))
	bufs := []workloads.Buffer{{ID: 4, Size: 8, First: 0, Last: 1}, {ID: 2, Size: 16, First: 1, Last: 2}}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := strategies.ReadPlan("p", data, &workloads.Problem{Buffers: bufs})
		if err != nil {
			var ie *workloads.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is a %T, want *workloads.InputError", err, err)
			}
			for _, g := range []string{"Go struct field", "json: ", "bufio", "strategies."} {
				if strings.Contains(err.Error(), g) {
					t.Fatalf("error shows Go internals %q: %v", g, err)
				}
			}
			if len(err.Error()) > 500 {
				t.Fatalf("error of %d bytes: %.300s…", len(err.Error()), err)
			}
			return
		}
		if len(p.Offsets) != len(bufs) {
			t.Fatalf("%d offsets for %d buffers", len(p.Offsets), len(bufs))
		}
	})
}
