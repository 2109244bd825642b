package workloads

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"unsafe"

	"github.com/nlpodyssey/gopickle/types"
)

// errNotSubset is returned by snapshotDecoder for a pickle outside the
// subset it reads; gopickle then reads it (and words its errors).
var errNotSubset = errors.New("outside the snapshot subset of pickle")

// snapshotDecoder reads the subset of pickle protocols 2 to 5 that memory
// snapshots use (dicts, lists, tuples, strings, ints of up to 64 bits,
// floats, None, bools, the memo) into gopickle's types, and streams trace
// entries: a dict with an "action" key appended to a list goes at once to
// that list's converter, and is then emptied with everything it holds, so
// a gigabyte-sized trace never exists as a tree. Entries are emptied even
// where the memo shares them: the converter reads only their scalar
// fields, which it has already read.
type snapshotDecoder struct {
	data    []byte
	i       int
	stack   []any
	marks   []int
	memo    pyMemo
	swept   int // memo slots below it were swept by the last APPENDS
	name    string
	streams map[*types.List]*pyStream
}

// pyStream is a list of trace entries converted as they were decoded.
type pyStream struct {
	c   *pyConv
	n   int   // entries converted
	err error // the first entry's error; later entries are skipped
}

// streamDevice stands for the device index in the positions of streamed
// entries, which is known only once the whole snapshot is read.
const streamDevice = "device_traces[\x00]"

