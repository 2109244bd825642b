package synthetic

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membench/workloads"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

// build loads a registered spec the way the loader does.
func build(t testing.TB, spec string) (*workloads.Problem, error) {
	t.Helper()
	sp, err := workloads.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	info, ok := workloads.Lookup(sp.Name)
	if !ok {
		t.Fatalf("%s not registered", sp.Name)
	}
	a := workloads.NewArgs(sp)
	p, err := info.New(a)
	if err != nil {
		return nil, err
	}
	return p, a.Check(info.Params)
}

func mustBuild(t testing.TB, spec string) *workloads.Problem {
	t.Helper()
	p, err := build(t, spec)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return p
}

// digest hashes the records, alignment and capacity (FNV-1a, little endian).
func digest(p *workloads.Problem) string {
	h := fnv.New64a()
	var b [8]byte
	put := func(v int64) {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	put(p.Alignment)
	put(p.Capacity)
	for _, x := range p.Buffers {
		put(int64(x.ID))
		put(x.Size)
		put(int64(x.First))
		put(int64(x.Last))
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// checkWellFormed asserts the invariants every family keeps: ID = index,
// 0 <= First <= Last, sizes > 0.
func checkWellFormed(t *testing.T, p *workloads.Problem) {
	t.Helper()
	for i, b := range p.Buffers {
		if b.ID != i || b.First < 0 || b.First > b.Last || b.Size <= 0 {
			t.Fatalf("%s: buffer %d = %+v", p.Name, i, b)
		}
	}
}

// goldenSpecs are hashed into testdata/golden.txt; a change in any
// generator's output shows up here.
var goldenSpecs = []string{
	"synthetic/random-dag",
	"synthetic/random-dag?n=300&seed=11",
	"synthetic/random-dag?n=40&seed=1&k=4",
	"synthetic/random-dag?n=200&seed=7&k=8&outputs=2",
	"synthetic/random-dag?n=5000&seed=3&min=16&max=1M&outputs=3",
	"synthetic/chain",
	"synthetic/chain?n=50&seed=2&min=16&max=64",
	"synthetic/random-intervals",
	"synthetic/random-intervals?n=3000&seed=5&tasks=100&maxlen=1000&min=4&max=4K",
	"synthetic/repeated-shapes",
	"synthetic/repeated-shapes?n=777&seed=3&k=2&block=10&min=64&max=128",
	"synthetic/adversarial-greedy",
	"synthetic/adversarial-greedy?n=5000&seed=7&tasks=200&capacity=64K",
	"synthetic/tiling",
	"synthetic/tiling?n=500&seed=2&sizes=uniform&time-cut=800",
	"synthetic/tiling?n=2000&seed=3&sizes=zipf&capacity=64K&min=4",
	"synthetic/tiling?n=300&seed=4&sizes=dominant&dominant=60",
	"synthetic/pinwheel",
	"synthetic/pinwheel?n=777&seed=3&sizes=bimodal&tasks=100&min=16",
	"synthetic/tiling-contention",
	"synthetic/pinwheel-contention?sizes=dominant&dominant=50",
}

func TestGolden(t *testing.T) {
	var sb strings.Builder
	for _, spec := range goldenSpecs {
		p := mustBuild(t, spec)
		checkWellFormed(t, p)
		fmt.Fprintf(&sb, "%s\tn=%d\ttasks=%d\tlb=%d\t%s\n", spec, p.Len(), p.MaxTask()+1, p.LoadBound(), digest(p))
	}
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	got := strings.Split(sb.String(), "\n")
	for i, w := range strings.Split(string(want), "\n") {
		if i >= len(got) || got[i] != w {
			g := ""
			if i < len(got) {
				g = got[i]
			}
			t.Errorf("golden line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	if len(got) != len(strings.Split(string(want), "\n")) {
		t.Errorf("golden has %d lines, generated %d", len(strings.Split(string(want), "\n")), len(got))
	}
}

func TestDeterministic(t *testing.T) {
	for _, spec := range goldenSpecs {
		if a, b := digest(mustBuild(t, spec)), digest(mustBuild(t, spec)); a != b {
			t.Errorf("%s: two builds differ: %s vs %s", spec, a, b)
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"synthetic/random-dag?bogus=1", `unknown parameter "bogus" (valid: k, max, min, n, outputs, seed)`},
		{"synthetic/random-dag?n=x", `parameter n="x": want an integer`},
		{"synthetic/random-dag?n=-1", "n=-1 must be in [0, 100000000]"},
		{"synthetic/random-dag?min=0", "size range [0, 67108864] must satisfy 1 <= min <= max"},
		{"synthetic/random-dag?min=2M&max=1M", "must satisfy 1 <= min <= max"},
		{"synthetic/random-dag?min=1&max=3", "holds no multiple of 4"},
		{"synthetic/random-dag?min=4&max=12&k=4", "k=4 distinct sizes do not fit in [4, 12] in steps of 4"},
		{"synthetic/random-dag?outputs=0", "outputs=0 must be >= 1"},
		{"synthetic/random-dag?k=2000000", "k=2000000 must be in [0, 1048576]"},
		{"synthetic/chain?max=1", "must satisfy 1 <= min <= max"},
		{"synthetic/chain?k=1", `unknown parameter "k" (valid: max, min, n, seed)`},
		{"synthetic/random-intervals?tasks=0", "tasks=0 must be in [1, 100000000]"},
		{"synthetic/random-intervals?maxlen=0", "maxlen=0 must be >= 1"},
		{"synthetic/repeated-shapes?k=0", "k=0 must be >= 1"},
		{"synthetic/repeated-shapes?block=0", "block=0 must be in [1, 1048576]"},
		{"synthetic/adversarial-greedy?n=100&tasks=3&capacity=10", "n=100 exceeds the 30 task-byte cells of tasks x capacity"},
		{"synthetic/adversarial-greedy?capacity=0", "capacity=0 must be >= 1"},
		{"synthetic/adversarial-greedy?seed=1.5", `parameter seed="1.5": want an integer`},
		{"synthetic/tiling?sizes=normal", `sizes="normal": want one of [uniform log-uniform zipf bimodal dominant]`},
		{"synthetic/tiling?n=100&tasks=3&capacity=10&min=1", "n=100 exceeds the 30 blocks that tasks x capacity surely holds"},
		{"synthetic/pinwheel?min=0", "min=0 must be in [1, capacity=1048576]"},
		{"synthetic/pinwheel?min=2M", "min=2097152 must be in [1, capacity=1048576]"},
		{"synthetic/tiling?dominant=100", "dominant=100 must be in [1, 99]"},
		{"synthetic/tiling?sizes=dominant&n=3", "sizes=dominant needs tasks >= 3, n >= 4"},
		{"synthetic/tiling-contention?time-cut=1001", "time-cut=1001 must be in [0, 1000]"},
		{"synthetic/pinwheel-contention?tasks=0", "tasks=0 must be in [1, 100000000]"},
	} {
		_, err := build(t, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.spec, err, tc.want)
		}
		if _, ok := err.(*workloads.UsageError); err != nil && !ok {
			t.Errorf("%s: error %T, want *workloads.UsageError", tc.spec, err)
		}
	}
}
