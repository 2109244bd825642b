package workloads

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// readCase is one reader input and the exact error it must give ("" for
// none).
type readCase struct {
	name, in, err string
}

func runReadCases(t *testing.T, file string, cases []readCase, read func(string) error) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := read(c.in)
			if c.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.err)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is a %T, want *InputError", err, err)
			}
			if ie.File != file {
				t.Errorf("File = %q, want %q", ie.File, file)
			}
			if err.Error() != c.err {
				t.Errorf("error\n got %q\nwant %q", err.Error(), c.err)
			}
		})
	}
}

func TestReadTFLiteErrors(t *testing.T) {
	const h = "size,first_task,last_task\n"
	runReadCases(t, "r.csv", []readCase{
		{"ok", h + "16,0,1\n", ""},
		{"ok-no-newline", h + "16,0,1", ""},
		{"empty", "", "r.csv: empty file: want header size,first_task,last_task"},
		{"unknown header", "size,first,last\n1,2,3\n", `r.csv:1: unknown header "size,first,last": want size,first_task,last_task`},
		{"no header", "16,0,1\n", `r.csv:1: unknown header "16,0,1": want size,first_task,last_task`},
		{"not a number", h + "16,0,1\nabc,0,1\n", `r.csv:3: size: want an integer, got "abc"`},
		{"float", h + "1.5,0,1\n", `r.csv:2: size: want an integer, got "1.5"`},
		{"empty field", h + "16,,1\n", `r.csv:2: first_task: want an integer, got ""`},
		{"negative size", h + "-5,0,1\n", "r.csv:2: size: -5 is negative"},
		{"negative task", h + "5,-1,1\n", "r.csv:2: first_task: -1 is negative"},
		{"last before first", h + "5,3,2\n", "r.csv:2: last_task 2 is before first_task 3"},
		{"too few columns", h + "5,3\n", "r.csv:2: want 3 columns (size,first_task,last_task), got 2"},
		{"too many columns", h + "5,3,4,5\n", "r.csv:2: want 3 columns (size,first_task,last_task), got 4"},
		{"size overflow", h + "9223372036854775808,0,1\n", "r.csv:2: size: 9223372036854775808 overflows (max 9223372036854775807)"},
		{"huge overflow", h + "1,0,99999999999999999999999\n", "r.csv:2: last_task: 99999999999999999999999 overflows (max 4611686018427387904)"},
		{"task overflow", h + "1,0,4611686018427387905\n", "r.csv:2: last_task: 4611686018427387905 overflows (max 4611686018427387904)"},
		{"line numbers count comments and blanks", h + "# c\n\n16,0,1\n1,x,1\n", `r.csv:5: first_task: want an integer, got "x"`},
	}, func(in string) error {
		_, err := ReadTFLite(strings.NewReader(in), "r.csv")
		return err
	})
}

