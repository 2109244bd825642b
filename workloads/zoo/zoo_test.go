package zoo

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

func build(spec string) (*workloads.Problem, error) {
	sp, err := workloads.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	info, ok := workloads.Lookup(sp.Name)
	if !ok {
		return nil, fmt.Errorf("%s not registered", sp.Name)
	}
	a := workloads.NewArgs(sp)
	p, err := info.New(a)
	if err != nil {
		return nil, err
	}
	return p, a.Check(info.Params)
}

func mustBuild(t *testing.T, spec string) *workloads.Problem {
	t.Helper()
	p, err := build(spec)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return p
}

func total(p *workloads.Problem) int64 {
	var s int64
	for _, b := range p.Buffers {
		s += b.Size
	}
	return s
}

func digest(p *workloads.Problem) string {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range p.Buffers {
		for _, v := range []int64{int64(x.ID), x.Size, int64(x.First), int64(x.Last)} {
			binary.LittleEndian.PutUint64(b[:], uint64(v))
			h.Write(b[:])
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

var models = []string{
	"zoo/mobilenet-v1", "zoo/mobilenet-v2", "zoo/resnet-50", "zoo/inception-v3",
	"zoo/efficientnet-b0", "zoo/bert-base", "zoo/gpt2-small", "zoo/unet",
}

// goldenSpecs: every model at its defaults, then variants of each parameter.
var goldenSpecs = append(slices.Clone(models),
	"zoo/mobilenet-v2?resolution=96",
	"zoo/inception-v3?resolution=75",
	"zoo/resnet-50?batch=8&dtype=int8",
	"zoo/efficientnet-b0?resolution=240&dtype=fp16",
	"zoo/bert-base?seq=512",
	"zoo/gpt2-small?seq=1024",
	"zoo/gpt2-small?mode=decode",
	"zoo/gpt2-small?mode=decode&seq=1000&steps=24&batch=2",
	"zoo/unet?resolution=188",
)

// TestGolden pins tensor counts, totals, LB_load and a hash of every record.
func TestGolden(t *testing.T) {
	var sb strings.Builder
	for _, spec := range goldenSpecs {
		p := mustBuild(t, spec)
		fmt.Fprintf(&sb, "%s\ttensors=%d\ttasks=%d\ttotal=%d\tlb=%d\t%s\n",
			spec, p.Len(), p.MaxTask()+1, total(p), p.LoadBound(), digest(p))
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
	if got := sb.String(); got != string(want) {
		g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(g), len(w)) {
			var gl, wl string
			if i < len(g) {
				gl = g[i]
			}
			if i < len(w) {
				wl = w[i]
			}
			if gl != wl {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, gl, wl)
			}
		}
	}
}

// TFLite's authors: MobileNet v2 has 65 intermediate tensors of 26.3 MB.
func TestMobileNetV2Published(t *testing.T) {
	p := mustBuild(t, "zoo/mobilenet-v2?resolution=224&dtype=fp32&batch=1")
	if p.Len() != 65 {
		t.Errorf("%d tensors, want 65", p.Len())
	}
	mib := float64(total(p)) / (1 << 20)
	if math.Abs(mib-26.3)/26.3 > 0.01 {
		t.Errorf("total %.3f MiB, want 26.3 within 1%%", mib)
	}
	if total(p) != 27_591_112 {
		t.Errorf("total %d bytes, want 27591112", total(p))
	}
}

// Every model at its defaults: records well formed, tasks consecutive,
// every planned tensor read by a later op.
func TestWellFormed(t *testing.T) {
	for _, spec := range goldenSpecs {
		p := mustBuild(t, spec)
		if p.Len() == 0 {
			t.Fatalf("%s: no tensors", spec)
		}
		for i, b := range p.Buffers {
			if b.ID != i || b.First < 0 || b.Last <= b.First || b.Size <= 0 {
				t.Fatalf("%s: buffer %d = %+v", spec, i, b)
			}
			if i > 0 && b.First < p.Buffers[i-1].First {
				t.Fatalf("%s: buffer %d produced at %d before buffer %d at %d", spec, i, b.First, i-1, p.Buffers[i-1].First)
			}
		}
		if !strings.HasPrefix(p.Name, strings.SplitN(spec, "?", 2)[0]+"?batch=") {
			t.Errorf("%s: problem named %q", spec, p.Name)
		}
	}
}

// Sizes scale linearly with batch and element size; lifetimes do not move.
func TestScaling(t *testing.T) {
	for _, m := range models {
		base := mustBuild(t, m)
		for _, v := range []struct {
			params string
			num    int64
			den    int64
		}{{"dtype=fp16", 1, 2}, {"dtype=int8", 1, 4}, {"batch=3", 3, 1}, {"batch=2&dtype=fp16", 1, 1}} {
			p := mustBuild(t, m+"?"+v.params)
			if p.Len() != base.Len() {
				t.Fatalf("%s?%s: %d tensors, want %d", m, v.params, p.Len(), base.Len())
			}
			for i, b := range p.Buffers {
				want := base.Buffers[i]
				want.Size = want.Size * v.num / v.den
				if b != want {
					t.Fatalf("%s?%s: buffer %d = %+v, want %+v", m, v.params, i, b, want)
				}
			}
		}
	}
}

// Decode keeps a cache per layer for K and V that grows one position a
// step and lives from one step's CONCATENATION to the next one's.
func TestGPT2DecodeCache(t *testing.T) {
	const seq, steps = 10, 4
	p := mustBuild(t, fmt.Sprintf("zoo/gpt2-small?mode=decode&seq=%d&steps=%d", seq, steps))
	perPos := int64(gpt2Hidden * 4) // 12 heads x 64, fp32
	count := map[int64]int{}
	for _, b := range p.Buffers {
		for s := int64(seq + 1); s < seq+steps; s++ { // the last step's caches are outputs
			if b.Size == s*perPos {
				count[s]++
			}
		}
	}
	for s := int64(seq + 1); s < seq+steps; s++ {
		if count[s] != 2*gpt2Layers {
			t.Errorf("%d tensors of %d positions, want %d (K and V per layer)", count[s], s, 2*gpt2Layers)
		}
	}
	pre := mustBuild(t, "zoo/gpt2-small?seq=1")
	// A decode step is a one-token prefill without the causal-mask ADD.
	if per := p.Len() - (steps-1)*2*gpt2Layers; per != steps*(pre.Len()-gpt2Layers) {
		t.Errorf("decode has %d non-cache tensors, want %d steps x %d", per, steps, pre.Len()-gpt2Layers)
	}
}

func TestBadParams(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"zoo/mobilenet-v2?dtype=bf16", `zoo/mobilenet-v2: dtype="bf16": want fp32, fp16 or int8`},
		{"zoo/mobilenet-v2?batch=0", "zoo/mobilenet-v2: batch=0 must be in [1, 4096]"},
		{"zoo/mobilenet-v2?batch=x", `parameter batch="x": want an integer`},
		{"zoo/mobilenet-v2?seq=5", `unknown parameter "seq" (valid: batch, dtype, resolution)`},
		{"zoo/inception-v3?resolution=74", "resolution=74 must be in [75, 8192]"},
		{"zoo/unet?resolution=571", "resolution=571 must be 16k+60 in [188, 8192]"},
		{"zoo/unet?resolution=172", "resolution=172 must be 16k+60"},
		{"zoo/bert-base?seq=513", "seq=513 must be in [1, 512]"},
		{"zoo/bert-base?resolution=224", `unknown parameter "resolution" (valid: batch, dtype, seq)`},
		{"zoo/gpt2-small?mode=train", `mode="train": want prefill or decode`},
		{"zoo/gpt2-small?steps=3", "steps applies to mode=decode only"},
		{"zoo/gpt2-small?mode=decode&seq=1000&steps=25", "seq + steps <= 1024 (seq=1000, steps=25)"},
		{"zoo/gpt2-small?mode=decode&steps=0", "decode needs steps >= 1"},
		{"zoo/gpt2-small?seq=1025", "seq=1025 must be in [1, 1024]"},
	} {
		_, err := build(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.spec, err, tc.want)
		}
		if _, ok := err.(*workloads.UsageError); err != nil && !ok {
			t.Errorf("%s: error %T, want *workloads.UsageError", tc.spec, err)
		}
	}
}

