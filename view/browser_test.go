package view

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"membench/results"
	"membench/workloads"
)

// The browser tests drive Debian's chromium (headless) through the
// DevTools protocol. They skip where no chromium is installed, unless
// MEMBENCH_REQUIRE_BROWSER is set (CI sets it and installs one).
var screenshots = flag.String("screenshots", "", "write the browser tests' screenshots (README's) to `DIR`")

func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("MEMBENCH_REQUIRE_BROWSER") != "" {
			t.Fatal("no chromium on PATH, and MEMBENCH_REQUIRE_BROWSER is set (apt-get install chromium)")
		}
		t.Skip("no chromium on PATH (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	// Every console error or warning and every uncaught exception fails
	// the test.
	var mu sync.Mutex
	var msgs []string
	done := make(chan struct{})
	cctx, stop := context.WithCancel(ctx)
	messages := chromedp.Console(cctx)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				mu.Lock()
				msgs = append(msgs, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		stop()
		<-done
		for _, m := range msgs {
			t.Errorf("the page logged %s", m)
		}
	})
	tctx, cancel3 := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel3)
	return tctx
}

// do runs steps, failing the test at the first error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// text returns the text of the element sel.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).textContent`, sel)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eval evaluates a JavaScript expression to an int.
func evalInt(t *testing.T, ctx context.Context, js string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// until waits for a JavaScript condition.
func until(js string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(30*time.Second))(ctx, tg)
		return err
	})
}

// settled waits until the page has drawn its answers.
func settled() chromedp.Action[chromedp.Void] {
	return until(`document.body.dataset.pending === "0" && !document.querySelector("#status").textContent.startsWith("loading")`)
}

func visible(sel string) chromedp.Action[chromedp.Void] {
	return until(fmt.Sprintf(`document.querySelector(%q) !== null`, sel))
}

func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click()`, sel))(ctx, tg)
		return err
	})
}

func js(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[chromedp.Void](expr)(ctx, tg)
		return err
	})
}

func shot(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if *screenshots == "" {
			return nil
		}
		buf, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(*screenshots, name), buf, 0o644)
	})
}

// mouseAt moves the mouse to the point of canvas sel at fractions (fx, fy)
// of its width and height from its top left corner.
func mouseAt(sel string, fx, fy float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		box, err := chromedp.Evaluate[map[string]float64](fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; })()`, sel))(ctx, tg)
		if err != nil {
			return err
		}
		_, err = chromedp.MouseEvent("mouseMoved", box["x"]+fx*box["w"], box["y"]+fy*box["h"])(ctx, tg)
		return err
	})
}

