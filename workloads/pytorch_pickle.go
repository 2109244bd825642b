package workloads

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
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
	budget  *pyBudget
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
	for d.i < len(d.data) {
		op := d.data[d.i]
		d.i++
		if op == '.' { // STOP
			if len(d.stack) != 1 || len(d.marks) != 0 {
				return nil, errNotSubset
			}
			return d.stack[0], nil
		}
		if !d.step(op) {
			return nil, errNotSubset
		}
	}
	return nil, errNotSubset
}

// step applies opcode op, and reports whether it is in the subset.
func (d *snapshotDecoder) step(op byte) bool {
	switch op {
	case 0x80: // PROTO
		b, ok := d.take(1)
		return ok && b[0] >= 2
	case 0x95: // FRAME: its content is more opcodes
		_, ok := d.take(8)
		return ok
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
	case 'K', 'M', 'J', 0x8a, 0x8b, 'G':
		return d.number(op)
	case 0x8c, 'X', 0x8d:
		return d.text(op)
	case 0x94, 'q', 'r', 'h', 'j':
		return d.memoOp(op)
	case '0': // POP
		if len(d.stack) == 0 || len(d.marks) > 0 && d.marks[len(d.marks)-1] == len(d.stack) {
			return false
		}
		d.stack = d.stack[:len(d.stack)-1]
	case '2': // DUP
		if len(d.stack) == 0 {
			return false
		}
		d.push(d.stack[len(d.stack)-1])
	case 'a', 'e':
		return d.appendItems(op)
	case 's', 'u':
		return d.setItems(op)
	case 0x85, 0x86, 0x87, 't':
		return d.tuple(op)
	default:
		return false
	}
	return true
}