func TestReadTFLite(t *testing.T) {
	in := "\xef\xbb\xbfsize,first_task,last_task\r\n16,0,1\r\n 8 , 1 , 2 \n# comment\n\n9223372036854775807,3,3\n"
	p, err := ReadTFLite(strings.NewReader(in), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := &Problem{Name: "x.csv", Buffers: []Buffer{
		{ID: 0, Size: 16, First: 0, Last: 1},
		{ID: 1, Size: 8, First: 1, Last: 2},
		{ID: 2, Size: 1<<63 - 1, First: 3, Last: 3},
	}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("got %+v\nwant %+v", p, want)
	}
	var sb strings.Builder
	if err := WriteTFLite(&sb, p); err != nil {
		t.Fatal(err)
	}
	if got, want := sb.String(), "size,first_task,last_task\n16,0,1\n8,1,2\n9223372036854775807,3,3\n"; got != want {
		t.Fatalf("WriteTFLite:\n%s\nwant\n%s", got, want)
	}
}

func TestReadMiniMallocErrors(t *testing.T) {
	const h = "id,lower,upper,size\n"
	runReadCases(t, "m.csv", []readCase{
		{"ok", h + "0,0,3,4\n", ""},
		{"ok legacy", "buffer,start,end,size\n0,0,2,4\n", ""},
		{"ok reordered", "size,id,upper,lower\n4,0,3,0\n", ""},
		{"ok alignment", "id,lower,upper,size,alignment\n0,0,3,4,64\n1,0,3,4,64\n", ""},
		{"empty", "", "m.csv: empty file: want header id,lower,upper,size[,alignment][,hint][,gaps][,offset] or buffer,start,end,size"},
		{"unknown column", "id,lower,upper,size,colour\n", `m.csv:1: unknown column "colour" in header "id,lower,upper,size,colour": want id,lower,upper,size[,alignment][,hint][,gaps][,offset] or buffer,start,end,size`},
		{"missing column", "id,lower,size\n", `m.csv:1: header "id,lower,size" lacks column "upper": want id,lower,upper,size[,alignment][,hint][,gaps][,offset] or buffer,start,end,size`},
		{"repeated column", "id,buffer,lower,upper,size\n", `m.csv:1: column "buffer" repeats column "id"`},
		{"upper and end", "id,lower,upper,end,size\n", `m.csv:1: header has both "upper" and "end"`},
		{"not a number", h + "0,0,x,4\n", `m.csv:2: upper: want an integer, got "x"`},
		{"negative size", h + "0,0,3,-4\n", "m.csv:2: size: -4 is negative"},
		{"negative lower", h + "0,-1,3,4\n", "m.csv:2: lower: -1 is negative"},
		{"empty lifetime", h + "0,3,3,4\n", "m.csv:2: upper 3 must be greater than lower 3 (the lifetime [lower, upper) is half-open)"},
		{"upper before lower", h + "0,5,3,4\n", "m.csv:2: upper 3 must be greater than lower 5 (the lifetime [lower, upper) is half-open)"},
		{"legacy end before start", "buffer,start,end,size\n0,5,4,4\n", "m.csv:2: end 4 is before start 5"},
		{"wrong column count", h + "0,0,3\n", "m.csv:2: want 4 columns (id,lower,upper,size), got 3"},
		{"overflow", h + "0,0,3,99999999999999999999\n", "m.csv:2: size: 99999999999999999999 overflows (max 9223372036854775807)"},
		{"empty id", h + ",0,3,4\n", "m.csv:2: id: empty id"},
		{"duplicate id", h + "0,0,3,4\n1,0,3,4\n0,1,2,3\n", `m.csv:4: id "0" repeats line 2`},
		{"duplicate label", h + "b1,0,3,4\nb2,0,3,4\nb1,1,2,3\n", `m.csv:4: id "b1" repeats line 2`},
		{"duplicate number after label", h + "7,0,3,4\nb2,0,3,4\n7,1,2,3\n", `m.csv:4: id "7" repeats line 2`},
		{"alignment zero", "id,lower,upper,size,alignment\n0,0,3,4,0\n", "m.csv:2: alignment: want a positive integer, got 0"},
		{"alignment text", "id,lower,upper,size,alignment\n0,0,3,4,x\n", `m.csv:2: alignment: want an integer, got "x"`},
		{"alignments differ", "id,lower,upper,size,alignment\n0,0,3,4,64\n1,0,3,4,128\n", ""},
		{"ok forms", "id,lower,upper,size,alignment,hint,gaps,offset\n0,0,9,8,4,-1,2-4 5-6@0:4,-1\n1,0,3,4,2,16,,8\n", ""},
		{"ok aliases", "buffer_id,begin,end,size\n0,0,3,4\n", ""},
		{"hint text", "id,lower,upper,size,hint\n0,0,3,4,x\n", `m.csv:2: hint: want an integer (negative for none), got "x"`},
		{"offset text", "id,lower,upper,size,offset\n0,0,3,4,\n", `m.csv:2: offset: want an offset >= 0, or -1 to plan the buffer, got ""`},
		{"offset negative", "id,lower,upper,size,offset\n0,0,3,4,-2\n", `m.csv:2: offset: want an offset >= 0, or -1 to plan the buffer, got "-2"`},
		{"offset unaligned", "id,lower,upper,size,alignment,offset\n0,0,3,4,8,0\n1,0,3,4,8,12\n", "m.csv:3: fixed offset 12 is not a multiple of its alignment 8"},
		{"gap no dash", "id,lower,upper,size,gaps\n0,0,9,4,3\n", `m.csv:2: gaps: no '-' in gap "3" (want lower-upper or lower-upper@lo:hi, space-separated)`},
		{"gap not a number", "id,lower,upper,size,gaps\n0,0,9,4,1-x\n", `m.csv:2: gaps: upper: want an integer, got "x" in gap "1-x" (want lower-upper or lower-upper@lo:hi, space-separated)`},
		{"gap empty", "id,lower,upper,size,gaps\n0,0,9,4,3-3\n", `m.csv:2: gaps: upper 3 must be greater than lower 3 (the gap is half-open) in gap "3-3" (want lower-upper or lower-upper@lo:hi, space-separated)`},
		{"gap legacy one task", "buffer,start,end,size,gaps\n0,0,9,4,3-3\n", ""},
		{"gap legacy reversed", "buffer,start,end,size,gaps\n0,0,9,4,3-2\n", `m.csv:2: gaps: upper 2 is before lower 3 in gap "3-2" (want lower-upper or lower-upper@lo:hi, space-separated)`},
		{"gap window no colon", "id,lower,upper,size,gaps\n0,0,9,4,1-2@3\n", `m.csv:2: gaps: no ':' in the window in gap "1-2@3" (want lower-upper or lower-upper@lo:hi, space-separated)`},
		{"gap two windows", "id,lower,upper,size,gaps\n0,0,9,4,1-2@0:1@0:1\n", `m.csv:2: gaps: window upper: want an integer, got "1@0:1" in gap "1-2@0:1@0:1" (want lower-upper or lower-upper@lo:hi, space-separated)`},
		{"gap outside", "id,lower,upper,size,gaps\n0,2,9,4,1-3\n", "m.csv:2: gap 0: tasks 1..2 are not inside the lifetime 2..8"},
		{"gap past the end", "id,lower,upper,size,gaps\n0,2,9,4,8-10\n", "m.csv:2: gap 0: tasks 8..9 are not inside the lifetime 2..8"},
		{"gaps overlap", "id,lower,upper,size,gaps\n0,0,9,4,1-4 3-5\n", "m.csv:2: gap 1: tasks 3..4 overlap or precede the gap before, which ends at task 3"},
		{"gaps out of order", "id,lower,upper,size,gaps\n0,0,9,4,5-6 1-2\n", "m.csv:2: gap 1: tasks 1..1 overlap or precede the gap before, which ends at task 5"},
		{"gap window too big", "id,lower,upper,size,gaps\n0,0,9,4,1-2@2:5\n", "m.csv:2: gap 0: window [2, 5) is not within [0, 4)"},
		// MiniMalloc's FromCsvWithEndColumn reads gaps 9-10 (inclusive)
		// and 12-13 past the lifetime 5..9, which its sweep would read as
		// the buffer living again after its end: refused.
		{"upstream gaps past the end", "start,size,buffer,end,alignment,gaps\n6,18,1,11,2,7-8 \n5,15,0,9,1,9-10 12-13\n",
			"m.csv:3: gap 0: tasks 9..10 are not inside the lifetime 5..9"},
		{"gap window reversed", "id,lower,upper,size,gaps\n0,0,9,4,1-2@3:2\n", "m.csv:2: gap 0: window [3, 2) is not within [0, 4)"},
	}, func(in string) error {
		_, err := ReadMiniMalloc(strings.NewReader(in), "m.csv")
		return err
	})
}

func TestReadMiniMalloc(t *testing.T) {
	cases := []struct {
		name, in string
		want     *Problem
	}{
		{"half-open", "id,lower,upper,size\n3,0,3,4\n1,3,9,8\n", &Problem{Name: "m", Buffers: []Buffer{
			{ID: 3, Size: 4, First: 0, Last: 2}, {ID: 1, Size: 8, First: 3, Last: 8}}}},
		{"legacy inclusive", "buffer,start,end,size\n0,0,3,4\n1,3,3,8\n", &Problem{Name: "m", Buffers: []Buffer{
			{ID: 0, Size: 4, First: 0, Last: 3}, {ID: 1, Size: 8, First: 3, Last: 3}}}},
		{"labels", "id,lower,upper,size\n5,0,3,4\nb2,3,9,4\n007,1,2,1\n", &Problem{Name: "m", Labels: []string{"5", "b2", "007"},
			Buffers: []Buffer{{ID: 0, Size: 4, First: 0, Last: 2}, {ID: 1, Size: 4, First: 3, Last: 8}, {ID: 2, Size: 1, First: 1, Last: 1}}}},
		{"alignment", "id,lower,upper,size,alignment\n0,0,3,4,1\n1,0,3,4,1\n", &Problem{Name: "m", Alignment: 1, Buffers: []Buffer{
			{ID: 0, Size: 4, First: 0, Last: 2}, {ID: 1, Size: 4, First: 0, Last: 2}}}},
		{"header only", "id,lower,upper,size\n", &Problem{Name: "m", Buffers: []Buffer{}}},
		{"forms", "id,lower,upper,size,alignment,hint,gaps,offset\n0,0,9,8,4,-1,2-5 5-6@0:4,-1\n1,0,3,4,2,16,,8\n", &Problem{Name: "m",
			Buffers:   []Buffer{{ID: 0, Size: 8, First: 0, Last: 8}, {ID: 1, Size: 4, First: 0, Last: 2}},
			Alignment: 4, Aligns: []int64{0, 2}, Hints: []int64{NoOffset, 16}, Fixed: []int64{NoOffset, 8},
			Gaps: [][]Gap{{{First: 2, Last: 4}, {First: 5, Last: 5, Window: &Window{0, 4}}}, nil}}},
		{"legacy gaps", "buffer,start,end,size,gaps\n0,0,9,4,3-5@1:2\n", &Problem{Name: "m",
			Buffers: []Buffer{{ID: 0, Size: 4, First: 0, Last: 9}}, Gaps: [][]Gap{{{First: 3, Last: 5, Window: &Window{1, 2}}}}}},
		// MiniMalloc's FromCsvWithSolution (tests/converter_test.cc, 9f5cf81):
		// its offset column fixes every buffer.
		{"upstream solution", "start,size,offset,buffer,upper\n6,18,21,1,12\n5,15,1,0,10\n", &Problem{Name: "m",
			Buffers: []Buffer{{ID: 1, Size: 18, First: 6, Last: 11}, {ID: 0, Size: 15, First: 5, Last: 9}}, Fixed: []int64{21, 1}}},
		{"no forms in the columns", "id,lower,upper,size,alignment,hint,gaps,offset\n0,0,9,8,4,-1,,-1\n1,0,3,4,4,-7,,-1\n", &Problem{Name: "m",
			Buffers: []Buffer{{ID: 0, Size: 8, First: 0, Last: 8}, {ID: 1, Size: 4, First: 0, Last: 2}}, Alignment: 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ReadMiniMalloc(strings.NewReader(c.in), "m")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, c.want) {
				t.Fatalf("got %+v\nwant %+v", p, c.want)
			}
		})
	}
}

