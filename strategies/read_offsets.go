package strategies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"membench/workloads"
)

// ReadOffsets reads an external solution for bufs: `id,offset` lines, or
// a CSV whose header names `id` (or `buffer`) and `offset` columns, with
// every buffer's ID given once. Blank lines and lines starting with # are
// skipped, as is a UTF-8 byte-order mark. It returns the offsets in bufs'
// order. Errors are *workloads.InputError naming the source and line.
func ReadOffsets(r io.Reader, name string, bufs []workloads.Buffer) ([]int64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &workloads.InputError{File: name, Msg: "read: " + err.Error()}
	}
	return parseOffsets(data, name, &workloads.Problem{Buffers: bufs})
}

// parseOffsets reads id,offset lines for p's buffers. Where p has labels,
// an id is matched against them, as the input file wrote them; otherwise
// against the buffers' integer IDs.
func parseOffsets(data []byte, name string, p *workloads.Problem) ([]int64, error) {
	bufs := p.Buffers
	n := len(bufs)
	labelled := len(p.Labels) == n
	var byID map[int]int
	var byLabel map[string]int
	if labelled {
		byLabel = make(map[string]int, n)
		for i, l := range p.Labels {
			byLabel[l] = i
		}
	} else {
		byID = make(map[int]int, n)
		for i, b := range bufs {
			byID[b.ID] = i
		}
	}
	if len(byID)+len(byLabel) != n {
		return nil, &workloads.InputError{File: name, Msg: "the workload's buffer ids are not unique, so offsets cannot be matched by id"}
	}
	// show writes an id for a message: integers as they are, labels
	// quoted.
	show := func(id string) string {
		if labelled {
			return workloads.Echo(id)
		}
		return id
	}
	offsets := make([]int64, n)
	seen := make([]int, n) // the line that gave buffer i, 0 for none
	idCol, offCol, cols := 0, 1, 2
	line := 0
	first := true
	fail := func(format string, args ...any) error {
		return &workloads.InputError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	rest := bytes.TrimPrefix(data, []byte(workloads.BOM))
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte{'\n'})
		line++
		text := strings.TrimSpace(string(l))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, ",")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if first {
			first = false
			// A first line is a header unless it reads as a data line:
			// a known label and an offset, or an integer id.
			isData := false
			if labelled {
				_, known := byLabel[fields[0]]
				_, offErr := strconv.ParseInt(fields[len(fields)-1], 10, 64)
				isData = known && len(fields) == 2 && offErr == nil
			} else {
				_, err := strconv.ParseInt(fields[0], 10, 64)
				isData = err == nil
			}
			if !isData {
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
					return nil, fail("header %s: want id,offset lines or a header naming columns id and offset", workloads.Echo(text))
				}
				cols = len(fields)
				continue
			}
		}
		if len(fields) != cols {
			return nil, fail("want %d columns, got %d", cols, len(fields))
		}
		key := fields[idCol]
		var i int
		var known bool
		if labelled {
			i, known = byLabel[key]
		} else {
			v, err := strconv.Atoi(key)
			if err != nil {
				return nil, fail("id %s: want an integer", workloads.Echo(key))
			}
			key = strconv.Itoa(v)
			i, known = byID[v]
		}
		if !known {
			return nil, fail("id %s: not a buffer id of the workload", show(key))
		}
		off, err := strconv.ParseInt(fields[offCol], 10, 64)
		if err != nil || off < 0 {
			return nil, fail("offset %s: want a non-negative integer", workloads.Echo(fields[offCol]))
		}
		if seen[i] > 0 {
			return nil, fail("id %s repeats line %d", show(key), seen[i])
		}
		seen[i] = line
		offsets[i] = off
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
					Msg: fmt.Sprintf("no offset for buffer id %s (%d of %d buffers missing; want one line per buffer)", show(p.IDText(i)), missing, n)}
			}
		}
	}
	return offsets, nil
}

// planJSON is what ReadPlan reads of `plan --format json` output; other
// fields are ignored.
type planJSON struct {
	Offsets     []int64 `json:"offsets"`
	Footprint   *int64  `json:"footprint"`
	ObjectIDs   []int   `json:"object_ids"`
	ObjectSizes []int64 `json:"object_sizes"`
}

// ReadPlan reads an external plan for p from data: plan JSON as `plan
// --format json` prints it (offsets in buffer order, optionally the
// footprint, object ids and sizes, all left for Validate to check) or
// id,offset CSV as `plan --format csv` prints it, ids matched against
// p.Labels where the problem has them and its buffer IDs otherwise (the
// footprint is then computed). Errors are *workloads.InputError naming
// the file and line.
func ReadPlan(name string, data []byte, p *workloads.Problem) (*Plan, error) {
	bufs := p.Buffers
	body := bytes.TrimPrefix(data, []byte(workloads.BOM))
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		offsets, err := parseOffsets(data, name, p)
		if err != nil {
			return nil, err
		}
		return &Plan{Offsets: offsets, Footprint: Footprint(bufs, offsets)}, nil
	}
	var in planJSON
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, workloads.JSONError(name, body, err)
	}
	if in.Offsets == nil {
		return nil, &workloads.InputError{File: name, Msg: `no "offsets" array: want plan JSON as 'membench plan --format json' prints`}
	}
	if len(in.Offsets) != len(bufs) {
		return nil, &workloads.InputError{File: name, Msg: fmt.Sprintf("%d offsets for %d buffers", len(in.Offsets), len(bufs))}
	}
	plan := &Plan{Offsets: in.Offsets, ObjectIDs: in.ObjectIDs, ObjectSizes: in.ObjectSizes, Footprint: Footprint(bufs, in.Offsets)}
	if in.Footprint != nil {
		plan.Footprint = *in.Footprint
	}
	return plan, nil
}
