package view

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"membench/allocators"
	"membench/strategies"
	"membench/workloads"
)

// The viewer's scale benchmarks (DESIGN §16): zoom requests answered by
// the server's handler, JSON included, on plans of 10^5 and 10^6 buffers
// (xla-heap's) and on replays of 10^5 to 10^7 events (bfc's), and the first complete paint in
// chromium. Each size runs in its own process for its peak RSS:
//
//	go test ./view -run '^$' -bench 'Zoom/series-1e7' -benchtime 200x

// scaleTrace is a trace of n events: allocations of log-uniform sizes
// with about 2,000 tensors live, each freed at random later.
func scaleTrace(n int) *workloads.Trace {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	tr := &workloads.Trace{Name: fmt.Sprintf("scale-%d", n), Events: make([]workloads.Event, 0, n)}
	var live []int
	next := 0
	for len(tr.Events) < n {
		if len(live) > 0 && (len(live) > 2000 || rng.IntN(2) == 0 || len(tr.Events)+len(live) >= n) {
			k := rng.IntN(len(live))
			tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Free, ID: live[k]})
			live[k] = live[len(live)-1]
			live = live[:len(live)-1]
			continue
		}
		size := int64(1) << (8 + rng.IntN(16))
		tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Alloc, ID: next, Size: size + rng.Int64N(size)})
		live = append(live, next)
		next++
	}
	return tr
}

// scaleEntry builds the entry the benchmarks serve: a plan of n buffers
// (from a trace of 2n events) or a replay of n events.
func scaleEntry(b *testing.B, kind string, n int) *Entry {
	b.Helper()
	ctx := context.Background()
	if kind == "plan" {
		tr := scaleTrace(2 * n)
		p, err := tr.ToProblem()
		if err != nil {
			b.Fatal(err)
		}
		s, err := strategies.Lookup("xla-heap")
		if err != nil {
			b.Fatal(err)
		}
		plan, err := s.Plan(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		l, err := NewLayout("xla-heap", p, plan)
		if err != nil {
			b.Fatal(err)
		}
		return &Entry{Spec: tr.Name, Problem: p, Plans: []*Layout{l}}
	}
	tr := scaleTrace(n)
	f, err := allocators.Lookup("bfc")
	if err != nil {
		b.Fatal(err)
	}
	r, err := NewReplay(ctx, "bfc", f, tr)
	if err != nil {
		b.Fatal(err)
	}
	return &Entry{Spec: tr.Name, Trace: tr, Replays: []*Replay{r}}
}

// peakRSS is the process's peak resident memory in MiB (Linux), or 0.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

var scaleSizes = []struct {
	name string
	n    int
}{{"1e5", 100_000}, {"1e6", 1_000_000}, {"1e7", 10_000_000}}

// The benchmarks run under the soft memory limit membench view sets.
func init() { debug.SetMemoryLimit(1536 << 20) }

// BenchmarkZoom times zoom requests at random viewports, 1,200 by 400
// pixels, through the HTTP handler; it reports the median and the 99th
// percentile of the requests and the peak RSS.
func BenchmarkZoom(b *testing.B) {
	for _, kind := range []string{"plan", "series"} {
		for _, sz := range scaleSizes {
			if kind == "plan" && sz.n > 2_000_000 {
				continue // a plan of 10^6 buffers is the target
			}
			b.Run(kind+"-"+sz.name, func(b *testing.B) {
				e := scaleEntry(b, kind, sz.n)
				h := New([]*Entry{e}, nil, Options{}).Handler()
				rng := rand.New(rand.NewPCG(1, 1))
				urls := make([]string, 256)
				for k := range urls {
					if kind == "plan" {
						l := e.Plans[0]
						t0 := rng.Int64N(int64(l.Tasks))
						t1 := t0 + 1 + rng.Int64N(int64(l.Tasks)-t0)
						a0 := rng.Int64N(l.Plan.Footprint)
						a1 := a0 + 1 + rng.Int64N(l.Plan.Footprint-a0)
						if k%4 == 0 { // the whole layout, the costliest
							t0, t1, a0, a1 = 0, int64(l.Tasks), 0, l.Plan.Footprint
						}
						urls[k] = fmt.Sprintf("/api/plan?w=0&id=0&t0=%d&t1=%d&a0=%d&a1=%d&pw=1200&ph=400", t0, t1, a0, a1)
					} else {
						e0 := rng.IntN(sz.n)
						e1 := e0 + 1 + rng.IntN(sz.n-e0)
						if k%4 == 0 {
							e0, e1 = 0, sz.n
						}
						urls[k] = fmt.Sprintf("/api/series?w=0&id=0&e0=%d&e1=%d&pw=1200", e0, e1)
					}
				}
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					req := httptest.NewRequest("GET", urls[i%len(urls)], nil)
					w := httptest.NewRecorder()
					start := time.Now()
					h.ServeHTTP(w, req)
					lat = append(lat, time.Since(start))
					if w.Code != http.StatusOK {
						b.Fatalf("%s: %d %s", urls[i%len(urls)], w.Code, w.Body)
					}
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(peakRSS(), "peak-RSS-MiB")
			})
		}
	}
}

// BenchmarkOpen times what opening a workload costs the server before the
// page can ask: the replay or the plan's layout, and the level-of-detail
// pyramids (the plan itself is not counted).
func BenchmarkOpen(b *testing.B) {
	for _, sz := range scaleSizes {
		b.Run("series-"+sz.name, func(b *testing.B) {
			tr := scaleTrace(sz.n)
			f, _ := allocators.Lookup("bfc")
			for i := 0; i < b.N; i++ {
				if _, err := NewReplay(context.Background(), "bfc", f, tr); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(peakRSS(), "peak-RSS-MiB")
		})
	}
}

// BenchmarkFirstPaint times, in chromium, from navigating to the page to
// its first complete paint (every answer drawn), for a served replay.
func BenchmarkFirstPaint(b *testing.B) {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
		}
	}
	if path == "" {
		b.Skip("no chromium on PATH")
	}
	for _, kind := range []string{"plan", "series"} {
		for _, sz := range scaleSizes {
			if kind == "plan" && sz.n > 2_000_000 {
				continue
			}
			b.Run(kind+"-"+sz.name, func(b *testing.B) {
				e := scaleEntry(b, kind, sz.n)
				srv := httptest.NewServer(New([]*Entry{e}, nil, Options{}).Handler())
				defer srv.Close()
				opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
				actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
				defer cancel()
				ctx, cancel2 := chromedp.NewContext(actx)
				defer cancel2()
				if err := chromedp.Do(ctx); err != nil {
					b.Fatal(err)
				}
				sel := "#layout-0"
				if kind == "series" {
					sel = "#series"
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL), visible(sel), settled()); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(peakRSS(), "peak-RSS-MiB")
			})
		}
	}
}
