package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// MiniMalloc column roles.
const (
	mmID = iota
	mmLower
	mmUpper // exclusive
	mmEnd   // inclusive (legacy)
	mmSize
	mmAlign
	mmHint
	mmGaps
	mmOffset
	mmRoles
)

// mmColumns maps MiniMalloc header names to roles, with the aliases
// MiniMalloc's converter accepts (begin, start; buffer, buffer_id). An end
// column is inclusive: MiniMalloc reads its values, and the upper ends of
// the gaps beside it, as one less than an upper.
var mmColumns = map[string]int{
	"id": mmID, "buffer": mmID, "buffer_id": mmID,
	"lower": mmLower, "start": mmLower, "begin": mmLower,
	"upper": mmUpper, "end": mmEnd,
	"size":      mmSize,
	"alignment": mmAlign,
	"hint":      mmHint,
	"gaps":      mmGaps,
	"offset":    mmOffset,
}

const mmWant = "id,lower,upper,size[,alignment][,hint][,gaps][,offset] or buffer,start,end,size"

// ReadMiniMalloc reads a MiniMalloc problem (google/minimalloc's CSV, as
// its src/converter.cc reads it at revision 9f5cf81): header
// id,lower,upper,size with lifetimes half-open [lower, upper) (so First =
// lower, Last = upper-1), or the legacy header buffer,start,end,size whose
// end is inclusive. Columns may come in any order, under MiniMalloc's
// aliases (buffer and buffer_id for id, start and begin for lower).
//
// Ids that are all canonical integers become Buffer.ID; otherwise buffers
// are numbered in file order and the ids are kept in Problem.Labels. Either
// way WriteMiniMalloc reproduces them. Duplicate ids are refused.
//
// The optional columns are the problem forms (DESIGN §15):
//
//   - alignment: a positive integer per buffer. The first row's becomes
//     Problem.Alignment; rows that differ from it get their own
//     (Problem.Aligns), so a file with one alignment has no form.
//   - hint: an offset the solver may try first; a negative value is none
//     (MiniMalloc's rule), kept as NoOffset.
//   - gaps: space-separated gaps lower-upper or lower-upper@lo:hi, each a
//     half-open stretch [lower, upper) of the lifetime (with an end column,
//     upper is inclusive too) in which the buffer uses no memory or only
//     the bytes [lo, hi) of its own. Gaps must lie inside the lifetime, in
//     order, disjoint and non-empty, with windows inside [0, size).
//   - offset: the buffer's fixed offset. MiniMalloc reads every value of the
//     column as a fixed position (its own solutions carry it); membench
//     reads -1 as "plan this buffer" (NoOffset, as MiniMalloc's hint and
//     TFLite Micro's offline plans mark none), a value MiniMalloc could
//     never satisfy. Other negative values are refused, and a fixed offset
//     must be a multiple of the buffer's alignment.
//
// Blank lines are skipped (MiniMalloc stops at the first).
func ReadMiniMalloc(r io.Reader, name string) (*Problem, error) {
	return readParsed(r, name, parseMiniMalloc)
}

func parseMiniMalloc(data []byte, name string) (*Problem, error) {
	r := &mmReader{s: newLineScanner(data), name: name}
	h, ok := r.s.next()
	if !ok {
		return nil, &InputError{File: name, Msg: "empty file: want header " + mmWant}
	}
	if err := r.header(h); err != nil {
		return nil, err
	}
	n := bytes.Count(data, []byte{'\n'})
	r.p = &Problem{Name: name, Buffers: make([]Buffer, 0, n)}
	r.lines = make([]int32, 0, n)
	for {
		l, ok := r.s.next()
		if !ok {
			break
		}
		if err := r.row(r.s.split(l), n); err != nil {
			return nil, err
		}
	}
	return r.finish()
}

// mmReader is the state of parseMiniMalloc: the header's columns, and the
// problem and the line of every buffer read so far.
type mmReader struct {
	s    *lineScanner
	name string

	h                  []byte       // the header line
	col                [mmRoles]int // column of each role, or -1
	names              []string     // the header's column names
	endCol             int          // the column of upper, or of end
	inclusive          bool         // endCol is the legacy inclusive end
	lowerName, endName string       // the names of the lower and end columns

	p         *Problem
	lines     []int32        // the line of every buffer
	labels    []string       // the ids, once one is not a canonical integer
	labelLine map[string]int // the line of every label
	alignLine int            // the first line giving an alignment
}

