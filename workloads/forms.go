package workloads

import "strings"

// Problem forms (DESIGN §15): what a problem may say about its buffers
// beyond size and lifetime. Each is held in a slice parallel to
// Problem.Buffers that is nil when no buffer uses the form, so a problem
// without forms costs nothing to carry or to plan, and planners read them
// through the accessors below.

// Window is a byte range [Lo, Hi) inside a buffer, relative to its offset.
type Window struct {
	Lo, Hi int64
}

// Gap is a stretch of a buffer's lifetime when its memory is free for
// others, or only part of it is used: MiniMalloc's gaps. First and Last
// are inclusive tasks inside the buffer's [First, Last]. Window, when not
// nil, is the part of the buffer's bytes still in use during the gap
// (within [0, Size)); nil means none of it is.
//
// Two buffers conflict as MiniMalloc's validator decides (its
// Buffer::effective_size): b's effective size above a is the largest, over
// the tasks both use memory, of a's in-use window's end minus b's in-use
// window's start; b may sit at or above a's offset plus that, and a
// conflict needs both orders to fail.
type Gap struct {
	First, Last int
	Window      *Window
}

// Memory is one memory space: an arena of its own, planned apart from the
// others (XLA's memory spaces, ExecuTorch's mem ids, TVM's pools).
type Memory struct {
	// Name is the space's name as the input gives it ("0", "sram", ...).
	Name string
	// Capacity, when > 0, is the space's size: its footprint may not
	// exceed it.
	Capacity int64
}

// NoOffset marks a buffer of Problem.Fixed or Problem.Hints that has no
// fixed offset or no hint: "plan this one" (MiniMalloc's -1 hint,
// TFLite Micro's -1 offline offset).
const NoOffset int64 = -1

// Forms is a set of problem forms.
type Forms uint8

// The problem forms.
const (
	// FormAlign: some buffer has an alignment of its own (Problem.Aligns).
	FormAlign Forms = 1 << iota
	// FormGaps: some buffer has gaps (Problem.Gaps).
	FormGaps
	// FormFixed: some buffer has a fixed offset (Problem.Fixed).
	FormFixed
	// FormHints: some buffer has an offset hint (Problem.Hints). Hints are
	// advice: a planner that has no use for them ignores them.
	FormHints
	// FormMemories: the problem has more than one memory space, or a
	// space with a capacity (Problem.Memories).
	FormMemories
)

// AllForms is every form.
const AllForms = FormAlign | FormGaps | FormFixed | FormHints | FormMemories

var formNames = []string{"per-buffer alignment", "gaps", "fixed offsets", "hints", "memory spaces"}

// String names the forms in s, joined by ", ".
func (s Forms) String() string {
	var names []string
	for i, n := range formNames {
		if s&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// Forms returns the forms p uses: those whose slice holds something other
// than the default.
func (p *Problem) Forms() Forms {
	var f Forms
	for _, a := range p.Aligns {
		if a > 0 {
			f |= FormAlign
			break
		}
	}
	for _, g := range p.Gaps {
		if len(g) > 0 {
			f |= FormGaps
			break
		}
	}
	for _, o := range p.Fixed {
		if o != NoOffset {
			f |= FormFixed
			break
		}
	}
	for _, h := range p.Hints {
		if h != NoOffset {
			f |= FormHints
			break
		}
	}
	if len(p.Memories) > 1 || len(p.Memories) == 1 && p.Memories[0].Capacity > 0 {
		f |= FormMemories
	}
	return f
}

// AlignOf returns buffer i's alignment: its own where it has one, else the
// problem's (1 when neither says).
func (p *Problem) AlignOf(i int) int64 {
	if p.Aligns != nil && p.Aligns[i] > 0 {
		return p.Aligns[i]
	}
	return max(p.Alignment, 1)
}

// FixedOf returns buffer i's fixed offset, if it has one.
func (p *Problem) FixedOf(i int) (int64, bool) {
	if p.Fixed == nil || p.Fixed[i] == NoOffset {
		return 0, false
	}
	return p.Fixed[i], true
}

// HintOf returns buffer i's offset hint, if it has one.
func (p *Problem) HintOf(i int) (int64, bool) {
	if p.Hints == nil || p.Hints[i] == NoOffset {
		return 0, false
	}
	return p.Hints[i], true
}

// GapsOf returns buffer i's gaps (nil for none).
func (p *Problem) GapsOf(i int) []Gap {
	if p.Gaps == nil {
		return nil
	}
	return p.Gaps[i]
}

// MemoryOf returns the index in Problem.Memories of buffer i's memory
// space (0 when the problem has one space).
func (p *Problem) MemoryOf(i int) int {
	if p.Spaces == nil {
		return 0
	}
	return p.Spaces[i]
}