// decode returns the pickled object, or errNotSubset.
func (d *snapshotDecoder) decode() (any, error) {
	data := d.data
	for d.i < len(data) {
		op := data[d.i]
		d.i++
		switch op {
		case 0x80: // PROTO
			if d.i >= len(data) || data[d.i] < 2 {
				return nil, errNotSubset
			}
			d.i++
		case 0x95: // FRAME: its content is more opcodes
			if _, ok := d.take(8); !ok {
				return nil, errNotSubset
			}
		case '.': // STOP
			if len(d.stack) != 1 || len(d.marks) != 0 {
				return nil, errNotSubset
			}
			return d.stack[0], nil
		case '}':
			d.push(types.NewDict())
		case ']':
			d.push(types.NewList())
		case ')':
			d.push(types.NewTupleFromSlice(nil))
		case '(': // MARK
			d.marks = append(d.marks, len(d.stack))
		case 'N':
			d.push(nil)
		case 0x88:
			d.push(true)
		case 0x89:
			d.push(false)
		case 'K':
			b, ok := d.take(1)
			if !ok {
				return nil, errNotSubset
			}
			d.push(int(b[0]))
		case 'M':
			b, ok := d.take(2)
			if !ok {
				return nil, errNotSubset
			}
			d.push(int(binary.LittleEndian.Uint16(b)))
		case 'J':
			b, ok := d.take(4)
			if !ok {
				return nil, errNotSubset
			}
			d.push(int(int32(binary.LittleEndian.Uint32(b))))
		case 0x8a, 0x8b: // LONG1, LONG4: two's complement, little-endian
			width := 1
			if op == 0x8b {
				width = 4
			}
			n, ok := d.index(width == 4)
			if !ok || n < 0 {
				return nil, errNotSubset
			}
			b, ok := d.take(n)
			if !ok {
				return nil, errNotSubset
			}
			d.push(pyLong(b))
		case 'G':
			b, ok := d.take(8)
			if !ok {
				return nil, errNotSubset
			}
			d.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
		case 0x8c, 'X', 0x8d: // SHORT_BINUNICODE, BINUNICODE, BINUNICODE8
			width := 1
			switch op {
			case 'X':
				width = 4
			case 0x8d:
				width = 8
			}
			b, ok := d.take(width)
			if !ok {
				return nil, errNotSubset
			}
			var n uint64
			for k := width - 1; k >= 0; k-- {
				n = n<<8 | uint64(b[k])
			}
			if n > uint64(len(data)-d.i) {
				return nil, errNotSubset
			}
			s, _ := d.take(int(n))
			// The strings share the input's bytes, which the caller keeps
			// unchanged while the snapshot is read; what outlives the
			// read is copied (allocatorSettings).
			d.push(unsafe.String(unsafe.SliceData(s), len(s)))
		case 0x94: // MEMOIZE
			if len(d.stack) == 0 {
				return nil, errNotSubset
			}
			d.memo.add(d.stack[len(d.stack)-1])
		case 'q', 'r': // BINPUT, LONG_BINPUT
			k, ok := d.index(op == 'r')
			if !ok || len(d.stack) == 0 {
				return nil, errNotSubset
			}
			if k == d.memo.n {
				d.memo.add(nil)
			}
			if k > d.memo.n {
				return nil, errNotSubset // Python numbers its memo densely
			}
			d.memo.set(k, d.stack[len(d.stack)-1])
		case 'h', 'j': // BINGET, LONG_BINGET
			k, ok := d.index(op == 'j')
			if !ok || k >= d.memo.n {
				return nil, errNotSubset
			}
			d.push(d.memo.get(k))
		case '0': // POP
			if len(d.stack) == 0 || len(d.marks) > 0 && d.marks[len(d.marks)-1] == len(d.stack) {
				return nil, errNotSubset
			}
			d.stack = d.stack[:len(d.stack)-1]
		case '2': // DUP
			if len(d.stack) == 0 {
				return nil, errNotSubset
			}
			d.push(d.stack[len(d.stack)-1])
		case 'a', 'e': // APPEND, APPENDS
			from := len(d.stack) - 1
			if op == 'e' {
				var ok bool
				if from, ok = d.popMark(); !ok {
					return nil, errNotSubset
				}
			}
			if from < 1 {
				return nil, errNotSubset
			}
			l, ok := d.stack[from-1].(*types.List)
			if !ok {
				return nil, errNotSubset
			}
			for _, v := range d.stack[from:] {
				d.append(l, v)
			}
			if d.streams[l] != nil && len(d.stack) > from {
				d.sweep(d.stack[from])
			}
			clear(d.stack[from:])
			d.stack = d.stack[:from]
		case 's', 'u': // SETITEM, SETITEMS
			from := len(d.stack) - 2
			if op == 'u' {
				var ok bool
				if from, ok = d.popMark(); !ok {
					return nil, errNotSubset
				}
			}
			if from < 1 || (len(d.stack)-from)%2 != 0 {
				return nil, errNotSubset
			}
			m, ok := d.stack[from-1].(*types.Dict)
			if !ok {
				return nil, errNotSubset
			}
			for k := from; k < len(d.stack); k += 2 {
				m.Set(d.stack[k], d.stack[k+1])
			}
			clear(d.stack[from:])
			d.stack = d.stack[:from]
		case 0x85, 0x86, 0x87, 't': // TUPLE1-3, TUPLE
			from := len(d.stack) - int(op-0x84)
			if op == 't' {
				var ok bool
				if from, ok = d.popMark(); !ok {
					return nil, errNotSubset
				}
			}
			if from < 0 {
				return nil, errNotSubset
			}
			t := types.NewTupleFromSlice(append([]any(nil), d.stack[from:]...))
			d.stack = append(d.stack[:from], t)
		default:
			return nil, errNotSubset
		}
	}
	return nil, errNotSubset
}

// pyLong decodes a pickled long: an int where it fits in 64 bits, else a
// *big.Int.
func pyLong(b []byte) any {
	if len(b) <= 8 {
		var u uint64
		for k := len(b) - 1; k >= 0; k-- {
			u = u<<8 | uint64(b[k])
		}
		if len(b) > 0 && len(b) < 8 && b[len(b)-1]&0x80 != 0 {
			u |= math.MaxUint64 << (8 * len(b)) // sign-extend
		}
		return int(int64(u))
	}
	be := make([]byte, len(b))
	for k := range b {
		be[len(b)-1-k] = b[k]
	}
	n := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if n.IsInt64() {
		return int(n.Int64())
	}
	return n
}

