package workloads

import (
	"io"
	"strings"
)

// WriteFormats lists the formats Write can produce.
var WriteFormats = []string{FormatTFLite, FormatMiniMalloc, FormatTrace, FormatJSON}

// Write exports w in format. The trace format writes the recorded trace
// when there is one (keeping its views) and Problem.ToTrace otherwise; the
// other formats write the problem.
func Write(out io.Writer, w *Workload, format string) error {
	switch format {
	case FormatTFLite:
		return WriteTFLite(out, w.Problem)
	case FormatMiniMalloc:
		return WriteMiniMalloc(out, w.Problem)
	case FormatJSON:
		return WriteJSON(out, w.Problem)
	case FormatTrace:
		t := w.Trace
		if t == nil {
			var err error
			if t, err = w.Problem.ToTrace(); err != nil {
				return err
			}
		}
		return WriteTrace(out, t)
	}
	return Usagef("unknown format %q (valid: %s)", format, strings.Join(WriteFormats, ", "))
}