func serve(t *testing.T, entries []*Entry, sweep *Sweep) string {
	t.Helper()
	srv := httptest.NewServer(New(entries, sweep, Options{Load: workloads.Load}).Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

func build(t *testing.T, spec string, strategies, allocators []string) *Entry {
	t.Helper()
	w, err := workloads.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Build(context.Background(), w, strategies, allocators)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestBrowserPlan opens two plans of ResNet-50, hovers a known buffer and
// checks the tooltip, and zooms.
func TestBrowserPlan(t *testing.T) {
	e := build(t, "zoo/resnet-50", []string{"greedy-by-size", "tflite-arena"}, nil)
	url := serve(t, []*Entry{e}, nil)
	ctx := browser(t)
	// The buffer of the largest area in the first plan, and the point at
	// its centre in the unzoomed view.
	l := e.Problem.Buffers
	area := func(b workloads.Buffer) int64 { return b.Size * int64(b.Last-b.First+1) }
	big := 0
	for i, b := range l {
		if area(b) > area(l[big]) {
			big = i
		}
	}
	b, lay := l[big], e.Plans[0]
	fx := (float64(b.First) + float64(b.Last+1)) / 2 / float64(lay.Tasks)
	fy := 1 - (float64(lay.Plan.Offsets[big])+float64(b.Size)/2)/float64(lay.Top())
	do(t, ctx, chromedp.Navigate(url), visible("#layout-1"), settled())
	facts := text(t, ctx, "#plan-facts")
	do(t, ctx, mouseAt("#layout-0", fx, fy), until(`!document.querySelector("#tip").hidden`), shot("plan.png"))
	tip := text(t, ctx, "#tip")
	before := text(t, ctx, "#status")
	do(t, ctx, js(`(() => { const c = document.querySelector("#layout-0"); const r = c.getBoundingClientRect();
		for (let i = 0; i < 5; i++) c.dispatchEvent(new WheelEvent("wheel", {deltaY: -100, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true})); })()`), settled())
	after := text(t, ctx, "#status")
	for _, want := range []string{"greedy-by-size: footprint " + sizeText(e.Plans[0].Plan.Footprint), "tflite-arena: footprint " + sizeText(e.Plans[1].Plan.Footprint), "LB_load", "placed differently"} {
		if !strings.Contains(facts, want) {
			t.Errorf("facts %q lack %q", facts, want)
		}
	}
	label := fmt.Sprintf("buffer %d", big)
	if e.Problem.Labels != nil {
		label += " (" + e.Problem.Labels[big] + ")"
	}
	wantTip := fmt.Sprintf("%s\nsize %s\nlifetime tasks %d–%d\noffset %s", label, sizeText(b.Size), b.First, b.Last, commas(lay.Plan.Offsets[big]))
	if !strings.HasPrefix(tip, wantTip) {
		t.Errorf("tooltip %q, want it to start %q", tip, wantTip)
	}
	if before == after || !strings.HasPrefix(after, "tasks ") {
		t.Errorf("zooming left the status at %q (was %q)", after, before)
	}
}

// sizeText is how the page writes a byte count.
func sizeText(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	x, u := float64(n)/1024, 0
	for x >= 1024 && u < len(units)-1 {
		x /= 1024
		u++
	}
	return fmt.Sprintf("%.2f %s (%s B)", x, units[u], commas(n))
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// TestBrowserReplay replays a workload with two allocators on a shared
// axis and checks the state at the cursor.
func TestBrowserReplay(t *testing.T) {
	e := build(t, "zoo/mobilenet-v2", nil, []string{"bfc", "torch-caching"})
	url := serve(t, []*Entry{e}, nil)
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(url), visible("#series"), settled())
	facts := text(t, ctx, "#replay-facts")
	do(t, ctx, mouseAt("#series", 0.5, 0.5), until(`document.querySelector("#series").dataset.cursor > 0`), shot("replay.png"))
	state := text(t, ctx, "#state-facts-0")
	cursor := evalInt(t, ctx, `+document.querySelector("#series").dataset.cursor`)
	r := e.Replays[0]
	if !strings.Contains(facts, "bfc: peak reserved "+sizeText(r.Result.PeakReserved)) || !strings.Contains(facts, "torch-caching: peak reserved "+sizeText(e.Replays[1].Result.PeakReserved)) {
		t.Errorf("facts %q", facts)
	}
	if n := len(e.Trace.Events); cursor < n/2-2 || cursor > n/2+2 {
		t.Errorf("the cursor at the middle of the chart is at event %d of %d", cursor, n)
	}
	st := r.StateAt(cursor)
	for _, want := range []string{fmt.Sprintf("event %s:", commas(int64(cursor))), "in use " + sizeText(st.InUse), "cached free " + sizeText(st.Cached), "reserved " + sizeText(st.Reserved)} {
		if !strings.Contains(state, want) {
			t.Errorf("state %q lacks %q (cursor at event %d)", state, want, cursor)
		}
	}
}

// TestBrowserSnapshot opens a real PyTorch snapshot: the recording beside
// the replay, and a replay under other settings.
func TestBrowserSnapshot(t *testing.T) {
	if _, err := os.Stat("../../shared"); err != nil {
		t.Skip("../shared is absent")
	}
	e := build(t, "../../shared/workloads/pytorch-snapshots/silmont_mem_snapshot.pickle", nil, []string{"torch-caching"})
	url := serve(t, []*Entry{e}, nil)
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(url), visible("#series"), settled())
	facts := text(t, ctx, "#replay-facts")
	// Hover the largest block with a stack at the cursor: the tooltip
	// shows where Python allocated it.
	do(t, ctx, mouseAt("#series", 0.6, 0.5), until(`document.querySelector("#series").dataset.cursor > 0`))
	cursor := evalInt(t, ctx, `+document.querySelector("#series").dataset.cursor`)
	st := e.Replays[0].StateAt(cursor)
	var pick *Block
	base := int64(-1)
	for k := range st.Blocks {
		b := &st.Blocks[k]
		if base < 0 || b.Off < base {
			base = b.Off
		}
		if e.StackOf(b.ID) != "" && (pick == nil || b.Chunk > pick.Chunk) {
			pick = b
		}
	}
	if pick == nil {
		t.Fatalf("no block with a stack is live at event %d", cursor)
	}
	span := max(st.Top-base, st.Reserved, 1)
	fx := (float64(pick.Off-base) + float64(pick.Chunk)/2) / float64(span)
	do(t, ctx, mouseAt("#state-0", fx, 0.5), until(`document.querySelector("#tip").textContent.includes("allocated at")`), shot("snapshot.png"))
	tip := text(t, ctx, "#tip")
	stateText := text(t, ctx, "#state-facts-0")
	for _, want := range []string{fmt.Sprintf("simulated segments: %d,", len(st.Segments)), fmt.Sprintf("recorded segments: %d,", len(st.RecordedSegments))} {
		if len(st.RecordedSegments) == 0 || !strings.Contains(stateText, want) {
			t.Errorf("state %q lacks %q", stateText, want)
		}
	}
	firstFrame, _, _ := strings.Cut(e.StackOf(pick.ID), "\n")
	if !strings.HasPrefix(tip, fmt.Sprintf("tensor %d\n", pick.ID)) || !strings.Contains(tip, "allocated at\n"+firstFrame) {
		t.Errorf("tooltip %q, want tensor %d allocated at %q", tip, pick.ID, firstFrame)
	}
	do(t, ctx, js(`document.querySelector("#settings").value = "expandable_segments:True"`), click("#replay-with"),
		until(`document.querySelectorAll("canvas.state").length === 2`), settled())
	after := text(t, ctx, "#replay-facts")
	if e.Trace.Recording == nil || !strings.Contains(facts, "recorded peak reserved "+sizeText(e.Trace.Recording.PeakReserved)) {
		t.Errorf("facts %q lack the recorded peak", facts)
	}
	if !strings.Contains(after, "torch-caching?alloc_conf=expandable_segments:True: peak reserved") {
		t.Errorf("after replaying under other settings: %q", after)
	}
}

// TestBrowserSweep opens a results folder, sorts it, and opens a cell.
func TestBrowserSweep(t *testing.T) {
	recs, _, err := results.ReadFile("testdata/sweep/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	url := serve(t, nil, NewSweep("testdata/sweep", recs, nil))
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(url), visible("#sweep tr.cell"), shot("sweep.png"))
	rows := evalInt(t, ctx, `document.querySelectorAll("#sweep tr.cell").length`)
	pairs := map[[2]string]bool{}
	for _, r := range recs {
		pairs[[2]string{r.Workload, r.Subject}] = true
	}
	if rows != len(pairs) {
		t.Errorf("%d rows, want %d", rows, len(pairs))
	}
	// Sorting by footprint puts the smallest first.
	do(t, ctx, click(`#sweep th:nth-child(5)`))
	first := text(t, ctx, `#sweep tr.cell td:nth-child(5)`)
	minFp := int64(-1)
	for _, r := range recs {
		if r.Status == results.StatusOK && (minFp < 0 || r.Footprint < minFp) {
			minFp = r.Footprint
		}
	}
	if first != commas(minFp) {
		t.Errorf("sorted by footprint, the first row has %s, want %s", first, commas(minFp))
	}
	do(t, ctx, js(`[...document.querySelectorAll("#sweep tr.cell")].find(r => r.children[1].textContent === "greedy-by-size").click()`),
		visible("#layout-0"), settled())
	if facts := text(t, ctx, "#plan-facts"); !strings.Contains(facts, "greedy-by-size: footprint") {
		t.Errorf("the opened cell shows %q", facts)
	}
}

// TestBrowserStatic opens a static export from a file, with no server.
func TestBrowserStatic(t *testing.T) {
	e := build(t, "zoo/resnet-50", []string{"greedy-by-size"}, []string{"bfc"})
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Export(f, []*Entry{e}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate("file://"+filepath.Join(dir, "page.html")), visible("#layout-0"), settled())
	facts := text(t, ctx, "#plan-facts")
	do(t, ctx, click("#tab-replays"), visible("#series"), settled(), mouseAt("#series", 0.3, 0.5),
		until(`document.querySelector("#series").dataset.cursor > 0`))
	state := text(t, ctx, "#state-facts-0")
	if !strings.Contains(facts, "footprint "+sizeText(e.Plans[0].Plan.Footprint)) {
		t.Errorf("static facts %q", facts)
	}
	if !strings.Contains(state, "in use") {
		t.Errorf("static state %q", state)
	}
}
