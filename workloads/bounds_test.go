package workloads

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteLoad is LB_load by its definition: the most bytes live at any task,
// where only first tasks need trying (0 for none).
func bruteLoad(bufs []Buffer) int64 {
	var best int64
	for _, at := range bufs {
		var live int64
		for _, b := range bufs {
			if b.First <= at.First && at.First <= b.Last {
				live += b.Size
			}
		}
		best = max(best, live)
	}
	return best
}

// TestLoadBoundMatchesDefinition compares LoadBound, on both of its paths
// (tasks spanning few values, and many), with the definition and with the
// event sweep that handles malformed records, on random problems.
func TestLoadBoundMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := range 600 {
		n := rng.IntN(120)
		// Task ranges: dense (a few per buffer), sparse (far apart) and
		// negative ones.
		span := []int{1, n + 1, 8*n + 1, 1 << 40}[trial%4]
		base := 0
		if trial%3 == 0 {
			base = -span / 2
		}
		bufs := make([]Buffer, n)
		for i := range bufs {
			f := base + rng.IntN(span)
			l := f + rng.IntN(1+span/max(1, rng.IntN(8)))
			bufs[i] = Buffer{ID: i, Size: rng.Int64N(1000), First: f, Last: l}
			if rng.IntN(10) == 0 {
				bufs[i].Size = 0
			}
		}
		got := LoadBound(bufs)
		if want := bruteLoad(bufs); got != want {
			t.Fatalf("trial %d (n %d, span %d): LoadBound %d, definition %d", trial, n, span, got, want)
		}
		if want := loadSweep(bufs); got != want {
			t.Fatalf("trial %d (n %d, span %d): LoadBound %d, sweep %d", trial, n, span, got, want)
		}
	}
	// Tasks at the ends of int: the span overflows a signed difference.
	bufs := []Buffer{{Size: 5, First: math.MinInt, Last: 0}, {Size: 7, First: 0, Last: math.MaxInt - 1}, {Size: 3, First: 1, Last: 2}}
	if got := LoadBound(bufs); got != 12 {
		t.Errorf("extreme tasks: LoadBound %d, want 12", got)
	}
	// Malformed records keep the sweep's meaning.
	bad := []Buffer{{Size: 10, First: 0, Last: 9}, {Size: 4, First: 5, Last: 2}}
	if got, want := LoadBound(bad), loadSweep(bad); got != want {
		t.Errorf("malformed: LoadBound %d, sweep %d", got, want)
	}
}

// BenchmarkLoadBound1M times LoadBound on a million buffers against the
// event sweep it replaced (loadSweep, LoadBound before issue 19).
func BenchmarkLoadBound1M(b *testing.B) {
	p := bigProblem()
	for _, f := range []struct {
		name string
		f    func([]Buffer) int64
	}{{"LoadBound", LoadBound}, {"sweep", loadSweep}} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				f.f(p.Buffers)
			}
		})
	}
}
