package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
)

// ReadTrace reads a trace file: one event per line, `a,ID,BYTES[,STREAM]`
// allocates, `f,ID,[STREAM]` frees (the trailing comma is optional),
// `v,ID,OF` makes ID a view of OF's storage, `r,ID,STREAM` records that
// STREAM used ID, `s,STREAM` is a sync point of STREAM (DESIGN §11;
// stream 0 where none is named) and `e` empties the allocator's cache
// (EmptyCache). Blank lines and lines starting with '#'
// are skipped; no header is needed. Ids and streams are non-negative
// integers and each id names one tensor: an id is allocated (or viewed)
// once, freed at most once, and freeing, viewing or recording an id the
// trace never allocated (or already freed) is an error, reported with its
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

// traceForms names the event lines, for errors.
const traceForms = "a,ID,BYTES[,STREAM] (alloc), f,ID,[STREAM] (free), v,ID,OF (view), r,ID,STREAM (record stream), s,STREAM (sync) or e (empty cache)"

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
		// id parses field i as the event's id, stream field i as its stream.
		id := func(i int) {
			if msg == "" {
				var v int64
				v, msg = intField("id", f[i], 1<<63-1)
				e.ID = int(v)
			}
		}
		stream := func(i int) {
			if msg == "" {
				var v int64
				v, msg = intField("stream", f[i], math.MaxInt32)
				e.Stream = int32(v)
			}
		}
		switch string(f[0]) {
		case "a":
			if len(f) != 3 && len(f) != 4 {
				return nil, nil, fail(fmt.Sprintf("want a,ID,BYTES or a,ID,BYTES,STREAM, got %s", Echo(l)))
			}
			e.Kind = Alloc
			id(1)
			if msg == "" {
				e.Size, msg = intField("bytes", f[2], 1<<63-1)
			}
			if len(f) == 4 {
				stream(3)
			}
		case "f":
			if len(f) != 2 && len(f) != 3 {
				return nil, nil, fail(fmt.Sprintf("want f,ID, or f,ID,STREAM, got %s", Echo(l)))
			}
			e.Kind = Free
			id(1)
			if len(f) == 3 && len(f[2]) > 0 {
				stream(2)
			}
		case "v":
			if len(f) != 3 {
				return nil, nil, fail(fmt.Sprintf("want v,ID,OF, got %s", Echo(l)))
			}
			e.Kind = View
			id(1)
			if msg == "" {
				var of int64
				of, msg = intField("of", f[2], 1<<63-1)
				e.Of = int(of)
			}
		case "r":
			if len(f) != 3 {
				return nil, nil, fail(fmt.Sprintf("want r,ID,STREAM, got %s", Echo(l)))
			}
			e.Kind = Record
			id(1)
			stream(2)
		case "s":
			if len(f) != 2 {
				return nil, nil, fail(fmt.Sprintf("want s,STREAM, got %s", Echo(l)))
			}
			e.Kind = Sync
			stream(1)
		case "e":
			if len(f) != 1 {
				return nil, nil, fail(fmt.Sprintf("want e (empty cache), got %s", Echo(l)))
			}
			e.Kind = EmptyCache
		default:
			return nil, nil, fail(fmt.Sprintf("unknown event %s: want %s", Echo(f[0]), traceForms))
		}
		if msg != "" {
			return nil, nil, fail(msg)
		}
		t.Events = append(t.Events, e)
		lines = append(lines, int32(s.line))
	}
	p, _, err := traceProblem(t, lines, 0)
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
		if e.Kind == EmptyCache {
			bw.Write(append(buf, '\n'))
			continue
		}
		buf = append(buf, ',')
		if e.Kind == Sync {
			buf = strconv.AppendInt(buf, int64(e.Stream), 10)
			bw.Write(append(buf, '\n'))
			continue
		}
		buf = strconv.AppendInt(buf, int64(e.ID), 10)
		buf = append(buf, ',')
		switch e.Kind {
		case Alloc:
			buf = strconv.AppendInt(buf, e.Size, 10)
			if e.Stream != 0 {
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, int64(e.Stream), 10)
			}
		case Free:
			if e.Stream != 0 {
				buf = strconv.AppendInt(buf, int64(e.Stream), 10)
			}
		case View:
			buf = strconv.AppendInt(buf, int64(e.Of), 10)
		case Record:
			buf = strconv.AppendInt(buf, int64(e.Stream), 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