func TestWriteMiniMalloc(t *testing.T) {
	for _, in := range []string{
		"id,lower,upper,size\n3,0,3,4\n1,3,9,8\n",
		"id,lower,upper,size\nb1,0,3,4\n2,3,9,8\n",
		"id,lower,upper,size,alignment\n0,0,3,4,1\n",
		"id,lower,upper,size,alignment\n0,0,3,4,128\n1,2,3,4,128\n",
		"id,lower,upper,size,alignment\n0,0,3,4,128\n1,2,3,4,64\n2,2,3,4,128\n",
		"id,lower,upper,size,alignment,hint,gaps,offset\n0,0,9,8,4,-1,2-5 5-7@0:4,-1\n1,0,3,4,2,16,,8\n",
		"id,lower,upper,size,gaps\nx,0,9,8,\ny,0,9,8,0-9@0:0\n",
		"id,lower,upper,size,offset\n0,0,9,8,0\n",
		// MiniMalloc's ToCsv output in its tests/converter_test.cc (9f5cf81).
		"id,lower,upper,size,alignment,hint,gaps\n0,5,10,15,1,0,\n1,6,12,18,2,-1,7-8 9-10@1:17\n",
	} {
		p, err := ReadMiniMalloc(strings.NewReader(in), "m")
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		if err := WriteMiniMalloc(&sb, p); err != nil {
			t.Fatal(err)
		}
		if sb.String() != in {
			t.Errorf("round trip of\n%s gave\n%s", in, sb.String())
		}
	}
	// Legacy input is written in the current header.
	p, err := ReadMiniMalloc(strings.NewReader("buffer,start,end,size\n0,0,3,4\n"), "m")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	WriteMiniMalloc(&sb, p)
	if want := "id,lower,upper,size\n0,0,4,4\n"; sb.String() != want {
		t.Errorf("legacy written as %q, want %q", sb.String(), want)
	}
	// Legacy gaps end inclusively, as the lifetimes do.
	p, err = ReadMiniMalloc(strings.NewReader("buffer,start,end,size,gaps\n0,0,3,4,1-2@0:1\n"), "m")
	if err != nil {
		t.Fatal(err)
	}
	sb.Reset()
	WriteMiniMalloc(&sb, p)
	if want := "id,lower,upper,size,gaps\n0,0,4,4,1-3@0:1\n"; sb.String() != want {
		t.Errorf("legacy gaps written as %q, want %q", sb.String(), want)
	}
	// No memory spaces in the format.
	p.Memories = []Memory{{Name: "0"}, {Name: "1"}}
	p.Spaces = []int{1}
	err = WriteMiniMalloc(&sb, p)
	if want := "the MiniMalloc format cannot hold memory spaces: write the problem as membench JSON, which holds every form"; err == nil || err.Error() != want {
		t.Errorf("writing memory spaces: %v, want %q", err, want)
	}
}

