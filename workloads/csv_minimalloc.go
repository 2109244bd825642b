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
	data, err := readAll(r, name)
	if err != nil {
		return nil, err
	}
	return parseMiniMalloc(data, name)
}

func parseMiniMalloc(data []byte, name string) (*Problem, error) {
	s := newLineScanner(data)
	fail := func(msg string) error { return &InputError{File: name, Line: s.line, Msg: msg} }
	h, ok := s.next()
	if !ok {
		return nil, &InputError{File: name, Msg: "empty file: want header " + mmWant}
	}
	var col [mmRoles]int
	for i := range col {
		col[i] = -1
	}
	hdr := s.split(h)
	names := make([]string, len(hdr))
	for i, f := range hdr {
		n := string(f)
		names[i] = n
		role, ok := mmColumns[n]
		switch {
		case n == "gaps" || n == "offset":
			return nil, fail(fmt.Sprintf("column %s is not supported (want %s)", Echo(n), mmWant))
		case !ok:
			return nil, fail(fmt.Sprintf("unknown column %s in header %s: want %s", Echo(n), Echo(h), mmWant))
		case col[role] >= 0:
			return nil, fail(fmt.Sprintf("column %s repeats column %s", Echo(n), Echo(names[col[role]])))
		}
		col[role] = i
	}
	if col[mmUpper] >= 0 && col[mmEnd] >= 0 {
		return nil, fail(`header has both "upper" and "end"`)
	}
	for _, need := range []struct {
		role int
		name string
	}{{mmID, "id"}, {mmLower, "lower"}, {mmUpper, "upper"}, {mmSize, "size"}} {
		if col[need.role] < 0 && !(need.role == mmUpper && col[mmEnd] >= 0) {
			return nil, fail(fmt.Sprintf("header %s lacks column %q: want %s", Echo(h), need.name, mmWant))
		}
	}
	endCol, inclusive := col[mmUpper], false
	if endCol < 0 {
		endCol, inclusive = col[mmEnd], true
	}
	lowerName, endName := names[col[mmLower]], names[endCol]

	n := bytes.Count(data, []byte{'\n'})
	p := &Problem{Name: name, Buffers: make([]Buffer, 0, n)}
	lines := make([]int32, 0, n)
	var labels []string
	var labelLine map[string]int
	alignLine := 0
	for {
		l, ok := s.next()
		if !ok {
			break
		}
		f := s.split(l)
		if len(f) != len(hdr) {
			return nil, fail(fmt.Sprintf("want %d columns (%s), got %d", len(hdr), h, len(f)))
		}
		size, msg := intField(names[col[mmSize]], f[col[mmSize]], 1<<63-1)
		if msg != "" {
			return nil, fail(msg)
		}
		lower, msg := intField(lowerName, f[col[mmLower]], MaxTask)
		if msg != "" {
			return nil, fail(msg)
		}
		end, msg := intField(endName, f[endCol], MaxTask)
		if msg != "" {
			return nil, fail(msg)
		}
		last := end
		if inclusive {
			if end < lower {
				return nil, fail(fmt.Sprintf("%s %d is before %s %d", endName, end, lowerName, lower))
			}
		} else {
			if end <= lower {
				return nil, fail(fmt.Sprintf("%s %d must be greater than %s %d (the lifetime [%s, %s) is half-open)",
					endName, end, lowerName, lower, lowerName, endName))
			}
			last = end - 1
		}
		if c := col[mmAlign]; c >= 0 {
			a, isNum, overflow := parseInt(f[c])
			switch {
			case !isNum:
				return nil, fail(fmt.Sprintf("alignment: want an integer, got %s", Echo(f[c])))
			case overflow || a < 1:
				return nil, fail(fmt.Sprintf("alignment: want a positive integer, got %s", Clip(f[c])))
			case alignLine == 0:
				p.Alignment, alignLine = a, s.line
			case a != p.Alignment:
				return nil, fail(fmt.Sprintf("alignment %d differs from %d on line %d: membench supports one alignment per problem",
					a, p.Alignment, alignLine))
			}
		}
		idText := f[col[mmID]]
		if len(idText) == 0 {
			return nil, fail(names[col[mmID]] + ": empty id")
		}
		id, isNum, overflow := parseInt(idText)
		if labels == nil && (!isNum || overflow || !canonicalInt(idText, id)) {
			// Switch to labels: earlier ids were canonical integers.
			labels = make([]string, len(p.Buffers), n)
			labelLine = make(map[string]int, n)
			for i, b := range p.Buffers {
				labels[i] = strconv.Itoa(b.ID)
				labelLine[labels[i]] = int(lines[i])
				p.Buffers[i].ID = i
			}
		}
		if labels != nil {
			t := string(idText)
			if prev, dup := labelLine[t]; dup {
				return nil, fail(fmt.Sprintf("%s %s repeats line %d", names[col[mmID]], Echo(t), prev))
			}
			labelLine[t] = s.line
			labels = append(labels, t)
			id = int64(len(p.Buffers))
		}
		p.Buffers = append(p.Buffers, Buffer{ID: int(id), Size: size, First: int(lower), Last: int(last)})
		lines = append(lines, int32(s.line))
	}
	if labels != nil {
		p.Labels = labels
		return p, nil
	}
	if a, b := duplicateID(p.Buffers); a >= 0 {
		return nil, &InputError{File: name, Line: int(lines[b]),
			Msg: fmt.Sprintf("%s %q repeats line %d", names[col[mmID]], strconv.Itoa(p.Buffers[b].ID), lines[a])}
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
