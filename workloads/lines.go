package workloads

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// MaxTask is the largest task index the readers accept. It leaves room for
// Last+1 (half-open ends, sweep edges) without overflowing int.
const MaxTask = 1 << 62

// lineScanner walks the lines of a text file held in memory. It skips blank
// lines and lines starting with '#', and trims spaces and carriage returns.
// Working on one []byte keeps reading a million rows allocation-free.
type lineScanner struct {
	data []byte
	pos  int
	// line is the 1-based number of the line last returned.
	line int
	// fields is reused by split.
	fields [][]byte
}

func newLineScanner(data []byte) *lineScanner {
	data = bytes.TrimPrefix(data, []byte(BOM))
	return &lineScanner{data: data}
}

// next returns the next content line, or false at the end.
func (s *lineScanner) next() ([]byte, bool) {
	for s.pos < len(s.data) {
		rest := s.data[s.pos:]
		end := bytes.IndexByte(rest, '\n')
		var l []byte
		if end < 0 {
			l = rest
			s.pos = len(s.data)
		} else {
			l = rest[:end]
			s.pos += end + 1
		}
		s.line++
		l = trimSpace(l)
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		return l, true
	}
	return nil, false
}

// split cuts a line at commas and trims every field. The result is valid
// until the next call.
func (s *lineScanner) split(l []byte) [][]byte {
	f := s.fields[:0]
	for {
		i := bytes.IndexByte(l, ',')
		if i < 0 {
			f = append(f, trimSpace(l))
			break
		}
		f = append(f, trimSpace(l[:i]))
		l = l[i+1:]
	}
	s.fields = f
	return f
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// parseInt parses a decimal integer with an optional sign. It reports
// whether b is a number at all and, separately, overflow of int64.
func parseInt(b []byte) (v int64, isNum, overflow bool) {
	if len(b) == 0 {
		return 0, false, false
	}
	neg := false
	switch b[0] {
	case '-':
		neg = true
		b = b[1:]
	case '+':
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		if u > (math.MaxUint64-9)/10 {
			overflow = true
			continue
		}
		u = u*10 + uint64(c-'0')
	}
	if overflow {
		return 0, true, true
	}
	if neg {
		if u > 1<<63 {
			return 0, true, true
		}
		return -int64(u), true, false
	}
	if u > math.MaxInt64 {
		return 0, true, true
	}
	return int64(u), true, false
}

// intField parses column col as an integer in [0, max]. The messages are
// shared by every reader so that users see one wording.
func intField(col string, b []byte, max int64) (int64, string) {
	v, isNum, overflow := parseInt(b)
	switch {
	case !isNum:
		return 0, fmt.Sprintf("%s: want an integer, got %s", col, Echo(b))
	case overflow && len(b) > 0 && b[0] == '-':
		return 0, fmt.Sprintf("%s: %s is negative", col, Clip(b))
	case overflow || v > max:
		return 0, fmt.Sprintf("%s: %s overflows (max %d)", col, Clip(b), max)
	case v < 0:
		return 0, fmt.Sprintf("%s: %s is negative", col, Clip(b))
	}
	return v, ""
}

// readAll reads r whole, up to DefaultMaxInput bytes, turning a read
// failure into an InputError.
func readAll(r io.Reader, name string) ([]byte, error) {
	return readLimited(r, name, DefaultMaxInput)
}

// readParsed reads r whole, as readAll does, and parses what it read with
// parse.
func readParsed[T any](r io.Reader, name string, parse func(data []byte, name string) (T, error)) (T, error) {
	data, err := readAll(r, name)
	if err != nil {
		var none T
		return none, err
	}
	return parse(data, name)
}
