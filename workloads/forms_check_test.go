package workloads

import "testing"

func TestCheckForms(t *testing.T) {
	two := []Buffer{{ID: 0, Size: 16, First: 0, Last: 9}, {ID: 1, Size: 8, First: 2, Last: 4}}
	mk := func(set func(p *Problem)) *Problem {
		p := &Problem{Buffers: append([]Buffer(nil), two...)}
		set(p)
		return p
	}
	tests := []struct {
		name string
		p    *Problem
		err  string
	}{
		{"none", mk(func(p *Problem) {}), ""},
		{"all", mk(func(p *Problem) {
			p.Aligns = []int64{0, 8}
			p.Gaps = [][]Gap{{{First: 1, Last: 2}, {First: 3, Last: 3, Window: &Window{0, 16}}}, nil}
			p.Fixed = []int64{NoOffset, 24}
			p.Hints = []int64{0, NoOffset}
			p.Memories = []Memory{{Name: "s", Capacity: 32}, {Name: "d"}}
			p.Spaces = []int{1, 0}
		}), ""},
		{"short slice", mk(func(p *Problem) { p.Fixed = []int64{0} }), "1 fixed offsets for 2 buffers"},
		{"negative alignment", mk(func(p *Problem) { p.Aligns = []int64{-4, 0} }), "buffer 0: alignment -4 is negative"},
		{"gap reversed", mk(func(p *Problem) { p.Gaps = [][]Gap{{{First: 3, Last: 2}}, nil} }), "buffer 0: gap 0: first task 3 > last task 2"},
		{"gap outside", mk(func(p *Problem) { p.Gaps = [][]Gap{nil, {{First: 4, Last: 5}}} }), "buffer 1: gap 0: tasks 4..5 are not inside the lifetime 2..4"},
		{"gaps overlap", mk(func(p *Problem) { p.Gaps = [][]Gap{{{First: 1, Last: 3}, {First: 3, Last: 4}}, nil} }),
			"buffer 0: gap 1: tasks 3..4 overlap or precede the gap before, which ends at task 3"},
		{"window outside", mk(func(p *Problem) { p.Gaps = [][]Gap{{{First: 1, Last: 3, Window: &Window{-1, 2}}}, nil} }),
			"buffer 0: gap 0: window [-1, 2) is not within [0, 16)"},
		{"fixed negative", mk(func(p *Problem) { p.Fixed = []int64{-2, NoOffset} }), "buffer 0: fixed offset -2: want an offset >= 0, or -1 to plan the buffer"},
		{"fixed unaligned", mk(func(p *Problem) { p.Alignment = 8; p.Fixed = []int64{4, NoOffset} }), "buffer 0: fixed offset 4 is not a multiple of its alignment 8"},
		{"fixed overflows", mk(func(p *Problem) { p.Fixed = []int64{1<<63 - 4, NoOffset} }), "buffer 0: fixed offset 9223372036854775804 + size 16 overflows int64"},
		{"fixed past capacity", mk(func(p *Problem) { p.Memories = []Memory{{Name: "s", Capacity: 20}}; p.Fixed = []int64{8, NoOffset} }),
			`buffer 0: fixed offset 8 + size 16 exceeds the capacity 20 of memory space "s"`},
		{"hint negative", mk(func(p *Problem) { p.Hints = []int64{-3, NoOffset} }), "buffer 0: hint -3: want an offset >= 0, or -1 for none"},
		{"space out of range", mk(func(p *Problem) { p.Memories = []Memory{{Name: "s"}}; p.Spaces = []int{0, 1} }),
			"buffer 1: memory space 1 is not one of the problem's 1"},
		{"spaces without memories", mk(func(p *Problem) { p.Spaces = []int{0, 0} }), "buffers name memory spaces but the problem has none"},
		{"memory names repeat", mk(func(p *Problem) { p.Memories = []Memory{{Name: "s"}, {Name: "s"}} }), `memory space 1 repeats the name "s" of space 0`},
		{"capacity negative", mk(func(p *Problem) { p.Memories = []Memory{{Name: "s", Capacity: -1}} }), `memory space "s" has negative capacity -1`},
	}
	for _, tt := range tests {
		err := CheckForms(tt.p)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: CheckForms = %v, want nil", tt.name, err)
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("%s: CheckForms = %v\nwant %s", tt.name, err, tt.err)
		}
	}
}

// TestSpaceLoads: without forms SpaceLoads is LB_load; a window counts its
// bytes and an empty gap none.
func TestSpaceLoads(t *testing.T) {
	p := &Problem{Buffers: []Buffer{{Size: 10, First: 0, Last: 9}, {Size: 8, First: 6, Last: 8}}}
	if got := p.SpaceLoads(); len(got) != 1 || got[0] != 18 {
		t.Fatalf("no forms: %v, want [18]", got)
	}
	p.Gaps = [][]Gap{{{First: 5, Last: 6, Window: &Window{2, 5}}, {First: 7, Last: 9}}, nil}
	// Task 6: 3 + 8; tasks 7, 8: 0 + 8; tasks 0..4: 10.
	if got := p.SpaceLoads(); got[0] != 11 || p.LoadBound() != 11 {
		t.Fatalf("gaps: %v (LoadBound %d), want [11]", got, p.LoadBound())
	}
}
