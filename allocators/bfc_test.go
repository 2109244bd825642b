package allocators

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"membench/workloads"
)

// bfcFixture is one reference replay (NAME.CONFIG.out) of TensorFlow's BFC.
type bfcFixture struct {
	name   string
	trace  string // the trace file, relative to testdata/bfc
	opt    BFCOptions
	allocs []fixtureAlloc
	stats  map[string]string
	subs   []string // "index off size live" as printed
	chunks []string // "off size requested in_use bin" as printed
}

type fixtureAlloc struct {
	id, size                           int64
	oom, null                          bool
	offset, region, regionOff, chunkSz int64
}

func parseBFCFixture(t *testing.T, path string) *bfcFixture {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fx := &bfcFixture{name: filepath.Base(path), stats: map[string]string{}}
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		fields := strings.Fields(line)
		bad := func() { t.Fatalf("%s:%d: unexpected line %q", path, ln, line) }
		num := func(s string) int64 {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				bad()
			}
			return n
		}
		switch {
		case strings.HasPrefix(line, "# tf-bfc "):
			kv := map[string]string{}
			for _, f := range fields[2:] {
				k, v, _ := strings.Cut(f, "=")
				kv[k] = v
			}
			ff, err := strconv.ParseFloat(kv["fragmentation_fraction"], 64)
			if err != nil {
				bad()
			}
			fx.opt = BFCOptions{
				MemoryLimit:           num(kv["memory_limit"]),
				AllowGrowth:           kv["allow_growth"] == "1",
				GarbageCollection:     kv["garbage_collection"] == "1",
				FragmentationFraction: ff,
				CoalesceRegions:       kv["coalesce_regions"] == "1",
				Alignment:             num(kv["alignment"]),
			}
			fx.trace = kv["trace"]
		case strings.HasPrefix(line, "#"):
		case fields[0] == "a" && len(fields) == 4 && fields[3] == "OOM":
			fx.allocs = append(fx.allocs, fixtureAlloc{id: num(fields[1]), size: num(fields[2]), oom: true, offset: -1})
		case fields[0] == "a" && len(fields) == 4 && fields[3] == "NULL":
			fx.allocs = append(fx.allocs, fixtureAlloc{id: num(fields[1]), size: num(fields[2]), null: true, offset: -1})
		case fields[0] == "a" && len(fields) == 7:
			fx.allocs = append(fx.allocs, fixtureAlloc{id: num(fields[1]), size: num(fields[2]),
				offset: num(fields[3]), region: num(fields[4]), regionOff: num(fields[5]), chunkSz: num(fields[6])})
		case fields[0] == "subregion" && len(fields) == 8:
			fx.subs = append(fx.subs, strings.Join([]string{fields[1], fields[3], fields[5], fields[7]}, " "))
		case fields[0] == "chunk" && len(fields) == 6:
			fx.chunks = append(fx.chunks, strings.Join(fields[1:], " "))
		case len(fields) == 2:
			fx.stats[fields[0]] = fields[1]
		default:
			bad()
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if fx.trace == "" {
		t.Fatalf("%s: no configuration line", path)
	}
	return fx
}