func TestReadTraceErrors(t *testing.T) {
	runReadCases(t, "t.csv", []readCase{
		{"ok", "# c\na,1,10\nv,2,1\nf,1,\nf,2\na,3,0\n", ""},
		{"ok empty", "", ""},
		{"unknown event", "a,1,10\nx,1,2\n", `t.csv:2: unknown event "x": want a,ID,BYTES[,STREAM] (alloc), f,ID,[STREAM] (free), v,ID,OF (view), r,ID,STREAM (record stream), s,STREAM (sync) or e (empty cache)`},
		{"header", "kind,id,size\n", `t.csv:1: unknown event "kind": want a,ID,BYTES[,STREAM] (alloc), f,ID,[STREAM] (free), v,ID,OF (view), r,ID,STREAM (record stream), s,STREAM (sync) or e (empty cache)`},
		{"alloc columns", "a,1\n", `t.csv:1: want a,ID,BYTES or a,ID,BYTES,STREAM, got "a,1"`},
		{"free columns", "a,1,2\nf,1,2,3\n", `t.csv:2: want f,ID, or f,ID,STREAM, got "f,1,2,3"`},
		{"record columns", "a,1,2\nr,1\n", `t.csv:2: want r,ID,STREAM, got "r,1"`},
		{"sync columns", "s,1,2\n", `t.csv:1: want s,STREAM, got "s,1,2"`},
		{"bad stream", "a,1,2,x\n", `t.csv:1: stream: want an integer, got "x"`},
		{"negative stream", "a,1,2\nf,1,-1\n", "t.csv:2: stream: -1 is negative"},
		{"stream overflow", "s,2147483648\n", "t.csv:1: stream: 2147483648 overflows (max 2147483647)"},
		{"record never allocated", "a,1,10\nr,2,1\n", "t.csv:2: record of id 2, which was never allocated"},
		{"record freed", "a,1,10\nf,1,\nr,1,1\n", "t.csv:3: record of id 1, which was freed on line 2"},
		{"view columns", "a,1,2\nv,2\n", `t.csv:2: want v,ID,OF, got "v,2"`},
		{"bad id", "a,x,10\n", `t.csv:1: id: want an integer, got "x"`},
		{"negative id", "a,-1,10\n", "t.csv:1: id: -1 is negative"},
		{"negative bytes", "a,1,-10\n", "t.csv:1: bytes: -10 is negative"},
		{"bytes overflow", "a,1,9223372036854775808\n", "t.csv:1: bytes: 9223372036854775808 overflows (max 9223372036854775807)"},
		{"bad of", "a,1,1\nv,2,y\n", `t.csv:2: of: want an integer, got "y"`},
		{"free never allocated", "a,1,10\n\nf,2,\n", "t.csv:3: free of id 2, which was never allocated"},
		{"double free", "a,1,10\nf,1,\n# again\nf,1,\n", "t.csv:4: id 1 is freed twice (first on line 2)"},
		{"id reused", "a,1,10\nf,1,\na,1,5\n", "t.csv:3: id 1 is already used on line 1; each id names one tensor"},
		{"id reused by view", "a,1,10\na,2,10\nv,2,1\n", "t.csv:3: id 2 is already used on line 2; each id names one tensor"},
		{"view of unknown", "a,1,10\nv,2,5\n", "t.csv:2: view of id 5, which was never allocated"},
		{"view of freed", "a,1,10\nf,1,\nv,2,1\n", "t.csv:3: view of id 1, which was freed on line 2"},
	}, func(in string) error {
		_, err := ReadTrace(strings.NewReader(in), "t.csv")
		return err
	})
}

