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
