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
	mmRoles
)

// mmColumns maps MiniMalloc header names to roles. The legacy header
// buffer,start,end,size has an inclusive end.
var mmColumns = map[string]int{
	"id": mmID, "buffer": mmID,
	"lower": mmLower, "start": mmLower,
	"upper": mmUpper, "end": mmEnd,
	"size":      mmSize,
	"alignment": mmAlign,
}

const mmWant = "id,lower,upper,size[,alignment] or buffer,start,end,size"

// ReadMiniMalloc reads a MiniMalloc problem: header id,lower,upper,size with
// an optional alignment column, lifetimes half-open [lower, upper) (so
// First = lower, Last = upper-1); or the legacy header buffer,start,end,size
// whose end is inclusive. Columns may come in any order.
//
// Ids that are all canonical integers become Buffer.ID; otherwise buffers
// are numbered in file order and the ids are kept in Problem.Labels. Either
// way WriteMiniMalloc reproduces them. Duplicate ids are refused.
//
// Problem has a single Alignment: when the alignment column is present every
// row must give the same value, which becomes Problem.Alignment (rows that
// differ are refused; membench does not plan per-buffer alignments). The
// gaps and offset columns are refused with an error naming the column.
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
		case n == "gaps" || n == "offset":
			return r.fail(fmt.Sprintf("column %s is not supported (want %s)", Echo(n), mmWant))
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
	if c := r.col[mmAlign]; c >= 0 {
		if err := r.alignment(f[c]); err != nil {
			return err
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

// alignment checks a row's alignment: the first sets the problem's, and
// every other must be the same.
func (r *mmReader) alignment(text []byte) error {
	a, isNum, overflow := parseInt(text)
	switch {
	case !isNum:
		return r.fail(fmt.Sprintf("alignment: want an integer, got %s", Echo(text)))
	case overflow || a < 1:
		return r.fail(fmt.Sprintf("alignment: want a positive integer, got %s", Clip(text)))
	case r.alignLine == 0:
		r.p.Alignment, r.alignLine = a, r.s.line
	case a != r.p.Alignment:
		return r.fail(fmt.Sprintf("alignment %d differs from %d on line %d: membench supports one alignment per problem",
			a, r.p.Alignment, r.alignLine))
	}
	return nil
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

// finish sets the labels, or refuses repeated integer ids.
func (r *mmReader) finish() (*Problem, error) {
	p := r.p
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
// upper = Last+1, plus the alignment column when p.Alignment > 0. Ids come
// from p.Labels when set, else from Buffer.ID. Capacity is not part of the
// format (MiniMalloc puts it in the file name).
func WriteMiniMalloc(w io.Writer, p *Problem) error {
	bw := bufio.NewWriter(w)
	labels := len(p.Labels) == len(p.Buffers)
	if p.Alignment > 0 {
		bw.WriteString("id,lower,upper,size,alignment\n")
	} else {
		bw.WriteString("id,lower,upper,size\n")
	}
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
		if p.Alignment > 0 {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, p.Alignment, 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
