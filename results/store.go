package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Store appends records to a results.jsonl file, one JSON object a line,
// flushed to disk (fsync) as each record is written, so a sweep killed at
// any moment loses at most the line being written.
type Store struct {
	f    *os.File
	path string
}

// ReadFile reads the records of a results.jsonl file. A torn last line (no
// trailing newline, as left by a kill mid-write) is dropped; its byte
// offset is returned as good, the length of the intact prefix. Any other
// malformed line is an error naming the file and line.
func ReadFile(path string) (recs []Record, good int64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	return parse(path, data)
}

func parse(path string, data []byte) ([]Record, int64, error) {
	var recs []Record
	var off int64
	line := 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			// Torn last line: the writer died before the newline.
			break
		}
		text := data[:i]
		if len(bytes.TrimSpace(text)) > 0 {
			var r Record
			dec := json.NewDecoder(bytes.NewReader(text))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r); err != nil {
				return nil, 0, fmt.Errorf("%s:%d: not a result record: %v", path, line, err)
			}
			recs = append(recs, r)
		}
		off += int64(i + 1)
		data = data[i+1:]
	}
	return recs, off, nil
}

// Open opens (creating if needed) the results.jsonl at path for appending.
// It returns the records already there; a torn last line is cut off the
// file so that appends start on a clean line.
func Open(path string) (*Store, []Record, error) {
	recs, good, err := ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	return &Store{f: f, path: path}, recs, nil
}

// Append writes r as one line and syncs it to disk.
func (s *Store) Append(r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	return s.f.Sync()
}

// Close closes the file.
func (s *Store) Close() error { return s.f.Close() }

// WriteFile writes recs to path atomically (a temporary file renamed into
// place), for merges and rewrites.
func WriteFile(path string, recs []Record) error {
	return WriteAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		for i := range recs {
			if err := enc.Encode(&recs[i]); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// WriteAtomic writes a file through a temporary file in the same folder
// and renames it into place, so readers never see a partial file and a
// failure or an interrupt leaves any old file intact.
func WriteAtomic(path string, fill func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := fill(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	// CreateTemp makes the file private; results are for everyone.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteFileAtomic writes data to path through a temporary file and a rename.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
