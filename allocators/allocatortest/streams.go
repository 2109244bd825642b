package allocatortest

import (
	"context"
	"math/rand/v2"

	"membench/allocators"
	"membench/workloads"
)

// StreamTrace returns a random trace on four streams (DESIGN §11): tensors
// allocated on random streams, used by others (record events), views,
// frees on any stream that used them, and a sync point of a random stream
// after about one event in eight. Sizes go up to maxSize.
func StreamTrace(n int, maxSize int64, seed uint64) *workloads.Trace {
	r := rand.New(rand.NewPCG(seed, 0x57ea))
	tr := &workloads.Trace{Name: "streams"}
	type tensor struct {
		id    int
		users []int32
	}
	var live []tensor
	next := 0
	add := func(e workloads.Event) { tr.Events = append(tr.Events, e) }
	for len(tr.Events) < n {
		switch k := r.IntN(16); {
		case k < 2:
			add(workloads.Event{Kind: workloads.Sync, Stream: r.Int32N(4)})
		case k < 7 || len(live) == 0:
			s := r.Int32N(4)
			size := 1 + r.Int64N(maxSize>>(r.IntN(12)))
			add(workloads.Event{Kind: workloads.Alloc, ID: next, Size: size, Stream: s})
			live = append(live, tensor{next, []int32{s}})
			next++
		case k < 9:
			t := &live[r.IntN(len(live))]
			s := r.Int32N(4)
			add(workloads.Event{Kind: workloads.Record, ID: t.id, Stream: s})
			t.users = append(t.users, s)
		case k < 10:
			t := live[r.IntN(len(live))]
			add(workloads.Event{Kind: workloads.View, ID: next, Of: t.id})
			live = append(live, tensor{next, t.users})
			next++
		default:
			i := r.IntN(len(live))
			t := live[i]
			add(workloads.Event{Kind: workloads.Free, ID: t.id, Stream: t.users[r.IntN(len(t.users))]})
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
		}
	}
	return tr
}

// checkStreams replays random four-stream traces behind the Verifier:
// no block may take memory whose free waits for another stream's sync
// (stream safety), and the peak of requested bytes must be the LB_load of
// the trace's problem, where a buffer lives until its free completes.
// Traces without sync points run with a completion delay of 3 events.
func checkStreams(tb TB, c Config) {
	tb.Helper()
	for seed := uint64(1); seed <= 4; seed++ {
		tr := StreamTrace(c.ops(), c.maxSize(), seed)
		delay := 0
		if seed == 4 {
			// No sync points: a fixed delay instead.
			evs := tr.Events[:0]
			for _, e := range tr.Events {
				if e.Kind != workloads.Sync {
					evs = append(evs, e)
				}
			}
			tr.Events, delay = evs, 3
		}
		res, err := allocators.Replay(context.Background(), c.New(), tr, allocators.ReplayOptions{Verify: true, FreeDelay: delay})
		if err != nil {
			tb.Errorf("stream trace %d: %v", seed, err)
			return
		}
		comp, err := tr.FreeCompletions(delay)
		if err != nil {
			tb.Errorf("stream trace %d: %v", seed, err)
			return
		}
		if want := lbLoad(tr, comp); res.OOMs == 0 && res.PeakInUse != want {
			tb.Errorf("stream trace %d: peak in use %d, want %d (live until the free completes)", seed, res.PeakInUse, want)
		}
	}
}

// lbLoad is the most bytes live at once in tr when each storage lives
// from its allocation to the completion of its free (comp, from
// FreeCompletions).
func lbLoad(tr *workloads.Trace, comp []int32) int64 {
	size := map[int]int64{}     // live id -> its storage's bytes, for allocs
	storage := map[int]int{}    // live id -> the id that allocated its storage
	ending := map[int][]int64{} // event -> bytes whose free completes there
	var live, peak int64
	for i, e := range tr.Events {
		switch e.Kind {
		case workloads.Alloc:
			size[e.ID], storage[e.ID] = e.Size, e.ID
			live += e.Size
			peak = max(peak, live)
		case workloads.View:
			storage[e.ID] = storage[e.Of]
		case workloads.Free:
			if c := comp[i]; c >= 0 {
				ending[int(c)] = append(ending[int(c)], size[storage[e.ID]])
			}
		}
		for _, b := range ending[i] {
			live -= b
		}
	}
	return peak
}