// The builder's conventions on a hand-checked graph.
func TestGraphBuilder(t *testing.T) {
	g := NewGraph(2)
	in := g.Input(1, 8, 8, 3)
	a := g.Conv(in, 4, 3, 3, 2, Same)        // op 0: [1,4,4,4]
	b := g.Conv(a, 4, 3, 3, 1, Valid)        // op 1: [1,2,2,4]
	parts := g.Split(g.Reshape(b, 1, 16), 2) // op 2 reshape, op 3 split
	unread := g.Elementwise(a)               // op 4
	out := g.Concat(parts[1], parts[0])      // op 5
	g.Output(out)
	_ = unread
	want := []workloads.Buffer{
		{ID: 0, Size: 64 * 2, First: 0, Last: 4},
		{ID: 1, Size: 16 * 2, First: 1, Last: 2},
		{ID: 2, Size: 16 * 2, First: 2, Last: 3},
		{ID: 3, Size: 8 * 2, First: 3, Last: 5},
		{ID: 4, Size: 8 * 2, First: 3, Last: 5},
		{ID: 5, Size: 64 * 2, First: 4, Last: 4},
	}
	if got := g.Problem("x").Buffers; !slices.Equal(got, want) {
		t.Fatalf("records\n got %+v\nwant %+v", got, want)
	}
}
