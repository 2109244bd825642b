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
	return readParsed(r, name, parseTFLite)
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
		size, first, last, msg := sizeAndSpan("size", f[0], "first_task", f[1], "last_task", f[2])
		if msg == "" {
			msg = spanOrder("first_task", first, "last_task", last)
		}
		if msg != "" {
			return nil, fail(msg)
		}
		p.Buffers = append(p.Buffers, Buffer{ID: len(p.Buffers), Size: size, First: int(first), Last: int(last)})
	}
	return p, nil
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

// WriteTFLite writes p as TFLite usage records. The format has no ids,
// alignment or capacity; they are dropped. It holds no problem form
// either: a problem with any is refused, naming them.
func WriteTFLite(w io.Writer, p *Problem) error {
	if err := refuseForms("the TFLite records format", p.Forms()); err != nil {
		return err
	}
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