// number pushes the number of BININT1, BININT2, BININT, LONG1, LONG4 or
// BINFLOAT.
func (d *snapshotDecoder) number(op byte) bool {
	switch op {
	case 'K':
		b, ok := d.take(1)
		if ok {
			d.push(int(b[0]))
		}
		return ok
	case 'M':
		b, ok := d.take(2)
		if ok {
			d.push(int(binary.LittleEndian.Uint16(b)))
		}
		return ok
	case 'J':
		b, ok := d.take(4)
		if ok {
			d.push(int(int32(binary.LittleEndian.Uint32(b))))
		}
		return ok
	case 'G':
		b, ok := d.take(8)
		if ok {
			d.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
		return ok
	}
	// LONG1, LONG4: two's complement, little-endian
	n, ok := d.index(op == 0x8b)
	if !ok || n < 0 {
		return false
	}
	b, ok := d.take(n)
	if ok {
		d.push(pyLong(b))
	}
	return ok
}

// text pushes the string of SHORT_BINUNICODE, BINUNICODE or BINUNICODE8.
func (d *snapshotDecoder) text(op byte) bool {
	width := 1
	switch op {
	case 'X':
		width = 4
	case 0x8d:
		width = 8
	}
	b, ok := d.take(width)
	if !ok {
		return false
	}
	var n uint64
	for k := width - 1; k >= 0; k-- {
		n = n<<8 | uint64(b[k])
	}
	if n > uint64(len(d.data)-d.i) {
		return false
	}
	s, _ := d.take(int(n))
	// The strings share the input's bytes, which the caller keeps
	// unchanged while the snapshot is read; what outlives the read is
	// copied (allocatorSettings).
	d.push(unsafe.String(unsafe.SliceData(s), len(s)))
	return true
}

// memoOp applies MEMOIZE, BINPUT, LONG_BINPUT, BINGET or LONG_BINGET.
func (d *snapshotDecoder) memoOp(op byte) bool {
	switch op {
	case 0x94: // MEMOIZE
		if len(d.stack) == 0 {
			return false
		}
		d.memo.add(d.stack[len(d.stack)-1])
	case 'q', 'r': // BINPUT, LONG_BINPUT
		k, ok := d.index(op == 'r')
		if !ok || len(d.stack) == 0 {
			return false
		}
		if k == d.memo.n {
			d.memo.add(nil)
		}
		if k > d.memo.n {
			return false // Python numbers its memo densely
		}
		d.memo.set(k, d.stack[len(d.stack)-1])
	default: // BINGET, LONG_BINGET
		k, ok := d.index(op == 'j')
		if !ok || k >= d.memo.n {
			return false
		}
		d.push(d.memo.get(k))
	}
	return true
}

// items returns where the items of an opcode start on the stack: the last
// n values, or all above the last mark where marked.
func (d *snapshotDecoder) items(n int, marked bool) (int, bool) {
	if marked {
		return d.popMark()
	}
	return len(d.stack) - n, true
}

// cut drops the stack from from on.
func (d *snapshotDecoder) cut(from int) {
	clear(d.stack[from:])
	d.stack = d.stack[:from]
}

// appendItems applies APPEND or APPENDS: the items go into the list below
// them, or to its converter.
func (d *snapshotDecoder) appendItems(op byte) bool {
	from, ok := d.items(1, op == 'e')
	if !ok || from < 1 {
		return false
	}
	l, ok := d.stack[from-1].(*types.List)
	if !ok {
		return false
	}
	for _, v := range d.stack[from:] {
		d.append(l, v)
	}
	if d.streams[l] != nil && len(d.stack) > from {
		d.sweep(d.stack[from])
	}
	d.cut(from)
	return true
}

// setItems applies SETITEM or SETITEMS: key and value pairs go into the
// dict below them.
func (d *snapshotDecoder) setItems(op byte) bool {
	from, ok := d.items(2, op == 'u')
	if !ok || from < 1 || (len(d.stack)-from)%2 != 0 {
		return false
	}
	m, ok := d.stack[from-1].(*types.Dict)
	if !ok {
		return false
	}
	for k := from; k < len(d.stack); k += 2 {
		m.Set(d.stack[k], d.stack[k+1])
	}
	d.cut(from)
	return true
}

// tuple applies TUPLE1, TUPLE2, TUPLE3 or TUPLE.
func (d *snapshotDecoder) tuple(op byte) bool {
	from, ok := d.items(int(op-0x84), op == 't')
	if !ok || from < 0 {
		return false
	}
	t := types.NewTupleFromSlice(append([]any(nil), d.stack[from:]...))
	d.stack = append(d.stack[:from], t)
	return true
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
		s = &pyStream{c: &pyConv{name: d.name, live: map[int64]pyLive{}, streamed: true, budget: d.budget}}
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
// It keeps its own stack: values built through the memo may nest deeper
// than scanPickle can tell.
func hollow(v any) {
	todo := []any{v}
	for len(todo) > 0 {
		v := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		switch v := v.(type) {
		case *types.Dict:
			old := *v
			*v = nil // first, so that a cycle ends
			for _, e := range old {
				todo = appendContainer(todo, e.Value)
			}
		case *types.List:
			old := *v
			*v = nil
			for _, e := range old {
				todo = appendContainer(todo, e)
			}
		}
	}
}

// appendContainer appends v to todo if it is a dict or a list.
func appendContainer(todo []any, v any) []any {
	switch v.(type) {
	case *types.Dict, *types.List:
		return append(todo, v)
	}
	return todo
}

// The converter may take pyStepsPerByte steps per byte of the pickle,
// plus pyStepsFree: reading a dict costs one step per key. Every value
// a pickle holds takes at least a byte, and the converter asks a dict
// for a few keys, so a snapshot whose values are its own stays far below;
// one whose lists and dicts are shared through the memo (a kilobyte that
// names one history in every block) is refused instead of taking time
// and memory quadratic in its size.
const (
	pyStepsPerByte = 8
	pyStepsFree    = 1 << 16
)

// pyBudget counts the converter's steps.
type pyBudget struct{ steps, limit int64 }

// spend counts reading a dict or list of n items, and reports whether the
// steps are within the limit (a nil budget has none).
func (b *pyBudget) spend(n int) bool {
	if b == nil {
		return true
	}
	b.steps += 1 + int64(n)
	return b.steps <= b.limit
}

func (b *pyBudget) fail(name, where string) error {
	return &InputError{File: name, Msg: fmt.Sprintf("%s: the snapshot names the same lists or dicts over and over through the pickle memo: reading it would take more than %d steps, the limit for a file of its size", where, b.limit)}
}

// maxPickleDepth is the deepest nesting of lists, dicts, tuples and
// objects that a pickle may have. Python's own pickler gives up at about
// this depth (its recursion limit), and a memory snapshot nests a few
// levels deep.
const maxPickleDepth = 1000

// scanPickle walks the opcodes of a pickle and checks that every argument
// fits in the data, so that a corrupt length can never make the decoder
// allocate gigabytes; that text arguments are the numbers they must be;
// that no integer is written past 64 bits (a LONG4, or text of more than
// 20 digits, whose conversion alone would cost time quadratic in its
// length); and that containers nest at most maxPickleDepth deep. It
// returns "" or what is wrong, in words.
//
// Depth is followed through the stack and the memo as the values are
// built, so that neither decoder is handed a pickle nested 10^7 deep. A
// container changed after it was put in another (through the memo) may
// end up deeper than the scan knows: the decoders themselves never
// recurse into values.
func scanPickle(data []byte) string {
	var sc pickleDepth
	i := 0
	for i < len(data) {
		at := i
		op := data[i]
		i++
		if op == '.' { // STOP
			return ""
		}
		n, msg := pickleArg(op, data[i:], at)
		if msg != "" {
			return msg
		}
		if n > len(data)-i {
			return badPickle("truncated at byte %d", at)
		}
		if !sc.step(op, data[i:i+n]) {
			return fmt.Sprintf("not a memory snapshot: containers nest deeper than %d levels at byte %d (a snapshot nests a few)", maxPickleDepth, at)
		}
		i += n
	}
	return badPickle("no STOP opcode at the end")
}

// badPickle words what is wrong with a pickle that is not valid.
func badPickle(format string, args ...any) string {
	return "not a valid pickle: " + fmt.Sprintf(format, args...)
}

// pickleArg returns how many bytes of rest, what follows opcode op at
// byte at, are its argument, or what is wrong with it. The length may be
// past the end of rest; the caller checks.
func pickleArg(op byte, rest []byte, at int) (n int, msg string) {
	switch op {
	case '(', '0', '1', '2', 'N', 'Q', 'R', 'a', 'b', 'd', '}', 'e', 'l', ']', 'o', 's', 't', ')', 'u',
		0x81, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x97, 0x98:
		return 0, ""
	case 'K', 'h', 'q', 0x80, 0x82:
		return 1, ""
	case 'M', 0x83:
		return 2, ""
	case 'J', 'j', 'r', 0x84:
		return 4, ""
	case 'G', 0x95: // BINFLOAT; FRAME, whose content is more opcodes
		if op == 0x95 && len(rest) >= 8 && binary.LittleEndian.Uint64(rest) > uint64(len(rest)-8) {
			return 0, badPickle("frame at byte %d is longer than the file", at)
		}
		return 8, ""
	case 'U', 'C', 0x8c, 0x8a:
		if len(rest) < 1 {
			return 0, badPickle("truncated at byte %d", at)
		}
		return 1 + int(rest[0]), ""
	case 'T', 'X', 'B', 0x8b:
		if len(rest) < 4 {
			return 0, badPickle("truncated at byte %d", at)
		}
		l := binary.LittleEndian.Uint32(rest)
		if int32(l) < 0 || uint64(l) > uint64(len(rest)-4) {
			return 0, badPickle("bad length at byte %d", at)
		}
		if op == 0x8b && l > 8 && !fits64(rest[4:4+int(l)]) {
			return 0, fmt.Sprintf("not a memory snapshot: byte %d holds an integer of %d bytes (LONG4), past the 64 bits of every number a snapshot holds", at, l)
		}
		return 4 + int(l), ""
	case 0x8d, 0x8e, 0x96:
		if len(rest) < 8 {
			return 0, badPickle("truncated at byte %d", at)
		}
		l := binary.LittleEndian.Uint64(rest)
		if l > uint64(len(rest)-8) {
			return 0, badPickle("bad length at byte %d", at)
		}
		return 8 + int(l), ""
	case 'F', 'I', 'L', 'P', 'S', 'V', 'g', 'p', 'c', 'i':
		lines := 1
		if op == 'c' || op == 'i' {
			lines = 2
		}
		for ; lines > 0; lines-- {
			k := bytes.IndexByte(rest[n:], '\n')
			if k < 0 {
				return 0, badPickle("unterminated argument at byte %d", at)
			}
			n += k + 1
		}
		return n, textArg(op, rest[:n-1], at)
	}
	return 0, badPickle("unknown opcode 0x%02x at byte %d", op, at)
}

// textArg checks the argument of a text opcode: INT and LONG a decimal
// integer of 64 bits at most, GET and PUT a memo index, FLOAT a number.
func textArg(op byte, arg []byte, at int) string {
	var what string
	switch op {
	case 'I':
		if string(arg) == "00" || string(arg) == "01" { // False, True
			return ""
		}
		what = "INT"
	case 'L':
		arg = bytes.TrimSuffix(arg, []byte("L"))
		what = "LONG"
	case 'g', 'p':
		what = "GET"
		if op == 'p' {
			what = "PUT"
		}
		if len(arg) == 0 || len(arg) > 10 || bytes.IndexFunc(arg, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return badPickle("%s at byte %d: want a memo index (a decimal number), got %s", what, at, Echo(arg))
		}
		return ""
	case 'F':
		if _, err := strconv.ParseFloat(string(bytes.TrimSpace(arg)), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return badPickle("FLOAT at byte %d: want a decimal number, got %s", at, Echo(arg))
		}
		return ""
	default:
		return ""
	}
	digits := bytes.TrimLeft(arg, "+-")
	if len(digits) == 0 || len(arg)-len(digits) > 1 || bytes.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return badPickle("%s at byte %d: want a decimal integer, got %s", what, at, Echo(arg))
	}
	// Past 19 significant digits no integer fits in 64 bits: refused
	// before any conversion.
	sig := bytes.TrimLeft(digits, "0")
	if _, err := strconv.ParseInt(string(arg[:len(arg)-len(digits)])+string(sig[:min(len(sig), 20)]), 10, 64); len(sig) > 19 || err != nil && len(sig) > 0 {
		return fmt.Sprintf("not a memory snapshot: byte %d holds an integer of %d digits (%s), past the 64 bits of every number a snapshot holds", at, len(digits), what)
	}
	return ""
}

// fits64 reports whether a little-endian two's complement integer of more
// than 8 bytes has a value of 64 bits: its upper bytes only extend the
// sign.
func fits64(b []byte) bool {
	ext := byte(0)
	if b[7]&0x80 != 0 {
		ext = 0xff
	}
	for _, c := range b[8:] {
		if c != ext {
			return false
		}
	}
	return true
}

// pickleDepth follows how deep the values on a pickle's stack and in its
// memo nest: 0 for a scalar, 1 for an empty container, one more than its
// deepest item for a container.
type pickleDepth struct {
	stack []uint16
	marks []int
	memo  []uint16
	big   map[uint64]uint16 // memo indices far past the end of memo
}

// step applies op, with its argument arg, to the depths, and reports
// whether they are within maxPickleDepth. A stack that runs short is left
// to the decoders, which say so.
func (p *pickleDepth) step(op byte, arg []byte) bool {
	top := func() uint16 {
		if len(p.stack) == 0 {
			return 0
		}
		return p.stack[len(p.stack)-1]
	}
	pop := func(k int) uint16 { // pops k values, returns their deepest
		var d uint16
		for ; k > 0 && len(p.stack) > 0; k-- {
			d = max(d, p.stack[len(p.stack)-1])
			p.stack = p.stack[:len(p.stack)-1]
		}
		return d
	}
	popMark := func() uint16 {
		if len(p.marks) == 0 {
			return 0
		}
		m := min(p.marks[len(p.marks)-1], len(p.stack))
		p.marks = p.marks[:len(p.marks)-1]
		return pop(len(p.stack) - m)
	}
	// into puts values as deep as d into the container on top.
	into := func(d uint16) {
		if len(p.stack) > 0 {
			p.stack[len(p.stack)-1] = max(p.stack[len(p.stack)-1], d+1)
		}
	}
	push := func(d uint16) { p.stack = append(p.stack, d) }
	switch op {
	case '(':
		p.marks = append(p.marks, len(p.stack))
	case ']', '}', ')', 0x8f:
		push(1)
	case 'N', 0x88, 0x89, 'I', 'J', 'K', 'M', 'L', 0x8a, 0x8b, 'F', 'G', 'S', 'T', 'U', 'X', 'V',
		0x8c, 0x8d, 'B', 'C', 0x8e, 0x96, 'P', 'c', 0x82, 0x83, 0x84, 0x97:
		push(0)
	case 'g', 'h', 'j':
		push(p.getMemo(memoArg(op, arg)))
	case 'p', 'q', 'r':
		p.setMemo(memoArg(op, arg), top())
	case 0x94: // MEMOIZE
		p.setMemo(uint64(len(p.memo)), top())
	case '0':
		pop(1)
	case '1':
		popMark()
	case '2':
		push(top())
	case 'a', 'b': // APPEND; BUILD sets the state of the object below
		into(pop(1))
	case 's':
		into(pop(2))
	case 'e', 'u', 0x90: // APPENDS, SETITEMS, ADDITEMS
		into(popMark())
	case 't', 'l', 'd', 0x91, 'o', 'i':
		d := popMark()
		push(d + 1)
	case 0x85, 0x86, 0x87:
		d := pop(int(op - 0x84))
		push(d + 1)
	case 'R', 0x81: // REDUCE, NEWOBJ: a callable and its arguments
		d := pop(2)
		push(d + 1)
	case 0x92: // NEWOBJ_EX
		d := pop(3)
		push(d + 1)
	case 0x93: // STACK_GLOBAL
		pop(2)
		push(0)
	}
	return len(p.stack) == 0 || top() <= maxPickleDepth
}

// memoArg reads the memo index of a GET or PUT.
func memoArg(op byte, arg []byte) uint64 {
	switch op {
	case 'h', 'q':
		return uint64(arg[0])
	case 'j', 'r':
		return uint64(binary.LittleEndian.Uint32(arg))
	}
	n, _ := strconv.ParseUint(string(bytes.TrimSuffix(arg, []byte("\n"))), 10, 64)
	return n
}

func (p *pickleDepth) getMemo(k uint64) uint16 {
	if k < uint64(len(p.memo)) {
		return p.memo[k]
	}
	return p.big[k]
}

func (p *pickleDepth) setMemo(k uint64, d uint16) {
	switch {
	case k < uint64(len(p.memo)):
		p.memo[k] = d
	case k < uint64(len(p.memo))+memoChunk:
		p.memo = append(p.memo, make([]uint16, k+1-uint64(len(p.memo)))...)
		p.memo[k] = d
	default:
		if p.big == nil {
			p.big = map[uint64]uint16{}
		}
		p.big[k] = d
	}
}
