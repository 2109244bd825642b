package workloads

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync/atomic"
)

// readStats counts what the readers did, so that tests bound the work a
// hostile input costs by what was read and decoded rather than by time.
var readStats struct {
	bytes   atomic.Int64 // bytes handed to a format's reader, decompressed
	entries atomic.Int64 // values, tokens or table entries decoded
}

// raiseLimit is how an error over the input limit says to raise it.
const raiseLimit = "raise the limit with --max-input SIZE or the file option ?max-input=SIZE"

// sizeWords writes n bytes as "4 GiB" where that is exact, else as
// "1000 bytes".
func sizeWords(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// readLimited reads r whole, or fails once it holds more than limit bytes.
func readLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if st.Size() > limit {
				return nil, &InputError{File: name, Msg: fmt.Sprintf("the file holds %d bytes, more than the limit of %s (%s)", st.Size(), sizeWords(limit), raiseLimit)}
			}
			buf.Grow(int(st.Size()) + bytes.MinRead)
		}
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, &InputError{File: name, Msg: "read: " + err.Error()}
	}
	if int64(buf.Len()) > limit {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("the input holds more than the limit of %s (%s)", sizeWords(limit), raiseLimit)}
	}
	return buf.Bytes(), nil
}

// gunzip decompresses the gzip members of data, to at most limit bytes.
// Data after the last member that does not start another is an error, as
// is a member that expands past the limit: reading stops there, so a
// decompression bomb costs about limit bytes of memory, not what it
// expands to.
func gunzip(data []byte, name string, limit int64) ([]byte, error) {
	fail := func(format string, args ...any) error {
		return &InputError{File: name, Msg: "gzip: " + fmt.Sprintf(format, args...)}
	}
	// The trailer's ISIZE is the size of the last member modulo 2^32: the
	// whole size for a file of one member under 4 GiB. Deflate expands at
	// most 1032 times, which bounds a corrupt one.
	var hint int64
	if len(data) >= 4 {
		hint = int64(binary.LittleEndian.Uint32(data[len(data)-4:]))
	}
	out := make([]byte, 0, min(hint, limit, 1032*int64(len(data)))+1)
	defer func() { readStats.bytes.Add(int64(len(out))) }()
	br := bytes.NewReader(data)
	zr, err := gzip.NewReader(br)
	for member := 0; ; member++ {
		if err != nil {
			return nil, fail("%s", gzipWords(err, member))
		}
		zr.Multistream(false)
		for err == nil {
			if len(out) == cap(out) {
				if int64(len(out)) > limit {
					return nil, fail("expands to more than the limit of %s (%s)", sizeWords(limit), raiseLimit)
				}
				out = slices.Grow(out, int(min(int64(cap(out)), limit+1-int64(len(out))))+1)
			}
			var n int
			n, err = zr.Read(out[len(out):cap(out)])
			out = out[:len(out)+n]
		}
		if err != io.EOF {
			return nil, fail("%s", gzipWords(err, member))
		}
		if int64(len(out)) > limit {
			return nil, fail("expands to more than the limit of %s (%s)", sizeWords(limit), raiseLimit)
		}
		at := len(data) - br.Len()
		if at == len(data) {
			return out, nil
		}
		if br.Len() < 2 || data[at] != 0x1f || data[at+1] != 0x8b {
			return nil, fail("trailing data after the compressed stream, at byte %d of %d", at, len(data))
		}
		err = zr.Reset(br)
	}
}

// gzipWords says what is wrong with a gzip stream in words.
func gzipWords(err error, member int) string {
	var ce flate.CorruptInputError
	var msg string
	switch {
	case errors.Is(err, gzip.ErrHeader):
		msg = "invalid header"
	case errors.Is(err, gzip.ErrChecksum):
		msg = "checksum mismatch: the decompressed data is corrupt"
	case errors.As(err, &ce):
		msg = fmt.Sprintf("corrupt compressed data at byte %d of the deflate stream", int64(ce))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		msg = "the file ends inside the compressed stream (truncated)"
	default:
		msg = err.Error()
	}
	if member > 0 {
		msg = fmt.Sprintf("member %d: %s", member+1, msg)
	}
	return msg
}
