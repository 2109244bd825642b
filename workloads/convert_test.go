package workloads

import (
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func traceText(t *testing.T, tr *Trace) string {
	t.Helper()
	var sb strings.Builder
	if err := WriteTrace(&sb, tr); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

func TestToTrace(t *testing.T) {
	cases := []struct {
		name string
		bufs []Buffer
		want string
	}{
		{"empty", nil, ""},
		// Allocations at a task come before its frees; each group in ID order.
		{"groups in ID order", []Buffer{
			{ID: 5, Size: 1, First: 1, Last: 2},
			{ID: 2, Size: 2, First: 0, Last: 1},
			{ID: 3, Size: 3, First: 1, Last: 1},
			{ID: 1, Size: 4, First: 0, Last: 0},
		}, "a,1,4\na,2,2\nf,1,\na,3,3\na,5,1\nf,2,\nf,3,\nf,5,\n"},
		// Task ids need not be dense: the walk never visits empty tasks.
		{"sparse", []Buffer{
			{ID: 0, Size: 7, First: 0, Last: MaxTask},
			{ID: 1, Size: 8, First: 1 << 40, Last: 1 << 41},
		}, "a,0,7\na,1,8\nf,1,\nf,0,\n"},
		{"equal ids keep input order", []Buffer{
			{ID: 4, Size: 1, First: 0, Last: 0},
			{ID: 4, Size: 2, First: 0, Last: 0},
		}, "a,4,1\na,4,2\nf,4,\nf,4,\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &Problem{Name: "p", Buffers: c.bufs}
			tr := mustTrace(t, p)
			if tr.Name != "p" {
				t.Errorf("Name = %q", tr.Name)
			}
			if got := traceText(t, tr); got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestToTraceBFCFixture checks the conversion against the trace that
// TensorFlow's BFC harness derived from the same records by DESIGN §1.
func TestToTraceBFCFixture(t *testing.T) {
	data, err := os.ReadFile("testdata/bfc/dnn_1k.records.csv")
	if err != nil {
		t.Fatal(err)
	}
	p := &Problem{Name: "dnn_1k"}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		var f [4]int
		for i, s := range strings.Split(l, ",") {
			if f[i], err = strconv.Atoi(s); err != nil {
				t.Fatal(err)
			}
		}
		p.Buffers = append(p.Buffers, Buffer{ID: f[0], Size: int64(f[1]), First: f[2], Last: f[3]})
	}
	w, err := LoadFile("testdata/bfc/dnn_1k.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Buffers) != 500 || len(w.Trace.Events) != 1000 {
		t.Fatalf("fixture has %d records, %d events", len(p.Buffers), len(w.Trace.Events))
	}
	if got, want := traceText(t, mustTrace(t, p)), traceText(t, w.Trace); got != want {
		t.Fatal("ToTrace differs from the BFC fixture's trace")
	}
	// And back: every record freed, so trace -> problem -> trace is exact.
	if got := traceText(t, mustTrace(t, w.Problem)); got != traceText(t, w.Trace) {
		t.Fatal("trace -> problem -> trace changed the trace")
	}
	if got, want := w.Problem.LoadBound(), p.LoadBound(); got != want {
		t.Fatalf("LB_load %d, records give %d", got, want)
	}
}

func TestToProblem(t *testing.T) {
	cases := []struct {
		name, trace string
		want        []Buffer
	}{
		{"empty", "", nil},
		{"alloc free", "a,3,10\na,1,5\nf,3,\nf,1,\n", []Buffer{
			{ID: 3, Size: 10, First: 0, Last: 2}, {ID: 1, Size: 5, First: 1, Last: 3}}},
		{"never freed lives to the last event", "a,0,10\na,1,5\nf,1,\na,2,0\n", []Buffer{
			{ID: 0, Size: 10, First: 0, Last: 3}, {ID: 1, Size: 5, First: 1, Last: 2}, {ID: 2, Size: 0, First: 3, Last: 3}}},
		// The storage lives until the last tensor sharing it goes.
		{"view outlives its base", "a,1,10\nv,2,1\nf,1,\na,3,4\nf,2,\nf,3,\n", []Buffer{
			{ID: 1, Size: 10, First: 0, Last: 4}, {ID: 3, Size: 4, First: 3, Last: 5}}},
		{"view of a view", "a,1,10\nv,2,1\nv,3,2\nf,2,\nf,1,\nf,3,\n", []Buffer{
			{ID: 1, Size: 10, First: 0, Last: 5}}},
		{"base outlives its view", "a,1,10\nv,2,1\nf,2,\nf,1,\n", []Buffer{
			{ID: 1, Size: 10, First: 0, Last: 3}}},
		{"view never freed", "a,1,10\nv,2,1\nf,1,\na,3,1\n", []Buffer{
			{ID: 1, Size: 10, First: 0, Last: 3}, {ID: 3, Size: 1, First: 3, Last: 3}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := ReadTrace(strings.NewReader(c.trace), "t")
			if err != nil {
				t.Fatal(err)
			}
			p, err := tr.ToProblem()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Buffers, c.want) || p.Name != "t" {
				t.Fatalf("got %+v\nwant %+v", p.Buffers, c.want)
			}
		})
	}
}

// TestToProblemErrors covers traces built in code, which name the event.
func TestToProblemErrors(t *testing.T) {
	cases := []struct {
		name   string
		events []Event
		want   string
	}{
		{"free unknown", []Event{{Kind: Free, ID: 3}}, "tr: event 0: free of id 3, which was never allocated"},
		{"double free", []Event{{Kind: Alloc, ID: 1}, {Kind: Free, ID: 1}, {Kind: Free, ID: 1}}, "tr: event 2: id 1 is freed twice (first on event 1)"},
		{"reuse", []Event{{Kind: Alloc, ID: 1}, {Kind: Alloc, ID: 1}}, "tr: event 1: id 1 is already used on event 0; each id names one tensor"},
		{"negative size", []Event{{Kind: Alloc, ID: 1, Size: -1}}, "tr: event 0: alloc of id 1: negative size -1"},
		{"view of freed", []Event{{Kind: Alloc, ID: 1}, {Kind: Free, ID: 1}, {Kind: View, ID: 2, Of: 1}}, "tr: event 2: view of id 1, which was freed on event 1"},
		{"bad kind", []Event{{Kind: 9}}, "tr: event 0: unknown event kind 9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := (&Trace{Name: "tr", Events: c.events}).ToProblem()
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// randomProblem returns n buffers with unique ids in random order, sizes
// including zero, and lifetimes that touch often.
func randomProblem(r *rand.Rand, n, tasks int) *Problem {
	p := &Problem{Name: "rand"}
	ids := r.Perm(n)
	for i := range n {
		f := r.IntN(tasks)
		l := f + r.IntN(1+r.IntN(tasks-f))
		p.Buffers = append(p.Buffers, Buffer{ID: ids[i], Size: int64(r.IntN(4) * r.IntN(1000)), First: f, Last: l})
	}
	return p
}

// TestRoundTrips: problem -> trace -> problem keeps LB_load and which
// buffers conflict; trace -> problem -> trace gives the trace back.
func TestRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 200 {
		p := randomProblem(r, 1+r.IntN(60), 1+r.IntN(40))
		tr := mustTrace(t, p)
		q, err := tr.ToProblem()
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Buffers) != len(p.Buffers) {
			t.Fatalf("iter %d: %d buffers became %d", iter, len(p.Buffers), len(q.Buffers))
		}
		if a, b := p.LoadBound(), q.LoadBound(); a != b {
			t.Fatalf("iter %d: LB_load %d became %d", iter, a, b)
		}
		byID := map[int]Buffer{}
		for _, b := range q.Buffers {
			byID[b.ID] = b
		}
		for i, a := range p.Buffers {
			if byID[a.ID].Size != a.Size {
				t.Fatalf("iter %d: size of id %d changed", iter, a.ID)
			}
			for _, b := range p.Buffers[i+1:] {
				if Conflicts(a, b) != Conflicts(byID[a.ID], byID[b.ID]) {
					t.Fatalf("iter %d: conflict of ids %d and %d changed: %+v %+v -> %+v %+v",
						iter, a.ID, b.ID, a, b, byID[a.ID], byID[b.ID])
				}
			}
		}
		if got, want := traceText(t, mustTrace(t, q)), traceText(t, tr); got != want {
			t.Fatalf("iter %d: trace -> problem -> trace differs:\n%s\nwant\n%s", iter, got, want)
		}
	}
}

// TestViewsRoundTrip: a trace with views becomes a problem whose trace has
// the same peak live bytes, views folded into their storage.
func TestViewsRoundTrip(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader("a,1,10\nv,2,1\nf,1,\na,3,4\nf,2,\nv,4,3\nf,3,\nf,4,\n"), "v")
	if err != nil {
		t.Fatal(err)
	}
	p, err := tr.ToProblem()
	if err != nil {
		t.Fatal(err)
	}
	if lb := p.LoadBound(); lb != 14 {
		t.Fatalf("LB_load = %d, want 14", lb)
	}
	if got, want := traceText(t, mustTrace(t, p)), "a,1,10\na,3,4\nf,1,\nf,3,\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func BenchmarkToTrace1M(b *testing.B) {
	p := randomProblem(rand.New(rand.NewPCG(3, 4)), 1_000_000, 1_000_000)
	b.ResetTimer()
	for b.Loop() {
		p.ToTrace()
	}
}

// mustTrace is p.ToTrace for a problem without forms.
func mustTrace(t testing.TB, p *Problem) *Trace {
	t.Helper()
	tr, err := p.ToTrace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
