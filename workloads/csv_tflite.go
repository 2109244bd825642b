package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// tfliteHeader is the header of TFLite usage-record files of byte sizes.
const tfliteHeader = "size,first_task,last_task"

// tfliteHeaders lists the headers the TFLite records format accepts, for
// messages (DESIGN §17).
const tfliteHeaders = "size,first_task,last_task[,reuse|deps] or x,y[,z],first_task,last_task[,element_size] or b,h,w,c,first_task,last_task[,element_size]"

// maxDepsRecords bounds the records of a file with a deps column: the
// reallocation graph costs a breadth-first search per dependency.
const maxDepsRecords = 1 << 12

// ReadTFLite reads TFLite usage records: a header and then one inclusive
// record per line. Buffer i (0-based, in file order) gets ID i. Blank
// lines and lines starting with '#' are skipped. name is used in error
// messages and as the problem's Name.
//
// The header names the size type (DESIGN §17): size,first_task,last_task
// for byte sizes; x,y,first_task,last_task for 2D textures,
// x,y,z,first_task,last_task for 3D textures and b,h,w,c,first_task,last_task
// for BHWC shapes, each optionally followed by element_size (the bytes of
// one element, the same on every row; 1 without the column). Byte records
// may end in a reuse column, the buffer's list of the records that may
// reuse its memory (TFLite's reallocation graph), or a deps column, the
// records computed from it, from which ReallocationGraph derives the
// graph; each a list of 0-based record numbers separated by spaces,
// possibly empty.
func ReadTFLite(r io.Reader, name string) (*Problem, error) {
	return readParsed(r, name, parseTFLite)
}

// tfliteLayout is what a TFLite records header says: the size type and
// which optional column, if any, ends each row.
type tfliteLayout struct {
	t     SizeType
	extra string // "", "element_size", "reuse" or "deps"
}

// parseTFLiteHeader reads a TFLite records header, or returns false.
func parseTFLiteHeader(f [][]byte) (tfliteLayout, bool) {
	for _, t := range SizeTypes {
		cols := t.Columns()
		if len(f) < len(cols)+2 || len(f) > len(cols)+3 {
			continue
		}
		ok := string(f[len(cols)]) == "first_task" && string(f[len(cols)+1]) == "last_task"
		for d, c := range cols {
			ok = ok && string(f[d]) == c
		}
		if !ok {
			continue
		}
		l := tfliteLayout{t: t}
		if len(f) == len(cols)+3 {
			l.extra = string(f[len(cols)+2])
			switch {
			case t == SizeBytes && (l.extra == "reuse" || l.extra == "deps"):
			case t != SizeBytes && l.extra == "element_size":
			default:
				return l, false
			}
		}
		return l, true
	}
	return tfliteLayout{}, false
}

func parseTFLite(data []byte, name string) (*Problem, error) {
	s := newLineScanner(data)
	fail := func(msg string) error { return &InputError{File: name, Line: s.line, Msg: msg} }
	h, ok := s.next()
	if !ok {
		return nil, &InputError{File: name, Msg: "empty file: want header " + tfliteHeader}
	}
	lay, ok := parseTFLiteHeader(s.split(h))
	if !ok {
		return nil, fail(fmt.Sprintf("unknown header %s: want %s", Echo(h), tfliteHeaders))
	}
	header := string(h)
	dims := lay.t.Dims()
	want := dims + 2
	if lay.extra != "" {
		want++
	}
	p := &Problem{Name: name, Buffers: make([]Buffer, 0, bytes.Count(data, []byte{'\n'}))}
	if lay.t != SizeBytes {
		p.SizeType, p.ElementSize = lay.t, 1
	}
	var lists [][]int
	var listLines []int
	for {
		l, ok := s.next()
		if !ok {
			break
		}
		f := s.split(l)
		if len(f) != want {
			return nil, fail(fmt.Sprintf("want %d columns (%s), got %d", want, header, len(f)))
		}
		var size, first, last int64
		var msg string
		if lay.t == SizeBytes {
			size, first, last, msg = sizeAndSpan("size", f[0], "first_task", f[1], "last_task", f[2])
		} else {
			var sh Shape
			for d, c := range lay.t.Columns() {
				if sh[d], msg = intField(c, f[d], lay.t.MaxExtent()); msg != "" {
					return nil, fail(msg)
				}
			}
			if first, msg = intField("first_task", f[dims], MaxTask); msg == "" {
				last, msg = intField("last_task", f[dims+1], MaxTask)
			}
			if msg == "" && lay.extra == "element_size" {
				msg = elementSize(p, f[dims+2], len(p.Buffers) == 0)
			}
			if msg == "" {
				var ok bool
				if size, ok = p.ShapeBytes(sh); !ok {
					msg = fmt.Sprintf("shape %s of %d-byte elements overflows int64 bytes", sh.Format(dims), p.ElementSize)
				}
			}
			p.Shapes = append(p.Shapes, sh)
		}
		if msg == "" {
			msg = spanOrder("first_task", first, "last_task", last)
		}
		if msg == "" && (lay.extra == "reuse" || lay.extra == "deps") {
			var list []int
			list, msg = recordList(lay.extra, f[3])
			lists = append(lists, list)
			listLines = append(listLines, s.line)
		}
		if msg != "" {
			return nil, fail(msg)
		}
		p.Buffers = append(p.Buffers, Buffer{ID: len(p.Buffers), Size: size, First: int(first), Last: int(last)})
	}
	if lists == nil {
		return p, nil
	}
	n := len(p.Buffers)
	if lay.extra == "deps" && n > maxDepsRecords {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("deps: %d records, at most %d with a deps column (the reallocation graph costs a search per dependency); give the graph as a reuse column", n, maxDepsRecords)}
	}
	for i, list := range lists {
		for _, j := range list {
			if j >= n {
				return nil, &InputError{File: name, Line: listLines[i], Msg: fmt.Sprintf("%s: record %d is not in the file (records 0..%d)", lay.extra, j, n-1)}
			}
		}
		if lay.extra == "reuse" {
			slices.Sort(list)
			lists[i] = slices.Compact(list)
		}
	}
	if lay.extra == "deps" {
		// Kept as a reuse column would read back: each list present,
		// without the repeats a cyclic graph gives.
		lists = ReallocationGraph(lists)
		for i, l := range lists {
			lists[i] = append([]int{}, slices.Compact(l)...)
		}
	}
	p.Reuse = lists
	return p, nil
}

