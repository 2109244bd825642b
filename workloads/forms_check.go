package workloads

import (
	"fmt"
	"math"
)

// CheckForms checks p's problem forms (DESIGN §15) and returns an error
// naming the first buffer (by index) or memory space at fault, or nil:
//
//   - each form's slice is nil or parallel to Buffers;
//   - an alignment of its own is positive (0 leaves the problem's), as
//     MiniMalloc requires (any positive value, not only powers of two);
//   - gaps are non-empty, inside the buffer's lifetime, in task order and
//     disjoint, and a window lies within [0, Size) with Lo <= Hi;
//   - a fixed offset is NoOffset or >= 0, a multiple of the buffer's
//     alignment, and ends within its space's capacity, if any;
//   - a hint is NoOffset or >= 0;
//   - every buffer's space is an index of Memories, whose names are unique
//     and capacities >= 0.
//
// Readers give the same checks with the file's line (checkBufferForms).
func CheckForms(p *Problem) error {
	n := len(p.Buffers)
	for _, s := range []struct {
		name string
		len  int
		set  bool
	}{
		{"alignments", len(p.Aligns), p.Aligns != nil},
		{"gaps", len(p.Gaps), p.Gaps != nil},
		{"fixed offsets", len(p.Fixed), p.Fixed != nil},
		{"hints", len(p.Hints), p.Hints != nil},
		{"memory spaces", len(p.Spaces), p.Spaces != nil},
	} {
		if s.set && s.len != n {
			return fmt.Errorf("%d %s for %d buffers", s.len, s.name, n)
		}
	}
	if msg := checkMemories(p.Memories); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	if p.Spaces != nil && len(p.Memories) == 0 {
		return fmt.Errorf("buffers name memory spaces but the problem has none")
	}
	if p.Aligns == nil && p.Gaps == nil && p.Fixed == nil && p.Hints == nil && p.Spaces == nil {
		return nil
	}
	for i := range p.Buffers {
		if msg := checkBufferForms(p, i); msg != "" {
			return fmt.Errorf("buffer %d: %s", i, msg)
		}
	}
	return nil
}

// checkMemories checks the memory spaces' names and capacities.
func checkMemories(ms []Memory) string {
	seen := make(map[string]int, len(ms))
	for m, mem := range ms {
		if prev, dup := seen[mem.Name]; dup {
			return fmt.Sprintf("memory space %d repeats the name %s of space %d", m, Echo(mem.Name), prev)
		}
		seen[mem.Name] = m
		if mem.Capacity < 0 {
			return fmt.Sprintf("memory space %s has negative capacity %d", Echo(mem.Name), mem.Capacity)
		}
	}
	return ""
}

// checkBufferForms checks buffer i's forms (CheckForms' rules), returning
// what is wrong or "". The slices are known to be parallel to Buffers.
func checkBufferForms(p *Problem, i int) string {
	b := p.Buffers[i]
	if p.Aligns != nil && p.Aligns[i] < 0 {
		return fmt.Sprintf("alignment %d is negative", p.Aligns[i])
	}
	if msg := checkGaps(b, p.GapsOf(i)); msg != "" {
		return msg
	}
	if p.Spaces != nil && (p.Spaces[i] < 0 || p.Spaces[i] >= len(p.Memories)) {
		return fmt.Sprintf("memory space %d is not one of the problem's %d", p.Spaces[i], len(p.Memories))
	}
	if p.Hints != nil && p.Hints[i] < 0 && p.Hints[i] != NoOffset {
		return fmt.Sprintf("hint %d: want an offset >= 0, or %d for none", p.Hints[i], NoOffset)
	}
	off, ok := p.FixedOf(i)
	if !ok {
		return ""
	}
	if off < 0 {
		return fmt.Sprintf("fixed offset %d: want an offset >= 0, or %d to plan the buffer", off, NoOffset)
	}
	if a := p.AlignOf(i); off%a != 0 {
		return fmt.Sprintf("fixed offset %d is not a multiple of its alignment %d", off, a)
	}
	if off > math.MaxInt64-b.Size {
		return fmt.Sprintf("fixed offset %d + size %d overflows int64", off, b.Size)
	}
	if m := p.MemoryOf(i); m < len(p.Memories) {
		if c := p.Memories[m].Capacity; c > 0 && off+b.Size > c {
			return fmt.Sprintf("fixed offset %d + size %d exceeds the capacity %d of memory space %s",
				off, b.Size, c, Echo(p.Memories[m].Name))
		}
	}
	return ""
}

// checkGaps checks one buffer's gaps.
func checkGaps(b Buffer, gaps []Gap) string {
	prev := b.First - 1
	for k, g := range gaps {
		switch {
		case g.First > g.Last:
			return fmt.Sprintf("gap %d: first task %d > last task %d", k, g.First, g.Last)
		case g.First < b.First || g.Last > b.Last:
			return fmt.Sprintf("gap %d: tasks %d..%d are not inside the lifetime %d..%d", k, g.First, g.Last, b.First, b.Last)
		case g.First <= prev:
			return fmt.Sprintf("gap %d: tasks %d..%d overlap or precede the gap before, which ends at task %d", k, g.First, g.Last, prev)
		case g.Window != nil && (g.Window.Lo < 0 || g.Window.Lo > g.Window.Hi || g.Window.Hi > b.Size):
			return fmt.Sprintf("gap %d: window [%d, %d) is not within [0, %d)", k, g.Window.Lo, g.Window.Hi, b.Size)
		}
		prev = g.Last
	}
	return ""
}

// refuseForms is the error of a writer or conversion, named by what, that
// cannot hold the forms f (nil when f is empty): a UsageError, since the
// user asked for it.
func refuseForms(what string, f Forms) error {
	if f == 0 {
		return nil
	}
	verb := "cannot hold"
	return Usagef("%s %s %s: write the problem as membench JSON, which holds every form", what, verb, f)
}