func TestReadWriteTrace(t *testing.T) {
	in := "# views\na,1,10\nv,2,1\nf,1,\na,3,0\nv,4,2\nf,2\nf,4,\n"
	tr, err := ReadTrace(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Kind: Alloc, ID: 1, Size: 10}, {Kind: View, ID: 2, Of: 1}, {Kind: Free, ID: 1},
		{Kind: Alloc, ID: 3}, {Kind: View, ID: 4, Of: 2}, {Kind: Free, ID: 2}, {Kind: Free, ID: 4},
	}
	if !reflect.DeepEqual(tr.Events, want) || tr.Name != "t" {
		t.Fatalf("got %+v", tr)
	}
	var sb strings.Builder
	if err := WriteTrace(&sb, tr); err != nil {
		t.Fatal(err)
	}
	if got, want := sb.String(), "a,1,10\nv,2,1\nf,1,\na,3,0\nv,4,2\nf,2,\nf,4,\n"; got != want {
		t.Fatalf("WriteTrace:\n%s\nwant\n%s", got, want)
	}
}

func TestReadJSONErrors(t *testing.T) {
	runReadCases(t, "p.json", []readCase{
		{"ok", `{"buffers": [{"size": 1, "first": 0, "last": 0}]}`, ""},
		{"ok empty", `{"name": "x", "alignment": 64, "capacity": 0, "buffers": []}`, ""},
		{"empty", "  \n", `p.json: empty file: want a JSON object {"buffers": [...]}`},
		{"not an object", "[1]", `p.json:1: top level: want "{", got "["`},
		{"syntax", "{\n\"buffers\": [\n{\"size\": 1,, }]}", "p.json:3: invalid JSON: invalid character ',' looking for beginning of object key string"},
		{"truncated", "{\"buffers\": [\n{\"size\": 1", "p.json:2: unexpected end of JSON"},
		{"unknown top field", "{\n  \"buffers\": [],\n  \"colour\": 1\n}", `p.json:3: unknown field "colour" (valid: name, provenance, alignment, capacity, memories, buffers, persistent)`},
		{"unknown buffer field", "{\"buffers\": [\n  {\"size\": 1, \"first\": 0, \"last\": 0},\n  {\"size\": 1, \"first\": 0, \"last\": 0, \"colour\": 3}\n]}",
			`p.json:3: buffer 1: unknown field "colour" (valid: id, label, size, first, last, align, gaps, offset, hint, memory)`},
		{"ok forms", "{\"memories\": [{\"name\": \"sram\", \"capacity\": 64}, {\"name\": \"dram\"}], \"buffers\": [\n" +
			"{\"size\": 8, \"first\": 0, \"last\": 9, \"align\": 4, \"offset\": 8, \"hint\": -1, \"memory\": \"sram\", \"gaps\": [{\"first\": 2, \"last\": 3, \"window\": [0, 4]}]},\n" +
			"{\"size\": 8, \"first\": 0, \"last\": 9, \"offset\": -1, \"memory\": \"dram\"}]}", ""},
		{"align zero", "{\"buffers\": [\n{\"size\": 8, \"first\": 0, \"last\": 9, \"align\": 0}]}", "p.json:2: buffer 0: align: want a positive integer, got 0"},
		{"offset negative", "{\"buffers\": [\n{\"size\": 8, \"first\": 0, \"last\": 9, \"offset\": -2}]}", "p.json:2: buffer 0: offset: -2 is negative (or -1 for none)"},
		{"offset unaligned", "{\"buffers\": [\n{\"size\": 8, \"first\": 0, \"last\": 9, \"align\": 16, \"offset\": 8}]}", "p.json:2: buffer 0: fixed offset 8 is not a multiple of its alignment 16"},
		{"offset past capacity", "{\"memories\": [{\"name\": \"s\", \"capacity\": 12}], \"buffers\": [\n{\"size\": 8, \"first\": 0, \"last\": 9, \"offset\": 8}]}",
			`p.json:2: buffer 0: fixed offset 8 + size 8 exceeds the capacity 12 of memory space "s"`},
		{"hint text", "{\"buffers\": [\n{\"size\": 8, \"first\": 0, \"last\": 9, \"hint\": \"x\"}]}", `p.json:2: buffer 0: hint: want an integer, got string "x" (or -1 for none)`},
		{"unknown memory", "{\"memories\": [{\"name\": \"s\"}], \"buffers\": [\n{\"size\": 8, \"first\": 0, \"last\": 9},\n{\"size\": 8, \"first\": 0, \"last\": 9, \"memory\": \"t\"}]}",
			`p.json:3: buffer 1: memory "t" is not in "memories" (1 listed)`},
		{"memory without memories", "{\"buffers\": [\n{\"size\": 8, \"first\": 0, \"last\": 9, \"memory\": \"t\"}]}", `p.json:2: buffer 0: memory "t" is not in "memories" (0 listed)`},
		{"memory names repeat", `{"memories": [{"name": "s"}, {"name": "s"}], "buffers": []}`, `p.json:1: memories: memory space 1 repeats the name "s" of space 0`},
		{"memory without name", `{"memories": [{"capacity": 3}], "buffers": []}`, `p.json:1: memories: memory 0: missing field "name"`},
		{"memory unknown field", `{"memories": [{"name": "s", "size": 3}], "buffers": []}`, `p.json:1: memories: unknown field "size" (valid: name, capacity)`},
		{"memory capacity negative", `{"memories": [{"name": "s", "capacity": -3}], "buffers": []}`, `p.json:1: memories: memory 0: capacity: -3 is negative`},
		{"gaps not a list", "{\"buffers\": [\n{\"size\": 8, \"first\": 0, \"last\": 9, \"gaps\": 3}]}",
			`p.json:2: buffer 0: gaps: want an array of {"first": TASK, "last": TASK, "window": [LO, HI]} (window optional)`},
		{"gap outside", "{\"buffers\": [\n{\"size\": 8, \"first\": 2, \"last\": 9, \"gaps\": [{\"first\": 1, \"last\": 3}]}]}",
			"p.json:2: buffer 0: gap 0: tasks 1..3 are not inside the lifetime 2..9"},
		{"gap without last", "{\"buffers\": [\n{\"size\": 8, \"first\": 2, \"last\": 9, \"gaps\": [{\"first\": 3}]}]}",
			"p.json:2: buffer 0: gap 0: want fields first and last"},
		{"gap window short", "{\"buffers\": [\n{\"size\": 8, \"first\": 2, \"last\": 9, \"gaps\": [{\"first\": 3, \"last\": 3, \"window\": [1]}]}]}",
			"p.json:2: buffer 0: gap 0: window: want [LO, HI], got 1 numbers"},
		{"gap window too big", "{\"buffers\": [\n{\"size\": 8, \"first\": 2, \"last\": 9, \"gaps\": [{\"first\": 3, \"last\": 3, \"window\": [1, 9]}]}]}",
			"p.json:2: buffer 0: gap 0: window [1, 9) is not within [0, 8)"},
		{"persistent forms", `{"buffers": [], "persistent": [{"size": 8, "first": 0, "last": 9, "offset": 0}]}`,
			"p.json:1: persistent buffer 0: persistent buffers take no align, gaps, offset, hint or memory"},
		{"missing buffers", `{"name": "x"}`, `p.json: missing field "buffers"`},
		{"field twice", `{"buffers": [], "buffers": []}`, `p.json:1: field "buffers" given twice`},
		{"missing size", "{\"buffers\": [\n  {\"first\": 0, \"last\": 0}]}", `p.json:2: buffer 0: missing field "size"`},
		{"negative size", "{\"buffers\": [\n\n  {\"size\": -1, \"first\": 0, \"last\": 0}]}", "p.json:3: buffer 0: size: -1 is negative"},
		{"float size", `{"buffers": [{"size": 1.5, "first": 0, "last": 0}]}`, `p.json:1: buffer 0: size: want an integer, got "1.5"`},
		{"string size", "{\"buffers\": [\n{\"size\": true, \"first\": 0, \"last\": 0}]}", "p.json:2: buffer 0: size: want an integer, got bool"},
		{"null last", `{"buffers": [{"size": 1, "first": 0, "last": null}]}`, "p.json:1: buffer 0: last: want an integer, got null"},
		{"label not a string", "{\"buffers\": [\n{\"label\": 5, \"size\": 1, \"first\": 0, \"last\": 0}]}", "p.json:2: buffer 0: label: want a string, got a number"},
		{"size overflow", `{"buffers": [{"size": 1e30, "first": 0, "last": 0}]}`, `p.json:1: buffer 0: size: want an integer, got "1e30"`},
		{"last before first", `{"buffers": [{"size": 1, "first": 3, "last": 2}]}`, "p.json:1: buffer 0: last 2 is before first 3"},
		{"bad id", `{"buffers": [{"id": "x", "size": 1, "first": 3, "last": 4}]}`, `p.json:1: buffer 0: id: want an integer, got string "x"`},
		{"duplicate id", "{\"buffers\": [\n{\"id\": 4, \"size\": 1, \"first\": 0, \"last\": 0},\n{\"size\": 1, \"first\": 0, \"last\": 0},\n{\"id\": 4, \"size\": 1, \"first\": 0, \"last\": 0}]}",
			"p.json:4: buffer 2: id 4 repeats buffer 0 on line 2"},
		{"negative alignment", `{"alignment": -64, "buffers": []}`, "p.json:1: alignment: -64 is negative"},
		{"buffers not a list", `{"buffers": {}}`, `p.json:1: buffers: want "[", got "{"`},
		{"trailing data", `{"buffers": []} x`, "p.json:1: unexpected data after the JSON object"},
		{"buffer not an object", `{"buffers": [3]}`, "p.json:1: buffer 0: want an object, got a number"},
	}, func(in string) error {
		_, err := ReadJSON(strings.NewReader(in), "p.json")
		return err
	})
}

