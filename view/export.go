package view

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"membench/workloads"
)

// MaxExportEvents is the most buffers, or trace events, a static page
// carries: it holds them all and draws them without the server.
const MaxExportEvents = 100_000

// ErrTooLarge is Export's refusal of a workload larger than
// MaxExportEvents; test with errors.Is.
var ErrTooLarge = errors.New("too large for a static page")

// Export writes one self-contained HTML page showing entries: the page,
// its script and style inlined, and every buffer and block as data. It
// refuses an entry larger than MaxExportEvents.
func Export(w io.Writer, entries []*Entry) error {
	type planData struct {
		Rects   []Rect  `json:"rects"`
		Profile []int64 `json:"profile"`
	}
	type replayData struct {
		InUse     []int64 `json:"in_use"`
		Allocated []int64 `json:"allocated"`
		Reserved  []int64 `json:"reserved"`
		Recorded  []int64 `json:"recorded,omitempty"`
		OOMs      []int   `json:"ooms"`
		Blocks    []Block `json:"blocks"`
		// The segment events, and the segments held at the start.
		Segments         []workloads.SegmentEvent `json:"segments,omitempty"`
		RecordedSegments []workloads.SegmentEvent `json:"recorded_segments,omitempty"`
		RecSegStart      []int64                  `json:"rec_seg_start,omitempty"`
	}
	type entryData struct {
		Plans   []planData   `json:"plans"`
		Replays []replayData `json:"replays"`
		Stacks  []string     `json:"stacks,omitempty"`
		StackOf []int32      `json:"stack_of,omitempty"`
	}
	data := struct {
		Index   Index       `json:"index"`
		Entries []entryData `json:"entries"`
	}{Index: Index{Workloads: []EntryInfo{}}}
	for _, e := range entries {
		if e.Problem != nil && e.Problem.Len() > MaxExportEvents {
			return fmt.Errorf("%w: %s has %d buffers; a static page holds at most %d (use membench view without --html)", ErrTooLarge, e.Spec, e.Problem.Len(), MaxExportEvents)
		}
		if e.Trace != nil && len(e.Trace.Events) > MaxExportEvents && len(e.Replays) > 0 {
			return fmt.Errorf("%w: %s has %d events; a static page holds at most %d (use membench view without --html)", ErrTooLarge, e.Spec, len(e.Trace.Events), MaxExportEvents)
		}
		data.Index.Workloads = append(data.Index.Workloads, e.info())
		var ed entryData
		if e.Trace != nil && len(e.Replays) > 0 {
			ed.Stacks, ed.StackOf = e.Trace.Stacks, e.Trace.StackOf
		}
		for _, l := range e.Plans {
			all := Viewport{T0: 0, T1: int64(max(l.Tasks, 1)), A0: 0, A1: max(l.top, 1), W: 1 << 20, H: 1 << 20}
			pd := planData{Rects: l.rects(all), Profile: l.Profile.raw}
			ed.Plans = append(ed.Plans, pd)
		}
		for _, r := range e.Replays {
			rd := replayData{InUse: r.InUse.raw, Allocated: r.Allocated.raw, Reserved: r.Reserved.raw, OOMs: r.OOMs, Blocks: []Block{}}
			if r.Recorded != nil {
				rd.Recorded = r.Recorded.raw
			}
			for _, b := range r.blocks {
				rd.Blocks = append(rd.Blocks, Block{ID: b.id, Off: b.off, Size: b.size, Chunk: b.chunk, From: int(b.from), To: int(b.to)})
			}
			if r.Result.SegmentsLogged {
				rd.Segments = r.Result.Segments
			}
			if rec := e.Trace.Recording; rec != nil {
				rd.RecordedSegments = rec.Segments
				for _, c := range e.Trace.Cache {
					rd.RecSegStart = append(rd.RecSegStart, c.Size)
				}
			}
			if rd.OOMs == nil {
				rd.OOMs = []int{}
			}
			ed.Replays = append(ed.Replays, rd)
		}
		if ed.Plans == nil {
			ed.Plans = []planData{}
		}
		if ed.Replays == nil {
			ed.Replays = []replayData{}
		}
		data.Entries = append(data.Entries, ed)
	}
	js, err := json.Marshal(data)
	if err != nil {
		return err
	}
	page, err := web.ReadFile("web/index.html")
	if err != nil {
		return err
	}
	css, _ := web.ReadFile("web/app.css")
	app, _ := web.ReadFile("web/app.js")
	// A script's text ends at "</script"; JSON never needs a raw "<".
	safe := strings.ReplaceAll(string(js), "<", `\u003c`)
	html := strings.Replace(string(page), `<link rel="stylesheet" href="app.css">`, "<style>\n"+string(css)+"</style>", 1)
	html = strings.Replace(html, `<script src="app.js"></script>`,
		"<script>window.MEMBENCH_STATIC = "+safe+";</script>\n<script>\n"+strings.ReplaceAll(string(app), "</script", `<\/script`)+"</script>", 1)
	_, err = io.WriteString(w, html)
	return err
}
