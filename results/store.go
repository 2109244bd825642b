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
	"slices"
	"strings"

	"membench/workloads"
)

// Store appends records to a results.jsonl file, one JSON object a line,
// flushed to disk (fsync) as each record is written, so a sweep killed at
// any moment loses at most the line being written.
//
// A cell may have several records: a rerun (--resume --retry-failed, or
// the retry of a worker killed from outside) appends a new one, and the
// last record of a cell supersedes the earlier ones wherever records are
// read (ReadFile and Open return only the latest).
type Store struct {
	f    *os.File
	path string
	// Dropped lists the garbled lines Open removed from the file.
	Dropped []Dropped
}

// Dropped is a line of a results.jsonl that holds no record: garbled, as
// two writers interleaving leave it, or edited by hand; or a record that
// the sweep reading it refused (one of another config: see OpenChecked).
type Dropped struct {
	// Line is the 1-based line number in the file as it was read.
	Line int
	// Reason says what is wrong with it.
	Reason string
	// Refused is set for a well-formed record that the check refused.
	Refused bool
	text    []byte
}

func (d Dropped) String() string { return fmt.Sprintf("line %d: %s", d.Line, d.Reason) }

// GarbledSuffix names the file, beside results.jsonl, that keeps the text
// of the lines Open dropped, for inspection.
const GarbledSuffix = ".garbled"

// ReadFile reads the records of a results.jsonl file, the latest record
// of each cell (see Latest). A torn last line (no trailing newline, as
// left by a kill mid-write) is dropped; its byte offset is returned as
// good, the length of the intact prefix. Any other malformed line is an
// input error naming the file and line.
func ReadFile(path string) (recs []Record, good int64, err error) {
	return ReadFileChecked(path, nil)
}

// ReadFileChecked is ReadFile that also refuses, with an error naming the
// file and line, a record that check refuses.
func ReadFileChecked(path string, check func(*Record) error) (recs []Record, good int64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	recs, good, bad := parse(data, check)
	switch {
	case len(bad) > 0 && bad[0].Refused:
		return nil, 0, &workloads.InputError{File: path, Line: bad[0].Line, Msg: bad[0].Reason + " (membench run --resume drops such records)"}
	case len(bad) > 0:
		return nil, 0, &workloads.InputError{File: path, Line: bad[0].Line, Msg: "not a result record: " + bad[0].Reason + " (membench run --resume drops such lines)"}
	}
	return Latest(recs), good, nil
}

// parse reads the lines of data up to a torn last line, whose start it
// returns as good. Lines that hold no valid record, or one that check
// (if not nil) refuses, are returned as bad.
func parse(data []byte, check func(*Record) error) (recs []Record, good int64, bad []Dropped) {
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
			r, err := decodeRecord(text)
			refused := false
			if err == nil && check != nil {
				err = check(&r)
				refused = err != nil
			}
			if err != nil {
				bad = append(bad, Dropped{Line: line, Reason: err.Error(), Refused: refused, text: text})
			} else {
				recs = append(recs, r)
			}
		}
		good += int64(i + 1)
		data = data[i+1:]
	}
	return recs, good, bad
}

var statuses = []string{StatusOK, StatusInvalid, StatusError, StatusTimeout, StatusOOM, StatusUnsupported}

// decodeRecord decodes one line strictly: known fields only, one object
// and nothing after it (interleaved writers glue records together), and
// the fields that make a record's key.
func decodeRecord(text []byte) (Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, err
	}
	if rest := bytes.TrimSpace(text[dec.InputOffset():]); len(rest) > 0 {
		return r, fmt.Errorf("text after the record: %.20q", rest)
	}
	switch {
	case r.Workload == "" || r.Subject == "":
		return r, fmt.Errorf("no workload or subject")
	case !slices.Contains(statuses, r.Status):
		return r, fmt.Errorf("status %.20q: want one of %s", r.Status, strings.Join(statuses, ", "))
	}
	return r, nil
}

// Latest keeps the last record of each cell, at the place of the cell's
// first record, so that a rerun cell keeps its place in the sweep's order.
func Latest(recs []Record) []Record {
	at := make(map[Key]int, len(recs))
	out := make([]Record, 0, len(recs))
	for _, r := range recs {
		if i, ok := at[r.Key()]; ok {
			out[i] = r
			continue
		}
		at[r.Key()] = len(out)
		out = append(out, r)
	}
	return out
}

// Open opens (creating if needed) the results.jsonl at path for appending.
// It returns the records already there (the latest of each cell); a torn
// last line is cut off the file so that appends start on a clean line.
// Garbled lines elsewhere are dropped: the file is rewritten without them
// (their text is kept in path+GarbledSuffix) and they are listed in the
// store's Dropped, so that a sweep resumes and reruns the cells they held.
func Open(path string) (*Store, []Record, error) { return OpenChecked(path, nil) }

// OpenChecked is Open that also drops, as it drops garbled lines, the
// records that check refuses: a sweep resuming its folder refuses those
// of cells its config does not have, so that another config's records
// never enter its reports.
func OpenChecked(path string, check func(*Record) error) (*Store, []Record, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	recs, good, bad := parse(data, check)
	if len(bad) > 0 {
		kept := keptLines(data[:good], bad)
		if err := dropLines(path, kept, bad); err != nil {
			return nil, nil, err
		}
		good = int64(len(kept))
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
	return &Store{f: f, path: path, Dropped: bad}, Latest(recs), nil
}

// keptLines returns the lines of data less the bad ones.
func keptLines(data []byte, bad []Dropped) []byte {
	var out []byte
	line, b := 0, 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		if b < len(bad) && bad[b].Line == line {
			b++
		} else {
			out = append(out, data[:i+1]...)
		}
		data = data[i+1:]
	}
	return out
}

// dropLines rewrites path as kept, after appending the bad lines to
// path+GarbledSuffix.
func dropLines(path string, kept []byte, bad []Dropped) error {
	g, err := os.OpenFile(path+GarbledSuffix, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	for _, d := range bad {
		fmt.Fprintf(g, "%s\n", d.text)
	}
	if err := g.Close(); err != nil {
		return err
	}
	return WriteFileAtomic(path, kept)
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
