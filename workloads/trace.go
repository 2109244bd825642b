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
	n := bytes.Count(data, []byte{'\n'}) + 1
	t := &Trace{Name: name, Events: make([]Event, 0, n)}
	lines := make([]int32, 0, n)
	for {
		l, ok := s.next()
		if !ok {
			break
		}
		e, msg := traceEvent(s.split(l), l)
		if msg != "" {
			return nil, nil, &InputError{File: name, Line: s.line, Msg: msg}
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

// traceEvent parses the fields f of event line l, or says what is wrong.
func traceEvent(f [][]byte, l []byte) (Event, string) {
	r := eventFields{f: f}
	form := func(want string) string { return fmt.Sprintf("want %s, got %s", want, Echo(l)) }
	switch string(f[0]) {
	case "a":
		if len(f) != 3 && len(f) != 4 {
			return r.e, form("a,ID,BYTES or a,ID,BYTES,STREAM")
		}
		r.e.Kind = Alloc
		r.id(1)
		r.e.Size = r.int(2, "bytes", 1<<63-1)
		if len(f) == 4 {
			r.stream(3)
		}
	case "f":
		if len(f) != 2 && len(f) != 3 {
			return r.e, form("f,ID, or f,ID,STREAM")
		}
		r.e.Kind = Free
		r.id(1)
		if len(f) == 3 && len(f[2]) > 0 {
			r.stream(2)
		}
	case "v":
		if len(f) != 3 {
			return r.e, form("v,ID,OF")
		}
		r.e.Kind = View
		r.id(1)
		r.e.Of = int(r.int(2, "of", 1<<63-1))
	case "r":
		if len(f) != 3 {
			return r.e, form("r,ID,STREAM")
		}
		r.e.Kind = Record
		r.id(1)
		r.stream(2)
	case "s":
		if len(f) != 2 {
			return r.e, form("s,STREAM")
		}
		r.e.Kind = Sync
		r.stream(1)
	case "e":
		if len(f) != 1 {
			return r.e, form("e (empty cache)")
		}
		r.e.Kind = EmptyCache
	default:
		return r.e, fmt.Sprintf("unknown event %s: want %s", Echo(f[0]), traceForms)
	}
	return r.e, r.msg
}

// eventFields parses the fields of one event line into e; msg keeps the
// first error, after which the fields are no longer read.
type eventFields struct {
	f   [][]byte
	e   Event
	msg string
}

// int parses field i, named col, as an integer in [0, max].
func (r *eventFields) int(i int, col string, max int64) int64 {
	if r.msg != "" {
		return 0
	}
	var v int64
	v, r.msg = intField(col, r.f[i], max)
	return v
}

// id parses field i as the event's id.
func (r *eventFields) id(i int) { r.e.ID = int(r.int(i, "id", 1<<63-1)) }

// stream parses field i as the event's stream.
func (r *eventFields) stream(i int) { r.e.Stream = int32(r.int(i, "stream", math.MaxInt32)) }

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
