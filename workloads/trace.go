package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// ReadTrace reads a trace file: one event per line, `a,ID,BYTES` allocates,
// `f,ID,` frees (the trailing comma is optional), `v,ID,OF` makes ID a view
// of OF's storage. Blank lines and lines starting with '#' are skipped; no
// header is needed. Ids are non-negative integers and each names one tensor:
// an id is allocated (or viewed) once, freed at most once, and freeing or
// viewing an id the trace never allocated is an error, reported with its
// line. Freeing an id whose allocation failed during a replay is the
// replayer's business and not checked here.
func ReadTrace(r io.Reader, name string) (*Trace, error) {
	data, err := readAll(r, name)
	if err != nil {
		return nil, err
	}
	t, _, err := parseTrace(data, name)
	return t, err
}

// parseTrace reads a trace and also returns its problem, which checking
// the trace computes anyway.
func parseTrace(data []byte, name string) (*Trace, *Problem, error) {
	s := newLineScanner(data)
	fail := func(msg string) error { return &InputError{File: name, Line: s.line, Msg: msg} }
	n := bytes.Count(data, []byte{'\n'}) + 1
	t := &Trace{Name: name, Events: make([]Event, 0, n)}
	lines := make([]int32, 0, n)
	for {
		l, ok := s.next()
		if !ok {
			break
		}
		f := s.split(l)
		var e Event
		var msg string
		switch string(f[0]) {
		case "a":
			if len(f) != 3 {
				return nil, nil, fail(fmt.Sprintf("want a,ID,BYTES, got %s", Echo(l)))
			}
			e.Kind = Alloc
			var id int64
			if id, msg = intField("id", f[1], 1<<63-1); msg == "" {
				e.ID = int(id)
				e.Size, msg = intField("bytes", f[2], 1<<63-1)
			}
		case "f":
			if len(f) != 2 && (len(f) != 3 || len(f[2]) != 0) {
				return nil, nil, fail(fmt.Sprintf("want f,ID, got %s", Echo(l)))
			}
			e.Kind = Free
			var id int64
			id, msg = intField("id", f[1], 1<<63-1)
			e.ID = int(id)
		case "v":
			if len(f) != 3 {
				return nil, nil, fail(fmt.Sprintf("want v,ID,OF, got %s", Echo(l)))
			}
			e.Kind = View
			var id, of int64
			if id, msg = intField("id", f[1], 1<<63-1); msg == "" {
				of, msg = intField("of", f[2], 1<<63-1)
				e.ID, e.Of = int(id), int(of)
			}
		default:
			return nil, nil, fail(fmt.Sprintf("unknown event %s: want a,ID,BYTES (alloc), f,ID, (free) or v,ID,OF (view)", Echo(f[0])))
		}
		if msg != "" {
			return nil, nil, fail(msg)
		}
		t.Events = append(t.Events, e)
		lines = append(lines, int32(s.line))
	}
	p, err := traceProblem(t, lines)
	if err != nil {
		return nil, nil, err
	}
	return t, p, nil
}

// WriteTrace writes t in the trace format ReadTrace reads.
func WriteTrace(w io.Writer, t *Trace) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, e := range t.Events {
		buf = append(buf[:0], e.Kind.String()...)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(e.ID), 10)
		buf = append(buf, ',')
		switch e.Kind {
		case Alloc:
			buf = strconv.AppendInt(buf, e.Size, 10)
		case View:
			buf = strconv.AppendInt(buf, int64(e.Of), 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
