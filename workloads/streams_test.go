package workloads

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadWriteTraceStreams(t *testing.T) {
	in := "a,1,10,2\nr,1,3\nv,2,1\nf,1,\nf,2,3\ns,3\ns,2\na,3,4\nf,3\n"
	tr, err := ReadTrace(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Kind: Alloc, ID: 1, Size: 10, Stream: 2}, {Kind: Record, ID: 1, Stream: 3}, {Kind: View, ID: 2, Of: 1},
		{Kind: Free, ID: 1}, {Kind: Free, ID: 2, Stream: 3}, {Kind: Sync, Stream: 3}, {Kind: Sync, Stream: 2},
		{Kind: Alloc, ID: 3, Size: 4}, {Kind: Free, ID: 3},
	}
	if !reflect.DeepEqual(tr.Events, want) {
		t.Fatalf("got %+v", tr.Events)
	}
	var sb strings.Builder
	if err := WriteTrace(&sb, tr); err != nil {
		t.Fatal(err)
	}
	const out = "a,1,10,2\nr,1,3\nv,2,1\nf,1,\nf,2,3\ns,3\ns,2\na,3,4\nf,3,\n"
	if sb.String() != out {
		t.Fatalf("wrote %q, want %q", sb.String(), out)
	}
}

func TestFreeCompletions(t *testing.T) {
	const (
		N = NoFree
		X = NeverCompletes
	)
	for _, c := range []struct {
		name, trace string
		delay       int
		want        []int32
		last        []int // each buffer's Last with no delay
	}{
		{"no syncs", "a,1,8\na,2,8\nf,1\nf,2\n", 0, []int32{N, N, 2, 3}, []int{2, 3}},
		{"delay", "a,1,8\na,2,8\nf,1\nf,2\na,3,1\n", 1, []int32{N, N, 3, 4, N}, []int{2, 3, 4}},
		{"delay past the end", "a,1,8\nf,1\n", 1, []int32{N, X}, []int{1}},
		// The allocating stream syncs at 3, the recording stream at 5.
		{"record stream", "a,1,8\nr,1,1\nf,1\ns,0\na,2,8\ns,1\nf,2\n", 0, []int32{N, N, 5, N, N, N, X}, []int{5, 6}},
		// A sync before the request does not count.
		{"sync before request", "a,1,8\ns,0\nf,1\ns,0\n", 0, []int32{N, N, 3, N}, []int{3}},
		// A free on another stream makes it a user.
		{"free stream", "a,1,8\nf,1,1\ns,0\ns,1\n", 0, []int32{N, 3, N, N}, []int{3}},
		// The storage's free is requested by its last tensor's free;
		// the view's record counts for the storage.
		{"view", "a,1,8,1\nv,2,1\nr,2,2\nf,1,1\ns,1\nf,2,1\ns,1\ns,2\n", 0, []int32{N, N, N, N, N, 7, N, N}, []int{7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := ReadTrace(strings.NewReader(c.trace), "t")
			if err != nil {
				t.Fatal(err)
			}
			got, err := tr.FreeCompletions(c.delay)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("completions %v, want %v", got, c.want)
			}
			p, err := tr.ToProblem()
			if err != nil {
				t.Fatal(err)
			}
			var last []int
			for _, b := range p.Buffers {
				last = append(last, b.Last)
			}
			if !reflect.DeepEqual(last, c.last) {
				t.Errorf("buffers end at %v, want %v", last, c.last)
			}
		})
	}
}

func TestFreeCompletionsErrors(t *testing.T) {
	tr := &Trace{Name: "t", Events: []Event{{Kind: Alloc, ID: 1, Size: 1}, {Kind: Free, ID: 1}, {Kind: Sync}}}
	for _, c := range []struct {
		delay int
		want  string
	}{
		{-1, "free delay -1: want >= 0 events"},
		{2, "t: a free delay (2 events) is for traces without sync points, and this one has them"},
	} {
		_, err := tr.FreeCompletions(c.delay)
		var ue *UsageError
		if !errors.As(err, &ue) || err.Error() != c.want {
			t.Errorf("delay %d: error %v, want UsageError %q", c.delay, err, c.want)
		}
	}
}

// TestReadPyTorchStreams: stream handles become streams 0, 1, ...; the
// deferred free (its free_completed after other events) is recorded on a
// stream of its own that syncs at free_completed, and every free is
// followed by a sync of its stream, so frees complete where PyTorch
// completed them.
func TestReadPyTorchStreams(t *testing.T) {
	w, err := Load("testdata/pytorch/streams.pickle")
	if err != nil {
		t.Fatal(err)
	}
	// The oom at the end is no event, only counted.
	const want = "a,0,1000\na,1,2000,1\nr,0,2\nf,0,\ns,0\na,2,500,1\nf,1,1\ns,1\ns,2\n"
	if got := traceText(t, w.Trace); got != want || w.Trace.OOMs != 1 {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	comp, err := w.Trace.FreeCompletions(0)
	if err != nil {
		t.Fatal(err)
	}
	// The deferred free (event 3) completes at free_completed (event 8);
	// the others at the sync after them.
	if comp[3] != 8 || comp[6] != 7 {
		t.Errorf("completions %v", comp)
	}
	// The problem sees buffer 0 live until event 8.
	if b := w.Problem.Buffers[0]; b.Last != 8 {
		t.Errorf("buffer 0 ends at %d, want 8", b.Last)
	}
}
