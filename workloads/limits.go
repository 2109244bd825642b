package workloads

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
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
// is a member that expands past the limit. It streams twice: the first
// pass counts what the members expand to through a small buffer, so a
// decompression bomb is refused having cost no memory beyond that buffer;
// the second decompresses into one slice of exactly that size, so a valid
// file costs its own size once (growing a slice by doubling would need
// up to twice that, which a process with a bounded address space may not
// have).
func gunzip(data []byte, name string, limit int64) ([]byte, error) {
	var chunk [64 << 10]byte
	var total int64
	err := inflateMembers(data, name, func(zr *gzip.Reader) error {
		for {
			// Never past limit+1: that one byte too many refuses it.
			n, err := zr.Read(chunk[:min(int64(len(chunk)), limit+1-total)])
			if total += int64(n); total > limit {
				readStats.bytes.Add(total)
				return errExpandsPastLimit
			}
			if err != nil {
				return err
			}
		}
	})
	if errors.Is(err, errExpandsPastLimit) {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("gzip: expands to more than the limit of %s (%s)", sizeWords(limit), raiseLimit)}
	}
	if err != nil {
		return nil, err
	}
	out := make([]byte, total)
	at := 0
	err = inflateMembers(data, name, func(zr *gzip.Reader) error {
		for {
			if at == len(out) {
				// Nothing may follow the counted end (the data is the
				// same in both passes; checked all the same).
				if m, err := zr.Read(chunk[:1]); m > 0 || err == nil {
					return errExpandsPastLimit
				} else {
					return err
				}
			}
			n, err := zr.Read(out[at:])
			at += n
			if err != nil {
				return err
			}
		}
	})
	if err != nil {
		return nil, &InputError{File: name, Msg: "gzip: the data changed between reads"}
	}
	readStats.bytes.Add(int64(len(out)))
	return out, nil
}

// errExpandsPastLimit stops a gzip pass that went past its limit.
var errExpandsPastLimit = errors.New("expands past the limit")

// inflateMembers runs read over each gzip member of data in turn; read
// returns io.EOF at the member's end. Anything after the last member
// that does not start another is an error, named in words.
func inflateMembers(data []byte, name string, read func(*gzip.Reader) error) error {
	fail := func(format string, args ...any) error {
		return &InputError{File: name, Msg: "gzip: " + fmt.Sprintf(format, args...)}
	}
	br := bytes.NewReader(data)
	zr, err := gzip.NewReader(br)
	for member := 0; ; member++ {
		if err != nil {
			return fail("%s", gzipWords(err, member))
		}
		zr.Multistream(false)
		if err := read(zr); err != io.EOF {
			if errors.Is(err, errExpandsPastLimit) {
				return err
			}
			return fail("%s", gzipWords(err, member))
		}
		at := len(data) - br.Len()
		if at == len(data) {
			return nil
		}
		if br.Len() < 2 || data[at] != 0x1f || data[at+1] != 0x8b {
			return fail("trailing data after the compressed stream, at byte %d of %d", at, len(data))
		}
		err = zr.Reset(br)
	}
}

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