func (r *mmReader) fail(msg string) error { return &InputError{File: r.name, Line: r.s.line, Msg: msg} }

// header reads the column names of header line h.
func (r *mmReader) header(h []byte) error {
	r.h = h
	for i := range r.col {
		r.col[i] = -1
	}
	hdr := r.s.split(h)
	r.names = make([]string, len(hdr))
	for i, f := range hdr {
		n := string(f)
		r.names[i] = n
		role, ok := mmColumns[n]
		switch {
		case !ok:
			return r.fail(fmt.Sprintf("unknown column %s in header %s: want %s", Echo(n), Echo(h), mmWant))
		case r.col[role] >= 0:
			return r.fail(fmt.Sprintf("column %s repeats column %s", Echo(n), Echo(r.names[r.col[role]])))
		}
		r.col[role] = i
	}
	col := &r.col
	if col[mmUpper] >= 0 && col[mmEnd] >= 0 {
		return r.fail(`header has both "upper" and "end"`)
	}
	for _, need := range []struct {
		role int
		name string
	}{{mmID, "id"}, {mmLower, "lower"}, {mmUpper, "upper"}, {mmSize, "size"}} {
		if col[need.role] < 0 && !(need.role == mmUpper && col[mmEnd] >= 0) {
			return r.fail(fmt.Sprintf("header %s lacks column %q: want %s", Echo(h), need.name, mmWant))
		}
	}
	r.endCol, r.inclusive = col[mmUpper], false
	if r.endCol < 0 {
		r.endCol, r.inclusive = col[mmEnd], true
	}
	r.lowerName, r.endName = r.names[col[mmLower]], r.names[r.endCol]
	return nil
}

// row reads the fields f of one buffer; n is the most buffers the file
// can hold.
func (r *mmReader) row(f [][]byte, n int) error {
	if len(f) != len(r.names) {
		return r.fail(fmt.Sprintf("want %d columns (%s), got %d", len(r.names), r.h, len(f)))
	}
	size, lower, end, msg := sizeAndSpan(r.names[r.col[mmSize]], f[r.col[mmSize]], r.lowerName, f[r.col[mmLower]], r.endName, f[r.endCol])
	if msg != "" {
		return r.fail(msg)
	}
	last := end
	if r.inclusive {
		msg = spanOrder(r.lowerName, lower, r.endName, end)
	} else {
		if end <= lower {
			msg = fmt.Sprintf("%s %d must be greater than %s %d (the lifetime [%s, %s) is half-open)",
				r.endName, end, r.lowerName, lower, r.lowerName, r.endName)
		}
		last = end - 1
	}
	if msg != "" {
		return r.fail(msg)
	}
	i := len(r.p.Buffers)
	if c := r.col[mmAlign]; c >= 0 {
		if err := r.alignment(f[c], i, n); err != nil {
			return err
		}
	}
	if c := r.col[mmHint]; c >= 0 {
		h, isNum, overflow := parseInt(f[c])
		if !isNum || overflow {
			return r.fail(fmt.Sprintf("hint: want an integer (negative for none), got %s", Echo(f[c])))
		}
		r.p.Hints = appendForm(r.p.Hints, i, n, max(h, NoOffset), NoOffset)
	}
	if c := r.col[mmOffset]; c >= 0 {
		o, isNum, overflow := parseInt(f[c])
		if !isNum || overflow || o < NoOffset {
			return r.fail(fmt.Sprintf("offset: want an offset >= 0, or %d to plan the buffer, got %s", NoOffset, Echo(f[c])))
		}
		r.p.Fixed = appendForm(r.p.Fixed, i, n, o, NoOffset)
	}
	if c := r.col[mmGaps]; c >= 0 {
		gaps, msg := r.gaps(f[c])
		if msg != "" {
			return r.fail(msg)
		}
		if gaps != nil && r.p.Gaps == nil {
			r.p.Gaps = make([][]Gap, i, max(n, i+1))
		}
		if r.p.Gaps != nil {
			r.p.Gaps = append(r.p.Gaps, gaps)
		}
	}
	id, err := r.id(f[r.col[mmID]], n)
	if err != nil {
		return err
	}
	r.p.Buffers = append(r.p.Buffers, Buffer{ID: int(id), Size: size, First: int(lower), Last: int(last)})
	r.lines = append(r.lines, int32(r.s.line))
	return nil
}

