package allocators

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"membench/workloads"
)

// randomTrace is a random alloc/free mix holding about live blocks at
// once, with log-uniform sizes from 64 B to 1 MiB, ending with every block
// freed. It has exactly n events (n even).
func randomTrace(n, live int, seed uint64) *workloads.Trace {
	r := rand.New(rand.NewPCG(seed, 1))
	tr := &workloads.Trace{Name: fmt.Sprintf("random-%d", n), Events: make([]workloads.Event, 0, n)}
	var ids []int
	next := 0
	allocs := n / 2
	for len(tr.Events) < n {
		remaining := n - len(tr.Events)
		canAlloc := next < allocs
		mustFree := remaining <= len(ids) || !canAlloc
		if !mustFree && (len(ids) < live/2 || len(ids) < live && r.IntN(2) == 0 || r.IntN(live*2) > len(ids)) {
			size := int64(64 * (1 << r.IntN(14)))
			size += r.Int64N(size)
			tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Alloc, ID: next, Size: size})
			ids = append(ids, next)
			next++
			continue
		}
		i := r.IntN(len(ids))
		tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Free, ID: ids[i]})
		ids[i] = ids[len(ids)-1]
		ids = ids[:len(ids)-1]
	}
	return tr
}

func TestRandomTrace(t *testing.T) {
	tr := randomTrace(10000, 500, 1)
	c, err := compileTrace(tr, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 10000 || len(c.allocs) != 5000 || len(c.ops) != 10000 {
		t.Fatalf("%d events, %d allocs, %d calls", len(tr.Events), len(c.allocs), len(c.ops))
	}
}

// benchReplay times the bare replay loop on a warm BFC (reset between
// replays, so its tables are grown and only its rules are measured) and
// reports ns per allocator call.
func benchReplay(b *testing.B, tr *workloads.Trace, o BFCOptions) {
	c, err := compileTrace(tr, 0)
	if err != nil {
		b.Fatal(err)
	}
	a, err := NewBFC(o)
	if err != nil {
		b.Fatal(err)
	}
	offs := make([]int64, c.slots)
	ctx := context.Background()
	if _, err := run(ctx, a, c.ops, offs); err != nil { // warm up
		b.Fatal(err)
	}
	var total time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a.Reset()
		start := time.Now()
		if _, err := run(ctx, a, c.ops, offs); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N)/float64(len(c.ops)), "ns/call")
}

// BenchmarkBFCReplay replays the reference traces and random 10^5- and
// 10^6-event traces through bfc with 16 GiB and growth on.
func BenchmarkBFCReplay(b *testing.B) {
	o := BFCOptions{MemoryLimit: 16 << 30, AllowGrowth: true, Alignment: 256}
	paths, _ := filepath.Glob("testdata/bfc/*.csv")
	for _, p := range paths {
		if strings.HasSuffix(p, ".records.csv") {
			continue
		}
		tr := readTraceFile(b, p)
		b.Run(strings.TrimSuffix(filepath.Base(p), ".csv"), func(b *testing.B) { benchReplay(b, tr, o) })
	}
	for _, n := range []int{100_000, 1_000_000} {
		tr := randomTrace(n, 10_000, 42)
		b.Run(fmt.Sprintf("random-%d", n), func(b *testing.B) { benchReplay(b, tr, o) })
	}
}

// BenchmarkReadReplay1e6 reads a 10^6-event trace file and replays it
// through bfc once: the end-to-end cost of `membench replay --repeat 1`.
func BenchmarkReadReplay1e6(b *testing.B) {
	tr := randomTrace(1_000_000, 10_000, 7)
	var sb strings.Builder
	for _, e := range tr.Events {
		switch e.Kind {
		case workloads.Alloc:
			fmt.Fprintf(&sb, "a,%d,%d\n", e.ID, e.Size)
		case workloads.Free:
			fmt.Fprintf(&sb, "f,%d,\n", e.ID)
		}
	}
	path := filepath.Join(b.TempDir(), "random-1e6.trace")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	o := BFCOptions{MemoryLimit: 16 << 30, AllowGrowth: true, Alignment: 256}
	b.ResetTimer()
	for range b.N {
		w, err := workloads.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		a, err := NewBFC(o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Replay(context.Background(), a, w.Trace, ReplayOptions{Repeat: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
