package strategies

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"membench/workloads"
)

// ReadOffsets reads an external solution for bufs: `id,offset` lines, or
// a CSV whose header names `id` (or `buffer`) and `offset` columns, with
// every buffer's ID given once. Blank lines and lines starting with # are
// skipped. It returns the offsets in bufs' order. Errors are
// *workloads.InputError naming the source and line.
func ReadOffsets(r io.Reader, name string, bufs []workloads.Buffer) ([]int64, error) {
	n := len(bufs)
	index := make(map[int]int, n)
	for i, b := range bufs {
		index[b.ID] = i
	}
	if len(index) != n {
		return nil, &workloads.InputError{File: name, Msg: "the workload's buffer ids are not unique, so offsets cannot be matched by id"}
	}
	offsets := make([]int64, n)
	seen := make([]int, n) // the line that gave buffer i, 0 for none
	idCol, offCol, cols := 0, 1, 2
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	first := true
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, ",")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if first {
			first = false
			if _, err := strconv.ParseInt(fields[0], 10, 64); err != nil {
				idCol, offCol = -1, -1
				for i, f := range fields {
					switch strings.ToLower(f) {
					case "id", "buffer":
						idCol = i
					case "offset":
						offCol = i
					}
				}
				if idCol < 0 || offCol < 0 {
					return nil, &workloads.InputError{File: name, Line: line,
						Msg: fmt.Sprintf("header %q: want id,offset lines or a header naming columns id and offset", text)}
				}
				cols = len(fields)
				continue
			}
		}
		if len(fields) != cols {
			return nil, &workloads.InputError{File: name, Line: line, Msg: fmt.Sprintf("want %d columns, got %d", cols, len(fields))}
		}
		id, err := strconv.Atoi(fields[idCol])
		if err != nil {
			return nil, &workloads.InputError{File: name, Line: line, Msg: fmt.Sprintf("id %q: want an integer", fields[idCol])}
		}
		i, known := index[id]
		if !known {
			return nil, &workloads.InputError{File: name, Line: line, Msg: fmt.Sprintf("id %d: not a buffer id of the workload", id)}
		}
		off, err := strconv.ParseInt(fields[offCol], 10, 64)
		if err != nil || off < 0 {
			return nil, &workloads.InputError{File: name, Line: line, Msg: fmt.Sprintf("offset %q: want a non-negative integer", fields[offCol])}
		}
		if seen[i] > 0 {
			return nil, &workloads.InputError{File: name, Line: line, Msg: fmt.Sprintf("id %d repeats line %d", id, seen[i])}
		}
		seen[i] = line
		offsets[i] = off
	}
	if err := sc.Err(); err != nil {
		return nil, &workloads.InputError{File: name, Line: line + 1, Msg: err.Error()}
	}
	missing := 0
	for _, l := range seen {
		if l == 0 {
			missing++
		}
	}
	if missing > 0 {
		for i, l := range seen {
			if l == 0 {
				return nil, &workloads.InputError{File: name,
					Msg: fmt.Sprintf("no offset for buffer id %d (%d of %d buffers missing; want one line per buffer)", bufs[i].ID, missing, n)}
			}
		}
	}
	return offsets, nil
}