// appendForm appends buffer i's value v to a form's slice s, which stays
// nil while every value is the default def; capacity n.
func appendForm[T comparable](s []T, i, n int, v, def T) []T {
	if s == nil {
		if v == def {
			return nil
		}
		s = make([]T, i, max(n, i+1))
		for k := range s {
			s[k] = def
		}
	}
	return append(s, v)
}

// alignment reads buffer i's alignment: the first sets the problem's, and
// one that differs becomes the buffer's own.
func (r *mmReader) alignment(text []byte, i, n int) error {
	a, isNum, overflow := parseInt(text)
	switch {
	case !isNum:
		return r.fail(fmt.Sprintf("alignment: want an integer, got %s", Echo(text)))
	case overflow || a < 1:
		return r.fail(fmt.Sprintf("alignment: want a positive integer, got %s", Clip(text)))
	case r.alignLine == 0:
		r.p.Alignment, r.alignLine = a, r.s.line
	}
	own := a
	if a == r.p.Alignment {
		own = 0
	}
	r.p.Aligns = appendForm(r.p.Aligns, i, n, own, 0)
	return nil
}

// gaps parses a gaps field: space-separated lower-upper[@lo:hi]. It
// returns nil for none.
func (r *mmReader) gaps(text []byte) ([]Gap, string) {
	var gaps []Gap
	for _, g := range bytes.Fields(text) {
		span, window, hasWindow := bytes.Cut(g, []byte{'@'})
		lo, hi, ok := bytes.Cut(span, []byte{'-'})
		bad := func(why string) string {
			return fmt.Sprintf("gaps: %s in gap %s (want lower-upper or lower-upper@lo:hi, space-separated)", why, Echo(g))
		}
		if !ok {
			return nil, bad("no '-'")
		}
		first, msg := intField("lower", lo, MaxTask)
		if msg != "" {
			return nil, bad(msg)
		}
		end, msg := intField("upper", hi, MaxTask)
		if msg != "" {
			return nil, bad(msg)
		}
		last := end
		if !r.inclusive {
			if end <= first {
				return nil, bad(fmt.Sprintf("upper %d must be greater than lower %d (the gap is half-open)", end, first))
			}
			last = end - 1
		} else if end < first {
			return nil, bad(fmt.Sprintf("upper %d is before lower %d", end, first))
		}
		gap := Gap{First: int(first), Last: int(last)}
		if hasWindow {
			wlo, whi, ok := bytes.Cut(window, []byte{':'})
			if !ok {
				return nil, bad("no ':' in the window")
			}
			a, msg := intField("window lower", wlo, 1<<63-1)
			if msg != "" {
				return nil, bad(msg)
			}
			b, msg := intField("window upper", whi, 1<<63-1)
			if msg != "" {
				return nil, bad(msg)
			}
			gap.Window = &Window{Lo: a, Hi: b}
		}
		gaps = append(gaps, gap)
	}
	return gaps, ""
}

// id returns the Buffer.ID of a row whose id column holds text. While the
// ids are canonical integers they are the IDs; from the first that is
// not, every id becomes a label and buffers are numbered in file order.
func (r *mmReader) id(text []byte, n int) (int64, error) {
	idName := r.names[r.col[mmID]]
	if len(text) == 0 {
		return 0, r.fail(idName + ": empty id")
	}
	id, isNum, overflow := parseInt(text)
	if r.labels == nil && (!isNum || overflow || !canonicalInt(text, id)) {
		// Switch to labels: earlier ids were canonical integers.
		r.labels = make([]string, len(r.p.Buffers), n)
		r.labelLine = make(map[string]int, n)
		for i, b := range r.p.Buffers {
			r.labels[i] = strconv.Itoa(b.ID)
			r.labelLine[r.labels[i]] = int(r.lines[i])
			r.p.Buffers[i].ID = i
		}
	}
	if r.labels == nil {
		return id, nil
	}
	t := string(text)
	if prev, dup := r.labelLine[t]; dup {
		return 0, r.fail(fmt.Sprintf("%s %s repeats line %d", idName, Echo(t), prev))
	}
	r.labelLine[t] = r.s.line
	r.labels = append(r.labels, t)
	return int64(len(r.p.Buffers)), nil
}