// readTraceFile reads a trace with the workloads package's reader.
func readTraceFile(t testing.TB, path string) *workloads.Trace {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := workloads.ReadTrace(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func bfcFixtures(t *testing.T) []*bfcFixture {
	t.Helper()
	paths, err := filepath.Glob("testdata/bfc/*.out")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/bfc: %v", err)
	}
	var fxs []*bfcFixture
	for _, p := range paths {
		fxs = append(fxs, parseBFCFixture(t, p))
	}
	return fxs
}

// regionOf returns the index of the live device allocation holding addr.
func (d *device) regionOf(addr int64) int64 {
	for i := len(d.subs) - 1; i >= 0; i-- {
		if s := d.subs[i]; s.live && s.addr <= addr && addr < s.addr+s.size {
			return int64(i)
		}
	}
	return -1
}

// TestBFCGolden replays every reference trace under every configuration
// and compares each allocation, the final counters, the device's
// subregions and the final chunk map with TensorFlow's own output.
func TestBFCGolden(t *testing.T) {
	for _, fx := range bfcFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			tr := readTraceFile(t, filepath.Join("testdata/bfc", fx.trace))
			b, err := NewBFC(fx.opt)
			if err != nil {
				t.Fatal(err)
			}
			live := map[int]int64{} // trace id -> offset (-1: failed)
			k := 0
			for _, ev := range tr.Events {
				switch ev.Kind {
				case workloads.Alloc:
					want := fx.allocs[k]
					k++
					if int64(ev.ID) != want.id || ev.Size != want.size {
						t.Fatalf("fixture request %d is a %d %d, trace has %d %d", k, want.id, want.size, ev.ID, ev.Size)
					}
					if ev.Size == 0 {
						live[ev.ID] = -1
						if !want.null {
							t.Fatalf("alloc %d: zero bytes, want %+v", ev.ID, want)
						}
						continue
					}
					blk, err := b.Alloc(ev.Size)
					if errors.Is(err, ErrOOM) {
						live[ev.ID] = -1
						if !want.oom {
							t.Fatalf("alloc %d (%d B): OOM, want %+v", ev.ID, ev.Size, want)
						}
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					live[ev.ID] = blk.Offset
					got := fixtureAlloc{id: want.id, size: want.size, offset: blk.Offset, chunkSz: blk.Size,
						region: b.dev.regionOf(blk.Offset)}
					got.regionOff = blk.Offset - b.dev.subs[got.region].addr
					if got != want {
						t.Fatalf("alloc %d (%d B):\n got offset %d region %d+%d chunk %d\nwant offset %d region %d+%d chunk %d (oom %v)",
							ev.ID, ev.Size, got.offset, got.region, got.regionOff, got.chunkSz,
							want.offset, want.region, want.regionOff, want.chunkSz, want.oom)
					}
				case workloads.Free:
					off := live[ev.ID]
					delete(live, ev.ID)
					if off >= 0 {
						if err := b.Free(off); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if k != len(fx.allocs) {
				t.Fatalf("trace has %d requests, fixture %d", k, len(fx.allocs))
			}
			checkBFCState(t, b, fx)
		})
	}
}

func checkBFCState(t *testing.T, b *BFC, fx *bfcFixture) {
	t.Helper()
	st := b.Stats()
	var free, used int
	var chunks []string
	for _, r := range b.regions {
		for h := r.first; h != bfcNone; h = b.chunks[h].next {
			c := b.chunks[h]
			inUse := 0
			if c.inUse {
				inUse, used = 1, used+1
			} else {
				free++
			}
			chunks = append(chunks, fmt.Sprintf("%d %d %d %d %d", c.addr, c.size, b.requested[h], inUse, c.bin))
		}
	}
	var subs []string
	liveSubs, freed := 0, 0
	for i, s := range b.dev.subs {
		l := 0
		if s.live {
			l, liveSubs = 1, liveSubs+1
		} else {
			freed++
		}
		subs = append(subs, fmt.Sprintf("%d %d %d %d", i, s.addr, s.size, l))
	}
	got := map[string]int64{
		"ooms": st.OOMs, "num_allocs": st.NumAllocs, "bytes_in_use": st.InUse,
		"peak_bytes_in_use": st.PeakInUse, "largest_alloc_size": b.largestAlloc,
		"bytes_limit": b.opt.MemoryLimit, "pool_bytes": st.Reserved, "peak_pool_bytes": st.PeakReserved,
		"largest_free_chunk": st.LargestFreeChunk, "free_chunks": int64(free), "used_chunks": int64(used),
		"suballoc_alloc_calls": int64(len(b.dev.subs)), "suballoc_free_calls": int64(freed),
		"live_subregions": int64(liveSubs), "curr_region_allocation_bytes": b.curr,
	}
	for k, v := range got {
		if want := fx.stats[k]; want != strconv.FormatInt(v, 10) {
			t.Errorf("%s = %d, want %s", k, v, want)
		}
	}
	wantFrag := math.NaN()
	if s := fx.stats["fragmentation"]; s != "-nan" && s != "nan" {
		var err error
		if wantFrag, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatalf("fragmentation %q: %v", s, err)
		}
	}
	if gotFrag := b.Fragmentation(); !(gotFrag == wantFrag || math.IsNaN(gotFrag) && math.IsNaN(wantFrag)) {
		t.Errorf("fragmentation = %v, want %v", gotFrag, wantFrag)
	}
	if strings.Join(subs, "\n") != strings.Join(fx.subs, "\n") {
		t.Errorf("subregions:\n%s\nwant:\n%s", strings.Join(subs, "\n"), strings.Join(fx.subs, "\n"))
	}
	if strings.Join(chunks, "\n") != strings.Join(fx.chunks, "\n") {
		t.Errorf("chunk map:\n%s\nwant:\n%s", strings.Join(chunks, "\n"), strings.Join(fx.chunks, "\n"))
	}
}

func TestBFCSpecs(t *testing.T) {
	tests := []struct {
		spec string
		want BFCOptions
		err  string
	}{
		{"bfc", BFCOptions{MemoryLimit: 16 << 30, AllowGrowth: true, Alignment: 256}, ""},
		{"bfc?memory_limit=1G&allow_growth=false&garbage_collection=true&fragmentation_fraction=0.01&coalesce_regions=1&alignment=4K",
			BFCOptions{MemoryLimit: 1 << 30, GarbageCollection: true, FragmentationFraction: 0.01, CoalesceRegions: true, Alignment: 4096}, ""},
		{"bfc?bogus=1", BFCOptions{}, `bfc: unknown parameter "bogus" (valid: alignment, allow_growth, coalesce_regions, fragmentation_fraction, garbage_collection, memory_limit)`},
		{"bfc?memory_limit=lots", BFCOptions{}, `bfc: parameter memory_limit="lots": want a byte size`},
		{"bfc?memory_limit=100", BFCOptions{}, "bfc: memory_limit=100: want 256 to 4503599627370496 bytes"},
		{"bfc?memory_limit=8192T", BFCOptions{}, "bfc: memory_limit=9007199254740992: want 256 to"},
		{"bfc?alignment=48", BFCOptions{}, "bfc: alignment=48: want a power of two"},
		{"bfc?fragmentation_fraction=-1", BFCOptions{}, "bfc: fragmentation_fraction=-1: want >= 0"},
	}
	for _, tc := range tests {
		f, err := Lookup(tc.spec)
		if tc.err != "" {
			var ue *workloads.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Lookup(%q) err = %v, want UsageError with %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Lookup(%q): %v", tc.spec, err)
		}
		if got := f.New().(*BFC).opt; got != tc.want {
			t.Errorf("Lookup(%q) options %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}

func TestBFCErrorsAndNaN(t *testing.T) {
	b, err := NewBFC(BFCOptions{MemoryLimit: 1 << 20, Alignment: 256})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(b.Fragmentation()) {
		t.Errorf("fragmentation with no regions = %v, want NaN", b.Fragmentation())
	}
	blk, err := b.Alloc(1 << 20)
	if err != nil || blk != (Block{0, 1 << 20}) {
		t.Fatalf("Alloc(1M) = %+v, %v", blk, err)
	}
	if !math.IsNaN(b.Fragmentation()) {
		t.Errorf("fragmentation of a full pool = %v, want NaN", b.Fragmentation())
	}
	before := b.Stats()
	if _, err := b.Alloc(1); !errors.Is(err, ErrOOM) {
		t.Errorf("Alloc past the limit: %v, want ErrOOM", err)
	}
	if after := b.Stats(); after.OOMs != 1 || after.InUse != before.InUse || after.Reserved != before.Reserved {
		t.Errorf("stats after OOM %+v, before %+v", after, before)
	}
	for _, off := range []int64{256, -1, 1 << 30} {
		if err := b.Free(off); !errors.Is(err, ErrBadFree) {
			t.Errorf("Free(%d) = %v, want ErrBadFree", off, err)
		}
	}
	if err := b.Free(0); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(0); !errors.Is(err, ErrBadFree) {
		t.Errorf("double free = %v, want ErrBadFree", err)
	}
	if _, err := b.Alloc(math.MaxInt64); !errors.Is(err, ErrOOM) || b.Stats().OOMs != 2 {
		t.Errorf("Alloc(MaxInt64) = %v, want ErrOOM", err)
	}
	if _, err := b.Alloc(0); err == nil || errors.Is(err, ErrOOM) {
		t.Errorf("Alloc(0) = %v, want a non-OOM error", err)
	}
	if f := b.Fragmentation(); f != 0 {
		t.Errorf("fragmentation of one free region = %v, want 0", f)
	}
}

// TestBFCLargeAlignment follows the padding rule for alignments above 256:
// the unaligned prefix of a chunk is split off as a free chunk of its own.
func TestBFCLargeAlignment(t *testing.T) {
	b, err := NewBFC(BFCOptions{MemoryLimit: 1 << 20, Alignment: 4096})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for range 3 {
		blk, err := b.Alloc(256)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, blk.Offset)
	}
	// The second request pads [256, 4096) off; that 3840-byte chunk cannot
	// hold an aligned 256 bytes, so the third pads [4352, 8192) off.
	if want := []int64{0, 4096, 8192}; !slices.Equal(got, want) {
		t.Errorf("offsets %v, want %v", got, want)
	}
	if b.bins[binFor(3840)].n != 2 {
		t.Errorf("want the two 3840-byte padding chunks free, bin holds %d", b.bins[binFor(3840)].n)
	}
}

// checkInvariants walks every region: chunks tile it, no two neighbours
// are both free, free chunks sit in the right bin, and the counters agree.
func (b *BFC) checkInvariants() error {
	var pool, inUse, free int64
	nFree := 0
	for i, r := range b.regions {
		if i > 0 && b.regions[i-1].addr+b.regions[i-1].size > r.addr {
			return fmt.Errorf("regions %d and %d overlap", i-1, i)
		}
		pool += r.size
		at, prev := r.addr, int32(bfcNone)
		for h := r.first; h != bfcNone; h = b.chunks[h].next {
			c := b.chunks[h]
			switch {
			case c.addr != at || c.prev != prev:
				return fmt.Errorf("region %d: chunk %d at %d (prev %d), want %d (prev %d)", i, h, c.addr, c.prev, at, prev)
			case c.inUse && c.bin != bfcNone:
				return fmt.Errorf("in-use chunk at %d is in bin %d", c.addr, c.bin)
			case !c.inUse && int(c.bin) != binFor(c.size):
				return fmt.Errorf("free chunk at %d of %d bytes in bin %d", c.addr, c.size, c.bin)
			case !c.inUse && prev != bfcNone && !b.chunks[prev].inUse:
				return fmt.Errorf("free chunks at %d and %d not coalesced", b.chunks[prev].addr, c.addr)
			}
			if c.inUse {
				inUse += c.size
			} else {
				nFree++
				free = max(free, c.size)
			}
			at, prev = c.addr+c.size, h
		}
		if at != r.addr+r.size {
			return fmt.Errorf("region %d ends at %d, its chunks at %d", i, r.addr+r.size, at)
		}
	}
	n := 0
	for i := range b.bins {
		n += b.bins[i].n
		if (b.bins[i].n > 0) != (b.nonEmpty&(1<<i) != 0) {
			return fmt.Errorf("bin %d holds %d, bitmap %b", i, b.bins[i].n, b.nonEmpty)
		}
	}
	st := b.Stats()
	if pool != st.Reserved || inUse != st.InUse || free != st.LargestFreeChunk || n != nFree || b.live.n != int(b.numAllocs)-countFreed(b) {
		return fmt.Errorf("pool %d in use %d largest free %d free chunks %d, stats %+v, bins hold %d", pool, inUse, free, nFree, st, n)
	}
	return nil
}

func countFreed(b *BFC) int {
	used := 0
	for _, r := range b.regions {
		for h := r.first; h != bfcNone; h = b.chunks[h].next {
			if b.chunks[h].inUse {
				used++
			}
		}
	}
	return int(b.numAllocs) - used
}

// TestBFCInvariants drives random traces through every combination of
// growth, garbage collection and region coalescing under small limits,
// so OOMs and collections happen, checking the chunk structure after
// every call and the memory contents through a Verifier.
func TestBFCInvariants(t *testing.T) {
	for _, limit := range []int64{4 << 20, 16 << 20} {
		for cfg := range 16 {
			o := BFCOptions{MemoryLimit: limit, AllowGrowth: cfg&1 != 0, GarbageCollection: cfg&2 != 0,
				CoalesceRegions: cfg&4 != 0, Alignment: 256}
			if cfg&8 != 0 {
				o.FragmentationFraction, o.Alignment = 0.01, 1024
			}
			t.Run(fmt.Sprintf("%d/%+v", limit, o), func(t *testing.T) {
				b := mustBFC(t, o)
				v := Verify(b)
				tr := randomTrace(4000, int(limit>>17), uint64(cfg))
				offs := map[int]int64{}
				for i, ev := range tr.Events {
					if ev.Kind == workloads.Alloc {
						blk, err := v.Alloc(ev.Size)
						switch {
						case errors.Is(err, ErrOOM):
							continue
						case err != nil:
							t.Fatalf("event %d: %v", i, err)
						case blk.Offset%b.Alignment() != 0:
							t.Fatalf("event %d: offset %d not aligned to %d", i, blk.Offset, b.Alignment())
						}
						offs[ev.ID] = blk.Offset
					} else if off, ok := offs[ev.ID]; ok {
						delete(offs, ev.ID)
						if err := v.Free(off); err != nil {
							t.Fatalf("event %d: %v", i, err)
						}
					}
					if err := b.checkInvariants(); err != nil {
						t.Fatalf("event %d (%+v): %v", i, ev, err)
					}
				}
				if err := v.Check(); err != nil {
					t.Fatal(err)
				}
				if st := b.Stats(); st.OOMs == 0 || st.InUse != 0 || st.PeakReserved > limit {
					t.Errorf("want OOMs, nothing in use at the end and at most the limit reserved: %+v", st)
				}
			})
		}
	}
}

// TestBFCHugeFragmentationThreshold: where fragmentation_fraction ×
// memory_limit reaches 2^63, TensorFlow's threshold overflows int64 and,
// compared unsigned, is never reached, so only the "at least twice the
// request" rule splits. A 600 MiB request in a fixed 1 GiB region then
// takes the whole region, as with a threshold above the waste; a small
// fraction splits it.
func TestBFCHugeFragmentationThreshold(t *testing.T) {
	const limit = 1 << 30
	for _, tc := range []struct {
		frac  float64
		chunk int64 // of the 600 MiB request
	}{
		{0.1, 600 << 20}, // threshold 102.4 MiB < waste 424 MiB: split
		{1, limit},       // threshold 1 GiB > waste: whole region
		{1 << 33, limit}, // product exactly 2^63: never splits
		{1e10, limit},    // product 1.07e19 > 2^63: never splits
		{1.7e308, limit}, // product +Inf: never splits
		{1 << 32, limit}, // product 2^62 fits: a threshold above the waste
	} {
		b, err := NewBFC(BFCOptions{MemoryLimit: limit, FragmentationFraction: tc.frac, Alignment: 256})
		if err != nil {
			t.Fatal(err)
		}
		blk, err := b.Alloc(600 << 20)
		if err != nil || blk != (Block{0, tc.chunk}) {
			t.Errorf("fraction %g: Alloc(600M) = %+v, %v; want chunk %d at 0", tc.frac, blk, err, tc.chunk)
		}
		// Twice the request always splits, whatever the threshold.
		b.Reset()
		if blk, err := b.Alloc(256 << 20); err != nil || blk != (Block{0, 256 << 20}) {
			t.Errorf("fraction %g: Alloc(256M) = %+v, %v; want a split chunk of 256M", tc.frac, blk, err)
		}
	}
}