// elementSize parses an element_size field into p.ElementSize on the first
// row (first) and checks later rows repeat it; it returns what is wrong,
// or "".
func elementSize(p *Problem, f []byte, first bool) string {
	v, msg := intField("element_size", f, math.MaxInt32)
	switch {
	case msg != "":
		return msg
	case v < 1:
		return "element_size: want at least 1 byte"
	case first:
		p.ElementSize = v
	case v != p.ElementSize:
		return fmt.Sprintf("element_size %d differs from the first record's %d: a problem has one element size", v, p.ElementSize)
	}
	return ""
}

// recordList parses a list of 0-based record numbers separated by spaces
// (empty: none), the column named col.
func recordList(col string, f []byte) ([]int, string) {
	list := []int{}
	for _, w := range bytes.Fields(f) {
		v, msg := intField(col, w, math.MaxInt32)
		if msg != "" {
			return nil, msg
		}
		list = append(list, int(v))
	}
	return list, ""
}

// sizeAndSpan parses a row's size and the two ends of its lifetime, each
// column named for its messages: the size in [0, 2^63), the ends in [0,
// MaxTask].
func sizeAndSpan(sizeCol string, size []byte, firstCol string, first []byte, lastCol string, last []byte) (s, f, l int64, msg string) {
	if s, msg = intField(sizeCol, size, 1<<63-1); msg != "" {
		return
	}
	if f, msg = intField(firstCol, first, MaxTask); msg != "" {
		return
	}
	l, msg = intField(lastCol, last, MaxTask)
	return
}

// spanOrder says what is wrong with an inclusive lifetime [first, last]
// whose last task comes before its first, or returns "".
func spanOrder(firstCol string, first int64, lastCol string, last int64) string {
	if last < first {
		return fmt.Sprintf("%s %d is before %s %d", lastCol, last, firstCol, first)
	}
	return ""
}

// WriteTFLite writes p as TFLite usage records, with the header of its
// size type (and element_size for shapes) and a reuse column when it has
// a reallocation graph. The format has no ids, alignment or capacity;
// they are dropped. It holds no problem form either: a problem with any
// is refused, naming them.
func WriteTFLite(w io.Writer, p *Problem) error {
	if err := refuseForms("the TFLite records format", p.Forms()); err != nil {
		return err
	}
	if err := CheckShapes(p); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	if p.SizeType != SizeBytes && p.Reuse != nil {
		return Usagef("the TFLite records format holds a reallocation graph for byte sizes only, not %s", p.SizeType)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(p.SizeType.Columns(), ",") + ",first_task,last_task")
	switch {
	case p.SizeType != SizeBytes:
		bw.WriteString(",element_size")
	case p.Reuse != nil:
		bw.WriteString(",reuse")
	}
	bw.WriteString("\n")
	var buf []byte
	for i, b := range p.Buffers {
		buf = buf[:0]
		if p.SizeType == SizeBytes {
			buf = strconv.AppendInt(buf, b.Size, 10)
		} else {
			for d, e := range p.Shapes[i][:p.SizeType.Dims()] {
				if d > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendInt(buf, e, 10)
			}
		}
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(b.First), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(b.Last), 10)
		switch {
		case p.SizeType != SizeBytes:
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, p.ElementSize, 10)
		case p.Reuse != nil:
			buf = append(buf, ',')
			for k, j := range p.Reuse[i] {
				if k > 0 {
					buf = append(buf, ' ')
				}
				buf = strconv.AppendInt(buf, int64(j), 10)
			}
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
