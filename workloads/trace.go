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

// traceLines gives each event line's letter, its kind, how many fields
// it may have and its form, for errors.
var traceLines = [...]struct {
	letter string
	kind   EventKind
	lo, hi int
	want   string
}{
	{"a", Alloc, 3, 4, "a,ID,BYTES or a,ID,BYTES,STREAM"},
	{"f", Free, 2, 3, "f,ID, or f,ID,STREAM"},
	{"v", View, 3, 3, "v,ID,OF"},
	{"r", Record, 3, 3, "r,ID,STREAM"},
	{"s", Sync, 2, 2, "s,STREAM"},
	{"e", EmptyCache, 1, 1, "e (empty cache)"},
}

// traceEvent parses the fields f of event line l, or says what is wrong.
func traceEvent(f [][]byte, l []byte) (Event, string) {
	k := 0
	for k < len(traceLines) && traceLines[k].letter != string(f[0]) {
		k++
	}
	if k == len(traceLines) {
		return Event{}, fmt.Sprintf("unknown event %s: want %s", Echo(f[0]), traceForms)
	}
	form := &traceLines[k]
	if len(f) < form.lo || len(f) > form.hi {
		return Event{}, fmt.Sprintf("want %s, got %s", form.want, Echo(l))
	}
	kind := form.kind
	r := eventFields{f: f, e: Event{Kind: kind}}
	switch kind {
	case Alloc:
		r.id(1)
		r.e.Size = r.int(2, "bytes", 1<<63-1)
		if len(f) == 4 {
			r.stream(3)
		}
	case Free:
		r.id(1)
		if len(f) == 3 && len(f[2]) > 0 {
			r.stream(2)
		}
	case View:
		r.id(1)
		r.e.Of = int(r.int(2, "of", 1<<63-1))
	case Record:
		r.id(1)
		r.stream(2)
	case Sync:
		r.stream(1)
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