func TestReadWriteJSON(t *testing.T) {
	p := &Problem{Name: `a "quoted" name`, Alignment: 64, Capacity: 1 << 20, Labels: []string{"b1", "x"},
		Buffers: []Buffer{{ID: 7, Size: 16, First: 0, Last: 1}, {ID: 2, Size: 0, First: 3, Last: 3}}}
	var sb strings.Builder
	if err := WriteJSON(&sb, p); err != nil {
		t.Fatal(err)
	}
	want := `{
  "name": "a \"quoted\" name",
  "alignment": 64,
  "capacity": 1048576,
  "buffers": [
    {"id": 7, "label": "b1", "size": 16, "first": 0, "last": 1},
    {"id": 2, "label": "x", "size": 0, "first": 3, "last": 3}
  ]
}
`
	if sb.String() != want {
		t.Fatalf("WriteJSON:\n%s\nwant\n%s", sb.String(), want)
	}
	got, err := ReadJSON(strings.NewReader(sb.String()), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	p.Name = "f.json"
	if !reflect.DeepEqual(got, p) {
		t.Fatalf("read back %+v\nwant %+v", got, p)
	}
	// Every form.
	p = &Problem{Name: "f.json", Alignment: 8,
		Buffers:  []Buffer{{ID: 0, Size: 16, First: 0, Last: 9}, {ID: 1, Size: 8, First: 2, Last: 5}, {ID: 2, Size: 8, First: 0, Last: 0}},
		Aligns:   []int64{0, 4, 0},
		Gaps:     [][]Gap{{{First: 1, Last: 2}, {First: 3, Last: 4, Window: &Window{4, 8}}}, nil, nil},
		Fixed:    []int64{NoOffset, 4, NoOffset},
		Hints:    []int64{32, NoOffset, NoOffset},
		Spaces:   []int{0, 0, 1},
		Memories: []Memory{{Name: "sram", Capacity: 64}, {Name: "dram"}}}
	sb.Reset()
	if err := WriteJSON(&sb, p); err != nil {
		t.Fatal(err)
	}
	want = `{
  "name": "f.json",
  "alignment": 8,
  "memories": [{"name": "sram", "capacity": 64}, {"name": "dram"}],
  "buffers": [
    {"id": 0, "size": 16, "first": 0, "last": 9, "hint": 32, "memory": "sram", "gaps": [{"first": 1, "last": 2}, {"first": 3, "last": 4, "window": [4, 8]}]},
    {"id": 1, "size": 8, "first": 2, "last": 5, "align": 4, "offset": 4, "memory": "sram"},
    {"id": 2, "size": 8, "first": 0, "last": 0, "memory": "dram"}
  ]
}
`
	if sb.String() != want {
		t.Fatalf("WriteJSON with forms:\n%s\nwant\n%s", sb.String(), want)
	}
	if got, err = ReadJSON(strings.NewReader(sb.String()), "f.json"); err != nil || !reflect.DeepEqual(got, p) {
		t.Fatalf("read back %+v, %v\nwant %+v", got, err, p)
	}
	// Empty problem, no labels, ids defaulting to the index.
	sb.Reset()
	WriteJSON(&sb, &Problem{Name: "e"})
	if want := "{\n  \"name\": \"e\",\n  \"buffers\": []\n}\n"; sb.String() != want {
		t.Fatalf("empty: %q, want %q", sb.String(), want)
	}
	got, err = ReadJSON(strings.NewReader(`{"buffers": [{"size": 1, "first": 0, "last": 0}, {"size": 2, "first": 1, "last": 2}]}`), "d")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Buffer{{0, 1, 0, 0}, {1, 2, 1, 2}}; !reflect.DeepEqual(got.Buffers, want) || got.Labels != nil {
		t.Fatalf("defaults: %+v", got)
	}
}

func TestEcho(t *testing.T) {
	x80 := strings.Repeat("x", MaxEcho)
	for _, tc := range []struct{ in, echo, clip string }{
		{"", `""`, ""},
		{"abc", `"abc"`, "abc"},
		{"a\x00\"b", `"a\x00\"b"`, "a\x00\"b"},
		{x80, `"` + x80 + `"`, x80},
		{x80 + "y", `"` + x80 + `…" (81 bytes)`, x80 + "… (81 bytes)"},
		// Characters, not bytes, and never half a character.
		{strings.Repeat("é", 100), `"` + strings.Repeat("é", MaxEcho) + `…" (200 bytes)`, strings.Repeat("é", MaxEcho) + "… (200 bytes)"},
	} {
		if got := Echo(tc.in); got != tc.echo {
			t.Errorf("Echo(%.20q) = %s, want %s", tc.in, got, tc.echo)
		}
		if got := Clip([]byte(tc.in)); got != tc.clip {
			t.Errorf("Clip(%.20q) = %s, want %s", tc.in, got, tc.clip)
		}
	}
}

func TestJSONError(t *testing.T) {
	var v struct {
		Size  int64   `json:"size"`
		Sizes []int64 `json:"sizes"`
	}
	for _, tc := range []struct{ in, want string }{
		{"{\n\"size\": \"4\"}", `f.json:2: field "size": want an integer, got a string`},
		{"{\n\"size\": 1.5}", `f.json:2: field "size": want an integer, got the number 1.5`},
		{"{\n\"size\": 1e300}", `f.json:2: field "size": want an integer, got the number 1e300`},
		{"{\n\"sizes\": {}}", `f.json:2: field "sizes": want an array of integers, got an object`},
		{"{\n\"sizes\": [1,\n true]}", `f.json:3: field "sizes": want an integer, got true or false`},
		{"[1]", `f.json:1: the top level: want an object, got an array`},
		{"{\n\n\"size\": 1,,}", `f.json:3: invalid JSON: invalid character ',' looking for beginning of object key string`},
		{"{\n\"size\": 1", `f.json:2: invalid JSON: unexpected end of JSON input`},
	} {
		err := json.Unmarshal([]byte(tc.in), &v)
		if got := JSONError("f.json", []byte(tc.in), err); got.Error() != tc.want {
			t.Errorf("%q: %v\n want %s", tc.in, got, tc.want)
		}
	}
}

// TestTraceEmptyCache: `e` lines are EmptyCache events, written back as
// read; a field after it is an error naming the line.
func TestTraceEmptyCache(t *testing.T) {
	const text = "a,0,10\nf,0,\ne\na,1,20\n"
	tr, err := ReadTrace(strings.NewReader(text), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Events[2] != (Event{Kind: EmptyCache}) {
		t.Fatalf("event 2 is %+v, want EmptyCache", tr.Events[2])
	}
	if got := traceText(t, tr); got != text {
		t.Fatalf("written back as\n%s", got)
	}
	_, err = ReadTrace(strings.NewReader("a,0,10\ne,0\n"), "t.csv")
	if want := `t.csv:2: want e (empty cache), got "e,0"`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
