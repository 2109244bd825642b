package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// tfliteHeader is the header of TFLite usage-record files.
const tfliteHeader = "size,first_task,last_task"

// ReadTFLite reads TFLite usage records: the header size,first_task,last_task
// and then one inclusive record per line. Buffer i (0-based, in file order)
// gets ID i. Blank lines and lines starting with '#' are skipped. name is
// used in error messages and as the problem's Name.
func ReadTFLite(r io.Reader, name string) (*Problem, error) {
	data, err := readAll(r, name)
	if err != nil {
		return nil, err
	}
	return parseTFLite(data, name)
}

func parseTFLite(data []byte, name string) (*Problem, error) {
	s := newLineScanner(data)
	fail := func(msg string) error { return &InputError{File: name, Line: s.line, Msg: msg} }
	h, ok := s.next()
	if !ok {
		return nil, &InputError{File: name, Msg: "empty file: want header " + tfliteHeader}
	}
	if f := s.split(h); len(f) != 3 || string(f[0]) != "size" || string(f[1]) != "first_task" || string(f[2]) != "last_task" {
		return nil, fail(fmt.Sprintf("unknown header %s: want %s", Echo(h), tfliteHeader))
	}
	p := &Problem{Name: name, Buffers: make([]Buffer, 0, bytes.Count(data, []byte{'\n'}))}
	for {
		l, ok := s.next()
		if !ok {
			break
		}
		f := s.split(l)
		if len(f) != 3 {
			return nil, fail(fmt.Sprintf("want 3 columns (%s), got %d", tfliteHeader, len(f)))
		}
		size, msg := intField("size", f[0], 1<<63-1)
		if msg != "" {
			return nil, fail(msg)
		}
		first, msg := intField("first_task", f[1], MaxTask)
		if msg != "" {
			return nil, fail(msg)
		}
		last, msg := intField("last_task", f[2], MaxTask)
		if msg != "" {
			return nil, fail(msg)
		}
		if last < first {
			return nil, fail(fmt.Sprintf("last_task %d is before first_task %d", last, first))
		}
		p.Buffers = append(p.Buffers, Buffer{ID: len(p.Buffers), Size: size, First: int(first), Last: int(last)})
	}
	return p, nil
}

// WriteTFLite writes p as TFLite usage records. The format has no ids,
// alignment or capacity; they are dropped.
func WriteTFLite(w io.Writer, p *Problem) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(tfliteHeader + "\n")
	var buf []byte
	for _, b := range p.Buffers {
		buf = strconv.AppendInt(buf[:0], b.Size, 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(b.First), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(b.Last), 10)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