// finish sets the labels, or refuses repeated integer ids, and checks the
// forms of every buffer.
func (r *mmReader) finish() (*Problem, error) {
	p := r.p
	if p.Gaps != nil || p.Fixed != nil {
		for i := range p.Buffers {
			if msg := checkBufferForms(p, i); msg != "" {
				return nil, &InputError{File: r.name, Line: int(r.lines[i]), Msg: msg}
			}
		}
	}
	if r.labels != nil {
		p.Labels = r.labels
		return p, nil
	}
	if a, b := duplicateID(p.Buffers); a >= 0 {
		return nil, &InputError{File: r.name, Line: int(r.lines[b]),
			Msg: fmt.Sprintf("%s %q repeats line %d", r.names[r.col[mmID]], strconv.Itoa(p.Buffers[b].ID), r.lines[a])}
	}
	return p, nil
}

// canonicalInt reports whether text is exactly how v prints, so that
// writing v back reproduces it.
func canonicalInt(text []byte, v int64) bool {
	var buf [24]byte
	return bytes.Equal(strconv.AppendInt(buf[:0], v, 10), text)
}

// capacityFromName returns the capacity encoded in a MiniMalloc benchmark
// file name (NAME.CAPACITY.csv, as in MiniMalloc's benchmarks), or 0.
func capacityFromName(path string) int64 {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return 0
	}
	c, err := strconv.ParseInt(base[i+1:], 10, 64)
	if err != nil || c <= 0 {
		return 0
	}
	return c
}

// WriteMiniMalloc writes p as MiniMalloc CSV: id,lower,upper,size with
// upper = Last+1, then, as MiniMalloc's converter orders them, the
// alignment column when p.Alignment > 0 or a buffer has its own, hint when
// a buffer has one (-1 for none), gaps when a buffer has some and offset
// when a buffer has a fixed one (-1 for none); ReadMiniMalloc reads it
// back to the same problem. Ids come from p.Labels when set, else from
// Buffer.ID. Capacity is not part of the format (MiniMalloc puts it in the
// file name), nor are memory spaces: a problem with several is refused.
func WriteMiniMalloc(w io.Writer, p *Problem) error {
	forms := p.Forms()
	if err := refuseForms("the MiniMalloc format", forms&FormMemories); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	labels := len(p.Labels) == len(p.Buffers)
	align := p.Alignment > 0 || forms&FormAlign != 0
	hints, gaps, fixed := forms&FormHints != 0, forms&FormGaps != 0, forms&FormFixed != 0
	bw.WriteString("id,lower,upper,size")
	for _, c := range []struct {
		on   bool
		name string
	}{{align, "alignment"}, {hints, "hint"}, {gaps, "gaps"}, {fixed, "offset"}} {
		if c.on {
			bw.WriteString("," + c.name)
		}
	}
	bw.WriteByte('\n')
	var buf []byte
	for i, b := range p.Buffers {
		if labels {
			buf = append(buf[:0], p.Labels[i]...)
		} else {
			buf = strconv.AppendInt(buf[:0], int64(b.ID), 10)
		}
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(b.First), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(b.Last)+1, 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, b.Size, 10)
		if align {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, p.AlignOf(i), 10)
		}
		if hints {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, p.Hints[i], 10)
		}
		if gaps {
			buf = append(buf, ',')
			for k, g := range p.GapsOf(i) {
				if k > 0 {
					buf = append(buf, ' ')
				}
				buf = strconv.AppendInt(buf, int64(g.First), 10)
				buf = append(buf, '-')
				buf = strconv.AppendInt(buf, int64(g.Last)+1, 10)
				if g.Window != nil {
					buf = append(buf, '@')
					buf = strconv.AppendInt(buf, g.Window.Lo, 10)
					buf = append(buf, ':')
					buf = strconv.AppendInt(buf, g.Window.Hi, 10)
				}
			}
		}
		if fixed {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, p.Fixed[i], 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