func (d *snapshotDecoder) push(v any) { d.stack = append(d.stack, v) }

// take returns the next n bytes.
func (d *snapshotDecoder) take(n int) ([]byte, bool) {
	if n > len(d.data)-d.i {
		return nil, false
	}
	d.i += n
	return d.data[d.i-n : d.i], true
}

// index reads a memo index of 1 or 4 bytes.
func (d *snapshotDecoder) index(long bool) (int, bool) {
	if !long {
		b, ok := d.take(1)
		if !ok {
			return 0, false
		}
		return int(b[0]), true
	}
	b, ok := d.take(4)
	if !ok {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(b)), true
}

// popMark pops the last mark and returns where it was.
func (d *snapshotDecoder) popMark() (int, bool) {
	if len(d.marks) == 0 {
		return 0, false
	}
	m := d.marks[len(d.marks)-1]
	d.marks = d.marks[:len(d.marks)-1]
	return m, m <= len(d.stack)
}

// append adds v to l, or converts it when l is a list of trace entries:
// the first dict with an "action" makes l one, and what l already held is
// converted first, so every entry keeps its position.
func (d *snapshotDecoder) append(l *types.List, v any) {
	s := d.streams[l]
	if s == nil {
		e, ok := v.(*types.Dict)
		if !ok {
			*l = append(*l, v)
			return
		}
		if _, ok := dictGet(e, "action"); !ok {
			*l = append(*l, v)
			return
		}
		s = &pyStream{c: &pyConv{name: d.name, live: map[int64]pyLive{}, streamed: true}}
		if d.streams == nil {
			d.streams = map[*types.List]*pyStream{}
		}
		d.streams[l] = s
		for _, old := range *l {
			d.convert(s, old)
		}
		*l = nil
	}
	d.convert(s, v)
}

func (d *snapshotDecoder) convert(s *pyStream, v any) {
	if s.err == nil {
		s.err = s.c.entry(s.c.where(s.n), v)
	}
	s.n++
	hollow(v)
}

// The dicts and lists that streamed entries held stand in the memo as
// these, so that the memo does not keep one object per entry.
var (
	sweptDict = &types.Dict{}
	sweptList = &types.List{}
)

// sweep replaces the dicts and lists memoized since first (the first
// entry of the batch just converted) by sweptDict and sweptList: they are
// the batch's entries and what they held, all emptied.
func (d *snapshotDecoder) sweep(first any) {
	for k := d.memo.n - 1; k >= d.swept; k-- {
		v := d.memo.get(k)
		switch v.(type) {
		case *types.Dict:
			d.memo.set(k, sweptDict)
		case *types.List:
			d.memo.set(k, sweptList)
		}
		if v == first {
			break
		}
	}
	d.swept = d.memo.n
}

// pyMemo is the pickle memo, in chunks so that growing it copies nothing.
type pyMemo struct {
	chunks [][]any
	n      int
}

const memoChunk = 1 << 12

func (m *pyMemo) add(v any) {
	if m.n%memoChunk == 0 {
		m.chunks = append(m.chunks, make([]any, memoChunk))
	}
	m.chunks[m.n/memoChunk][m.n%memoChunk] = v
	m.n++
}

func (m *pyMemo) get(k int) any    { return m.chunks[k/memoChunk][k%memoChunk] }
func (m *pyMemo) set(k int, v any) { m.chunks[k/memoChunk][k%memoChunk] = v }

// hollow empties the dicts and lists in v, which the memo may still hold.
func hollow(v any) {
	switch v := v.(type) {
	case *types.Dict:
		old := *v
		*v = nil // first, so that a cycle ends
		for _, e := range old {
			hollow(e.Value)
		}
	case *types.List:
		old := *v
		*v = nil
		for _, e := range old {
			hollow(e)
		}
	}
}
