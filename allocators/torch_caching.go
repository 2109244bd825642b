package allocators

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"membench/workloads"
)

// torchCaching simulates PyTorch's CUDA caching allocator
// (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator, read at
// 001074d2; its options as c10/core/AllocatorConfig.cpp's
// AcceleratorAllocatorConfig parses PYTORCH_CUDA_ALLOC_CONF) on one device.
// The rules, in our words:
//
//   - Rounding. A request below 512 bytes (kMinBlockSize) becomes 512;
//     others round up to a multiple of 512. With roundup_power2_divisions
//     giving d > 1 for the request's size range, a size above 512*d instead
//     rounds up to the next of d equal steps between the powers of two
//     around it (a power of two stays). The ranges are the 16 powers of two
//     from 1 MiB to 32 GiB: sizes below 2 MiB use the first, sizes of 32 GiB
//     and up the last.
//   - Pools. Rounded sizes up to 1 MiB (kSmallSize) are served from the
//     small pool, larger ones from the large pool. Every stream has its own
//     pair: a cached block is reused only by the stream it was allocated on.
//     Each pool is a set of free blocks ordered by (size, address).
//   - Segments. When no cached block fits, a segment is obtained from the
//     device: 2 MiB (kSmallBuffer) for the small pool, 20 MiB (kLargeBuffer)
//     for large sizes below 10 MiB (kMinLargeAlloc), and the size rounded up
//     to 2 MiB (kRoundLarge) from 10 MiB on.
//   - Best fit. The cached block chosen is the smallest one >= the size,
//     ties broken by address. With max_split_size set, a size below it
//     never takes a cached block of max_split_size or more, and a size of
//     max_split_size or more only takes a block less than
//     max_non_split_rounding (default 20 MiB) larger.
//   - Splitting. The chosen block is split, its front handed out and the
//     rest cached, when the rest is at least 512 bytes in the small pool (or
//     anywhere with expandable segments), or, in the large pool, when the
//     rest exceeds 1 MiB and the size is below max_split_size (so oversize
//     blocks are never split).
//   - Coalescing. A freed block merges with free neighbours of the same
//     segment before it is cached.
//   - Streams. A block used by other streams (record_stream) is not cached
//     when it is freed: it waits for an event on each of those streams, and
//     is cached once all of them have passed (here: at each stream's next
//     sync point after the free). Until then its bytes stay in use.
//   - Expandable segments. With expandable_segments, each stream and pool
//     has segments that reserve address space (1 1/8 of memory_limit, or
//     1 TiB without one) and map physical pages on demand: 2 MiB pages for
//     the small pool, 20 MiB for the large. A request no cached block fits
//     maps just enough pages at the lowest address of a segment where free
//     and unmapped space together fit it, usually the segment's end, so
//     blocks tile one growing segment. Best fit counts a block followed by
//     unmapped space as that much larger, preferring interior blocks.
//     Reserved counts mapped pages; releasing the cache unmaps every wholly
//     free page.
//   - Memory limit. memory_limit plays the role of the per-process memory
//     fraction (and of the device's capacity): a device allocation that
//     would take the reserved bytes past it fails. As upstream, the check
//     is made with the segment size the request would get even when
//     expandable segments map less.
//   - Garbage collection. With memory_limit and garbage_collection_threshold
//     = t set, before asking the device for a segment, if the reserved
//     bytes exceed t*memory_limit, whole cached segments of the large pools
//     whose age (cache lookups since they were cached) is at least the
//     average are given back, pass after pass, until the excess is
//     reclaimed or nothing more can go.
//   - Out of memory. When the device refuses a segment, the allocator first
//     (with max_split_size set) gives back the stream's smallest cached
//     oversize segment that is large enough, or else its largest oversize
//     ones until enough bytes are back, and retries; then it gives back
//     every cached whole segment of every pool (and unmaps the free pages
//     of expandable segments) and retries once more. A request that still
//     fails is an OOM; what was given back stays given back. Upstream also
//     waits for every stream there; a simulation cannot make streams finish
//     early, so frees waiting for other streams keep waiting.
//
// The device is a simulated address space handing out segments first fit by
// address, as cudaMalloc would; every segment is a multiple of 2 MiB, so
// segments are 2 MiB aligned and blocks 512-byte aligned. Reserved counts
// the bytes of live segments.
type torchCaching struct {
	pools  []*tcPools // by stream
	byAddr addrTable  // offset -> id of every block but the merged away
	byID   []*tcBlock // every block made, by id: the handles of the pools' sets
	uses   [][]int32  // by id: the other streams that used the block (record_stream)
	since  []int64    // by id: the pool's lookup count when the block was cached
	// idx mirrors, by id, each block's offset while it is in byAddr, which
	// confirms BFC's address table's tag matches.
	idx      []bfcChunk
	device   fitArena
	limit    int64 // 0: unlimited (no memory fraction set)
	conf     tcConfig
	pending  [][]*tcBlock // by stream: freed blocks waiting for its next sync
	lookups  [2]int64     // cache searches per pool kind: the GC clock
	reserved [2]int64     // bytes reserved per pool kind
	used     [2]int64     // chunk bytes handed out per pool kind
	spare    []*tcBlock   // blocks merged away, for reuse
	stats    statTracker
}

// PyTorch's constants, named as in CUDACachingAllocator.cpp.
const (
	tcMinBlockSize  = 512
	tcSmallSize     = 1 << 20
	tcSmallBuffer   = 2 << 20
	tcLargeBuffer   = 20 << 20
	tcMinLargeAlloc = 10 << 20
	tcRoundLarge    = 2 << 20
	// tcMaxStreams bounds the stream numbers simulated.
	tcMaxStreams = 1 << 16
	// tcAddressSpace is an expandable segment's address space without a
	// memory_limit.
	tcAddressSpace = 1 << 40
)

// Pool kinds.
const (
	tcSmall = 0
	tcLarge = 1
)

// tcBlock is a piece of a segment: allocated, waiting for other streams
// (not allocated, events > 0), cached, or (expandable segments only)
// unmapped. It fills one 64-byte cache line; what only record_stream and
// garbage collection read lives beside it, by id.
type tcBlock struct {
	off, size  int64
	prev, next *tcBlock // neighbours in the same segment
	pool       *tcPool
	seg        *tcExpSeg // nil: a cudaMalloc segment
	id         int32     // index in torchCaching.byID, kept across reuse
	// events counts, while the block is allocated, the other streams that
	// used it (its entries in torchCaching.uses); once its free is
	// requested, those still to pass before the free completes.
	events    int32
	allocated bool
	unmapped  bool
}

func (b *tcBlock) isSplit() bool { return b.prev != nil || b.next != nil }

// free reports whether the block is cached or unmapped: neither handed out
// nor waiting for a stream.
func (b *tcBlock) free() bool { return !b.allocated && b.events == 0 }

// tcExpSeg is an expandable segment: its address range and page size.
type tcExpSeg struct{ base, size, page int64 }

// tcPool is the set of cached (free) blocks of one pool of one stream,
// kept as BFC keeps its free chunks: exact size classes over a bitmap
// (off with expandable segments, whose best fit walks the blocks in
// order) beside a set ordered by (size, offset), with handles into byID.
// Best fit is the smallest size at or above the request, lowest offset
// first: the order of PyTorch's BlockComparatorSize within a stream.
type tcPool struct {
	kind     int
	stream   int32
	classes  sizeClasses
	free     freeSet // cached blocks no class holds
	unmapped ordset  // unmapped ranges of expandable segments: key offset
}

// tcClassStreams is how many streams get size classes (a large pool's
// take 0.5 MiB); the others keep every cached block in the ordered set.
const tcClassStreams = 16

// tcPools are one stream's pools.
type tcPools struct{ small, large tcPool }

func (a *torchCaching) insert(b *tcBlock) {
	if a.conf.gcThreshold > 0 {
		a.since[b.id] = a.lookups[b.pool.kind] // read only by garbage collection
	}
	c := &a.idx[b.id]
	c.size, c.bin = b.size, 0
	if p := b.pool; !p.classes.insert(a.idx, b.id, &p.free) {
		p.free.insert(fentry{size: b.size, addr: b.off, h: b.id})
	}
}

func (a *torchCaching) remove(b *tcBlock) {
	a.idx[b.id].bin = bfcNone
	if p := b.pool; !p.classes.remove(a.idx, b.id) {
		p.free.remove(b.size, b.off)
	}
}

// cachedAt returns the block of the free set entry (bi, i).
func (a *torchCaching) cachedAt(p *tcPool, bi, i int) *tcBlock { return a.byID[p.free.blocks[bi][i].h] }

// eachCached calls f on every cached block of p in (size, offset) order.
func (a *torchCaching) eachCached(p *tcPool, f func(b *tcBlock)) {
	var cached []*tcBlock
	for _, b := range a.byID {
		if a.idx[b.id].bin != bfcNone && b.pool == p {
			cached = append(cached, b)
		}
	}
	slices.SortFunc(cached, func(x, y *tcBlock) int {
		return cmp.Or(cmp.Compare(x.size, y.size), cmp.Compare(x.off, y.off))
	})
	for _, b := range cached {
		f(b)
	}
}

// newBlock returns a zeroed block, reusing one merged away where it can.
func (a *torchCaching) newBlock() *tcBlock {
	if k := len(a.spare); k > 0 {
		b := a.spare[k-1]
		a.spare = a.spare[:k-1]
		return b
	}
	b := &tcBlock{id: int32(len(a.byID))}
	a.byID = append(a.byID, b)
	a.idx = append(a.idx, bfcChunk{bin: bfcNone})
	a.uses = append(a.uses, nil)
	a.since = append(a.since, 0)
	return b
}

// index enters b under its offset; unindex takes it out. A block's offset
// changes only while it is out.
func (a *torchCaching) index(b *tcBlock) {
	a.idx[b.id].addr = b.off
	a.byAddr.put(b.off, b.id)
}

func (a *torchCaching) unindex(b *tcBlock) { a.byAddr.del(b.off, a.idx) }

// at returns the block starting at off, or nil.
func (a *torchCaching) at(off int64) *tcBlock {
	if id, ok := a.byAddr.get(off, a.idx); ok {
		return a.byID[id]
	}
	return nil
}

// dropBlock keeps b, merged away, for reuse.
func (a *torchCaching) dropBlock(b *tcBlock) {
	*b = tcBlock{id: b.id}
	a.spare = append(a.spare, b)
}

// Reset implements Resetter: the allocator returns to its freshly built
// state (nothing reserved) and keeps its tables' memory.
func (a *torchCaching) Reset() {
	for _, sp := range a.pools {
		if sp != nil {
			for _, p := range []*tcPool{&sp.small, &sp.large} {
				p.classes.clear(a.idx)
				p.free.clear()
				p.unmapped.clear()
			}
		}
	}
	a.spare = a.spare[:0]
	for _, b := range a.byID {
		a.dropBlock(b)
		a.idx[b.id].bin = bfcNone
		a.uses[b.id] = a.uses[b.id][:0]
	}
	a.byAddr.clear()
	a.device.free.byAddr.clear()
	a.device.free.bySize.clear()
	a.device.end = 0
	for i := range a.pending {
		a.pending[i] = a.pending[i][:0]
	}
	a.lookups, a.reserved, a.used = [2]int64{}, [2]int64{}, [2]int64{}
	a.stats = statTracker{}
}

func init() {
	Register(Info{
		Name: "torch-caching",
		Doc: "PyTorch's CUDA caching allocator: 512-byte rounding, small (<= 1 MiB, 2 MiB segments) " +
			"and large (20 MiB segments below 10 MiB, 2 MiB rounding above) pools per stream, best fit with splitting, " +
			"coalescing on free, cached segments given back on OOM; PYTORCH_CUDA_ALLOC_CONF options through alloc_conf",
		Params: []workloads.ParamDoc{
			memoryLimitDoc,
			{Name: "alloc_conf", Default: "", Doc: "PYTORCH_CUDA_ALLOC_CONF, whole: max_split_size_mb, max_non_split_rounding_mb, " +
				"roundup_power2_divisions (N or [256:1,512:2,>:8]), garbage_collection_threshold, expandable_segments"},
			{Name: "max_split_size", Default: "0", Doc: "blocks this large or larger are not split (bytes, > 20M); 0 means unlimited"},
			{Name: "roundup_power2_divisions", Default: "0", Doc: "round sizes up to this many steps per power-of-two interval (a power of two; 0 or 1: off)"},
			{Name: "garbage_collection_threshold", Default: "0", Doc: "with memory_limit, reclaim old cached segments once reserved exceeds this fraction of it (0 < t < 1); 0: off"},
		},
		New: newTorchCaching,
	})
}

// tcConfig is the allocator's configuration, PyTorch's defaults when zero
// values are filled by defaultTCConfig.
type tcConfig struct {
	maxSplit            int64 // math.MaxInt64: unlimited
	maxNonSplitRounding int64
	divisions           [tcIntervals]int64
	gcThreshold         float64
	expandable          bool
}

// tcIntervals is kRoundUpPowerOfTwoIntervals: the size ranges of
// roundup_power2_divisions, powers of two from 1 MiB.
const tcIntervals = 16

func defaultTCConfig() tcConfig {
	return tcConfig{maxSplit: math.MaxInt64, maxNonSplitRounding: tcLargeBuffer}
}

func newTorchCaching(args *workloads.Args) (Allocator, error) {
	a := &torchCaching{
		device: fitArena{free: freeList{policy: firstFit}},
		limit:  args.Bytes("memory_limit", 0),
		conf:   defaultTCConfig(),
	}
	conf := args.String("alloc_conf", "")
	maxSplit := args.Bytes("max_split_size", 0)
	divisions := int64(args.Int("roundup_power2_divisions", 0))
	gc := args.Float("garbage_collection_threshold", 0)
	if conf != "" {
		if maxSplit != 0 || divisions != 0 || gc != 0 {
			return nil, workloads.Usagef("torch-caching: alloc_conf and max_split_size, roundup_power2_divisions or garbage_collection_threshold: give the options one way, not both")
		}
		c, err := parseAllocConf(conf)
		if err != nil {
			return nil, workloads.Usagef("torch-caching: alloc_conf=%s: %v", workloads.Echo(conf), err)
		}
		a.conf = c
	} else {
		switch {
		case maxSplit == 0:
		case maxSplit <= tcLargeBuffer:
			return nil, workloads.Usagef("torch-caching: max_split_size=%d: want more than 20M (kLargeBuffer)", maxSplit)
		default:
			a.conf.maxSplit = maxSplit
		}
		if divisions < 0 || (divisions > 1 && divisions&(divisions-1) != 0) {
			return nil, workloads.Usagef("torch-caching: roundup_power2_divisions=%d: want 0 or a power of two", divisions)
		}
		for i := range a.conf.divisions {
			a.conf.divisions[i] = divisions
		}
		if gc < 0 || gc >= 1 {
			return nil, workloads.Usagef("torch-caching: garbage_collection_threshold=%g: want 0 < t < 1 (0: off)", gc)
		}
		a.conf.gcThreshold = gc
	}
	a.pools = []*tcPools{a.newPools(0)}
	return a, nil
}

func (a *torchCaching) newPools(stream int) *tcPools {
	sp := &tcPools{small: tcPool{kind: tcSmall, stream: int32(stream)}, large: tcPool{kind: tcLarge, stream: int32(stream)}}
	if !a.conf.expandable && stream < tcClassStreams {
		sp.small.classes.init(tcSmallBuffer + tcMinBlockSize)
		sp.large.classes.init(classLimit)
	}
	return sp
}

// parseAllocConf reads a PYTORCH_CUDA_ALLOC_CONF string as PyTorch's
// AcceleratorAllocatorConfig::parseArgs does: tokens split at , : [ and ],
// spaces dropped, `key:value` pairs separated by commas. The errors quote
// PyTorch's messages where it has one. Options that do not change where
// memory goes (backend:native, the pinned-memory and locking options) are
// accepted and ignored.
func parseAllocConf(s string) (tcConfig, error) {
	c := defaultTCConfig()
	var toks []string
	var buf strings.Builder
	for _, r := range s {
		switch {
		case r == ',' || r == ':' || r == '[' || r == ']':
			if buf.Len() > 0 {
				toks = append(toks, buf.String())
				buf.Reset()
			}
			toks = append(toks, string(r))
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
		default:
			buf.WriteRune(r)
		}
	}
	if buf.Len() > 0 {
		toks = append(toks, buf.String())
	}
	tok := func(i int) string {
		if i < len(toks) {
			return toks[i]
		}
		return ""
	}
	expect := func(i int, want, after string) error {
		if tok(i) != want {
			if i >= len(toks) {
				return fmt.Errorf("expected %q after %s, got the end of the string", want, after)
			}
			return fmt.Errorf("expected %q after %s, got %q", want, after, tok(i))
		}
		return nil
	}
	// value returns the token after `key:`.
	value := func(i int, key string) (string, error) {
		if err := expect(i+1, ":", key); err != nil {
			return "", err
		}
		if i+2 >= len(toks) || strings.ContainsAny(toks[i+2], ",:[]") {
			return "", fmt.Errorf("expected a value for %s", key)
		}
		return toks[i+2], nil
	}
	size := func(v, key string) (int64, error) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: expected a non-negative integer, got %q", key, v)
		}
		return int64(min(n, math.MaxInt64)), nil
	}
	boolean := func(v string, i int) (bool, error) {
		switch v {
		case "True":
			return true, nil
		case "False":
			return false, nil
		}
		return false, fmt.Errorf("Expected 'True' or 'False' at index %d in ConfigTokenizer but got '%s'", i, v)
	}
	mib := func(key string, i int) (int64, int, error) {
		v, err := value(i, key)
		if err != nil {
			return 0, 0, err
		}
		n, err := size(v, key)
		if err != nil {
			return 0, 0, err
		}
		if n < tcLargeBuffer>>20 {
			return 0, 0, fmt.Errorf("CachingAllocator option %s too small, must be >= %d", key, tcLargeBuffer>>20)
		}
		if n > math.MaxInt64>>20 {
			return math.MaxInt64, i + 2, nil
		}
		return n << 20, i + 2, nil
	}
	for i := 0; i < len(toks); i++ {
		key := toks[i]
		var err error
		switch key {
		case "max_split_size_mb":
			c.maxSplit, i, err = mib(key, i)
		case "max_non_split_rounding_mb":
			c.maxNonSplitRounding, i, err = mib(key, i)
		case "garbage_collection_threshold":
			var v string
			if v, err = value(i, key); err == nil {
				t, perr := strconv.ParseFloat(v, 64)
				switch {
				case perr != nil:
					err = fmt.Errorf("%s: expected a number, got %q", key, v)
				case !(t > 0 && t < 1):
					err = fmt.Errorf("garbage_collect_threshold is invalid, set it in (0.0, 1.0)")
				default:
					c.gcThreshold, i = t, i+2
				}
			}
		case "expandable_segments":
			var v string
			if v, err = value(i, key); err == nil {
				c.expandable, err = boolean(v, i+2)
				i += 2
			}
		case "roundup_power2_divisions":
			i, err = parseDivisions(toks, i, &c.divisions, expect, size)
		case "backend":
			var v string
			if v, err = value(i, key); err == nil {
				if v != "native" && v != "cudaMallocAsync" {
					err = fmt.Errorf("Unknown allocator backend, options are native and cudaMallocAsync")
				} else if v == "cudaMallocAsync" {
					err = fmt.Errorf("backend:cudaMallocAsync is the CUDA driver's allocator, not simulated: use backend:native")
				}
				i += 2
			}
		case "release_lock_on_cudamalloc", "pinned_use_cuda_host_register", "pinned_use_background_threads",
			"graph_capture_record_stream_reuse":
			var v string
			if v, err = value(i, key); err == nil {
				_, err = boolean(v, i+2)
				i += 2
			}
		case "pinned_num_register_threads", "pinned_reserve_segment_size_mb":
			var v string
			if v, err = value(i, key); err == nil {
				_, err = size(v, key)
				i += 2
			}
		default:
			err = fmt.Errorf("Unrecognized key '%s' in CUDA allocator config.", key)
		}
		if err != nil {
			return c, err
		}
		if i+1 < len(toks) {
			if err := expect(i+1, ",", toks[i]); err != nil {
				return c, err
			}
			i++
		}
	}
	return c, nil
}

// parseDivisions reads `roundup_power2_divisions:N` (every range) or
// `roundup_power2_divisions:[B:N,...,>:N]` starting at toks[i] (the key):
// boundary B in MiB, a power of two, sets its range and, for the first
// boundary, all below it; `>` sets every range after the last boundary;
// ranges between boundaries keep 0 (no power-of-two rounding). It returns
// the index of the last token read.
func parseDivisions(toks []string, i int, d *[tcIntervals]int64, expect func(int, string, string) error, size func(string, string) (int64, error)) (int, error) {
	const key = "roundup_power2_divisions"
	if err := expect(i+1, ":", key); err != nil {
		return i, err
	}
	i += 2
	if i >= len(toks) {
		return i, fmt.Errorf("expected a value for %s", key)
	}
	if toks[i] != "[" {
		n, err := size(toks[i], key)
		if err != nil {
			return i, err
		}
		if n == 0 || n&(n-1) != 0 {
			return i, fmt.Errorf("For roundups, the divisions has to be power of 2")
		}
		for k := range d {
			d[k] = n
		}
		return i, nil
	}
	first, last := true, 0
	for i++; i < len(toks) && toks[i] != "]"; i++ {
		bound := toks[i]
		if err := expect(i+1, ":", "the range "+bound); err != nil {
			return i, err
		}
		if i+2 >= len(toks) {
			return i, fmt.Errorf("expected a number of divisions after %s:", bound)
		}
		n, err := size(toks[i+2], key)
		if err != nil {
			return i, err
		}
		if n != 0 && n&(n-1) != 0 {
			return i, fmt.Errorf("For roundups, the divisions has to be power of 2 or 0 to disable roundup")
		}
		i += 2
		if bound == ">" {
			for k := last + 1; k < tcIntervals; k++ {
				d[k] = n
			}
		} else {
			b, err := size(bound, key)
			if err != nil {
				return i, err
			}
			if b == 0 || b&(b-1) != 0 {
				return i, fmt.Errorf("For roundups, the intervals have to be power of 2")
			}
			k := min(bits.Len64(uint64(b))-1, tcIntervals-1)
			if first {
				for j := 0; j < k; j++ {
					d[j] = n
				}
				first = false
			}
			d[k], last = n, k
		}
		if tok := i + 1; tok < len(toks) && toks[tok] != "]" {
			if err := expect(tok, ",", toks[i]); err != nil {
				return i, err
			}
			i++
		}
	}
	if i >= len(toks) {
		return i, fmt.Errorf("Expected closing bracket ']' in ConfigTokenizer but reached end of config")
	}
	return i, nil
}

// divisionsFor is roundup_power2_divisions for a request of size bytes.
func (c *tcConfig) divisionsFor(size int64) int64 {
	k := bits.Len64(uint64(size)) - 1 - 20
	return c.divisions[max(0, min(k, tcIntervals-1))]
}

// roundSize applies the 512-byte or power-of-two-division rounding.
func (a *torchCaching) roundSize(size int64) int64 {
	if size < tcMinBlockSize {
		return tcMinBlockSize
	}
	if d := a.conf.divisionsFor(size); d > 1 && size > tcMinBlockSize*d {
		if size&(size-1) == 0 {
			return size
		}
		floor := int64(1) << (bits.Len64(uint64(size)) - 1)
		step := floor / d
		if down := size &^ (step - 1); down != size {
			return down + step
		}
		return size
	}
	return roundPow2(size, tcMinBlockSize)
}

// segmentSize is the device allocation made for a rounded size.
func segmentSize(size int64) int64 {
	switch {
	case size <= tcSmallSize:
		return tcSmallBuffer
	case size < tcMinLargeAlloc:
		return tcLargeBuffer
	default:
		return roundPow2(size, tcRoundLarge)
	}
}

func (a *torchCaching) streamPools(stream int) *tcPools {
	if stream < len(a.pools) {
		if p := a.pools[stream]; p != nil {
			return p
		}
	} else {
		a.pools = append(a.pools, make([]*tcPools, stream+1-len(a.pools))...)
	}
	p := a.newPools(stream)
	a.pools[stream] = p
	return p
}

func (a *torchCaching) Alloc(orig int64) (Block, error) { return a.AllocOn(orig, 0) }

// AllocOn implements StreamAllocator: the request is served from stream's
// own pools.
func (a *torchCaching) AllocOn(orig int64, stream int) (Block, error) {
	if orig <= 0 {
		return Block{}, badSize("torch-caching", orig)
	}
	if stream < 0 || stream >= tcMaxStreams {
		return Block{}, fmt.Errorf("torch-caching: stream %d: want 0 to %d", stream, tcMaxStreams-1)
	}
	if orig > maxRequest {
		return Block{}, a.stats.oom("torch-caching", orig)
	}
	size := a.roundSize(orig)
	sp := a.streamPools(stream)
	p := &sp.large
	if size <= tcSmallSize {
		p = &sp.small
	}
	b := a.cachedBlock(p, size)
	if b == nil {
		if a.limit > 0 && a.conf.gcThreshold > 0 {
			a.collectGarbage()
		}
		seg := segmentSize(size)
		b = a.newSegment(p, size, seg)
		if b == nil && a.releaseOversize(p, size) {
			b = a.newSegment(p, size, seg)
		}
		if b == nil {
			a.releaseAll()
			b = a.newSegment(p, size, seg)
		}
		if b == nil {
			return Block{}, a.stats.oom("torch-caching", orig)
		}
	}
	if a.shouldSplit(b, size) {
		rest := a.newBlock()
		rest.off, rest.size, rest.pool, rest.seg, rest.prev, rest.next = b.off+size, b.size-size, p, b.seg, b, b.next
		if b.next != nil {
			b.next.prev = rest
		}
		b.next = rest
		b.size = size
		a.index(rest)
		a.insert(rest)
	}
	b.allocated = true
	a.stats.allocated(b.size)
	a.used[p.kind] += b.size
	return Block{Offset: b.off, Size: b.size}, nil
}

// cachedBlock takes the best-fitting cached block for size out of p, or
// returns nil.
func (a *torchCaching) cachedBlock(p *tcPool, size int64) *tcBlock {
	a.lookups[p.kind]++
	if !a.conf.expandable {
		// The head of the first non-empty class at or above size, unless
		// the class spilled into the set, or none is: then the set's
		// first block from there.
		h, from := p.classes.first(size)
		if h >= 0 {
			return a.takeCached(a.byID[h], size)
		}
		if h == bfcNone {
			from = size
		}
		bi, i, ok := p.free.lowerBound(from)
		if !ok {
			return nil
		}
		return a.takeCached(a.cachedAt(p, bi, i), size)
	}
	bi, i, ok := p.free.lowerBound(size)
	if !ok {
		return nil
	}
	b := a.cachedAt(p, bi, i)
	if b.seg != nil {
		// A block followed by unmapped space counts as that much larger:
		// take a later one that is less so.
		for {
			if i++; i == len(p.free.blocks[bi]) {
				if bi, i = bi+1, 0; bi == len(p.free.blocks) {
					break
				}
			}
			nb := a.cachedAt(p, bi, i)
			if b.seg == nil || a.expandableSize(nb) >= a.expandableSize(b) {
				break
			}
			b = nb
		}
	}
	return a.takeCached(b, size)
}

// takeCached takes b, the best fit for size, out of the cache, unless
// max_split_size keeps it for other requests (nil).
func (a *torchCaching) takeCached(b *tcBlock, size int64) *tcBlock {
	if size < a.conf.maxSplit && b.size >= a.conf.maxSplit {
		return nil // an oversize block is kept for oversize requests
	}
	if size >= a.conf.maxSplit && b.size >= size+a.conf.maxNonSplitRounding {
		return nil // too much waste for an oversize request
	}
	a.remove(b)
	return b
}

func (a *torchCaching) expandableSize(b *tcBlock) int64 {
	if b.next != nil && b.next.unmapped {
		return b.size + b.next.size
	}
	return b.size
}

func (a *torchCaching) shouldSplit(b *tcBlock, size int64) bool {
	rest := b.size - size
	if b.pool.kind == tcSmall || a.conf.expandable {
		return rest >= tcMinBlockSize
	}
	return size < a.conf.maxSplit && rest > tcSmallSize
}

// newSegment asks the device for a segment of seg bytes for a request of
// size (rounded) bytes, or with expandable segments maps pages for it, or
// returns nil when that would pass memory_limit. The block returned is
// not cached: the caller takes it.
func (a *torchCaching) newSegment(p *tcPool, size, seg int64) *tcBlock {
	if a.limit > 0 && a.stats.st.Reserved+seg > a.limit {
		return nil
	}
	if a.conf.expandable {
		return a.expandBlock(p, size)
	}
	b := a.newBlock()
	b.off, b.size, b.pool = a.device.alloc(seg), seg, p
	a.index(b)
	a.reserve(p.kind, seg)
	return b
}

func (a *torchCaching) reserve(kind int, n int64) {
	a.stats.reserve(n)
	a.reserved[kind] += n
}

func (a *torchCaching) unreserve(kind int, n int64) {
	a.stats.st.Reserved -= n
	a.reserved[kind] -= n
}

// expandBlock finds the lowest place in p's expandable segments where free
// and unmapped blocks together hold size bytes (making a segment if none
// has room), maps what it needs and returns the block, taken out of the
// cache; nil when the pages do not fit under memory_limit.
func (a *torchCaching) expandBlock(p *tcPool, size int64) *tcBlock {
	c := a.findExpandable(p, size)
	if c.unmapped {
		if c = a.mapBlock(c, min(c.size, size)); c == nil {
			return nil
		}
	}
	for c.size < size {
		next := c.next
		if c = a.mapBlock(next, min(size-c.size, next.size)); c == nil {
			return nil
		}
	}
	a.remove(c)
	return c
}

func (a *torchCaching) findExpandable(p *tcPool, size int64) *tcBlock {
	room := func(b *tcBlock) bool {
		var n int64
		for ; n < size && b != nil && b.free(); b = b.next {
			n += b.size
		}
		return n >= size
	}
	for n := p.unmapped.first(); n != nil; n = p.unmapped.ceil(n.key+1, 0) {
		c := a.at(n.key)
		if c.prev != nil && c.prev.free() {
			c = c.prev
		}
		if room(c) {
			return c
		}
	}
	page := int64(tcSmallBuffer)
	if p.kind == tcLarge {
		page = tcLargeBuffer
	}
	space := int64(tcAddressSpace)
	if a.limit > 0 {
		space = a.limit + a.limit/8
	}
	space = roundPow2(space, tcSmallBuffer)
	space = (space + page - 1) / page * page
	s := &tcExpSeg{base: a.device.alloc(space), size: space, page: page}
	c := a.newBlock()
	c.off, c.size, c.pool, c.seg, c.unmapped = s.base, space, p, s, true
	a.index(c)
	p.unmapped.insert(c.off, 0, 0)
	return c
}

// mapBlock maps the pages covering the first size bytes of the unmapped
// block b, which then merges with free neighbours and is cached; it
// returns the cached block that holds them (nil when the pages would pass
// memory_limit).
func (a *torchCaching) mapBlock(b *tcBlock, size int64) *tcBlock {
	s := b.seg
	pages := (size + s.page - 1) / s.page * s.page
	if a.limit > 0 && a.stats.st.Reserved+pages > a.limit {
		return nil
	}
	p := b.pool
	p.unmapped.remove(b.off, 0)
	b.unmapped = false
	if pages < b.size {
		rest := a.newBlock()
		rest.off, rest.size, rest.pool, rest.seg, rest.unmapped, rest.prev, rest.next = b.off+pages, b.size-pages, p, s, true, b, b.next
		if b.next != nil {
			b.next.prev = rest
		}
		b.next = rest
		b.size = pages
		a.index(rest)
		p.unmapped.insert(rest.off, 0, 0)
	}
	b = a.coalesce(b)
	a.insert(b)
	a.reserve(p.kind, pages)
	return b
}

// coalesce merges b (neither cached nor unmapped-listed) with its
// neighbours where they are free and mapped alike, and returns the block
// that holds them all, out of every set: b's previous neighbour where that
// took b in, which keeps its offset and so its address table entry.
func (a *torchCaching) coalesce(b *tcBlock) *tcBlock {
	if p := b.prev; mergeable(b, p) {
		a.unlist(p)
		a.absorb(p, b)
		b = p
	}
	if n := b.next; mergeable(b, n) {
		a.unlist(n)
		a.absorb(b, n)
	}
	return b
}

func mergeable(b, n *tcBlock) bool { return n != nil && n.free() && n.unmapped == b.unmapped }

// unlist takes the free block b out of its pool's cache or unmapped set.
func (a *torchCaching) unlist(b *tcBlock) {
	if b.unmapped {
		b.pool.unmapped.remove(b.off, 0)
	} else {
		a.remove(b)
	}
}

// absorb makes b take in n, its next neighbour, which is in no set, and
// drops n.
func (a *torchCaching) absorb(b, n *tcBlock) {
	a.unindex(n)
	b.next = n.next
	if b.next != nil {
		b.next.prev = b
	}
	b.size += n.size
	a.dropBlock(n)
}

// releaseSegment gives a cached whole cudaMalloc segment back to the device.
func (a *torchCaching) releaseSegment(b *tcBlock) {
	a.remove(b)
	a.unindex(b)
	a.device.free.put(b.off, b.size)
	a.unreserve(b.pool.kind, b.size)
	a.dropBlock(b)
}

// unmapFree unmaps the wholly free pages of the cached expandable block b,
// and gives the segment's address space back when nothing of it is left
// mapped.
func (a *torchCaching) unmapFree(b *tcBlock) {
	s := b.seg
	lo := s.base + (b.off-s.base+s.page-1)/s.page*s.page
	hi := s.base + (b.off+b.size-s.base)/s.page*s.page
	if lo >= hi {
		return
	}
	p := b.pool
	a.remove(b)
	a.unindex(b) // before may take this offset
	if lo > b.off {
		before := a.newBlock()
		before.off, before.size, before.pool, before.seg, before.prev, before.next = b.off, lo-b.off, p, s, b.prev, b
		if b.prev != nil {
			b.prev.next = before
		}
		b.prev = before
		a.index(before)
		a.insert(before)
	}
	if end := b.off + b.size; hi < end {
		after := a.newBlock()
		after.off, after.size, after.pool, after.seg, after.prev, after.next = hi, end-hi, p, s, b, b.next
		if b.next != nil {
			b.next.prev = after
		}
		b.next = after
		a.index(after)
		a.insert(after)
	}
	b.off, b.size, b.unmapped = lo, hi-lo, true
	a.index(b)
	a.unreserve(p.kind, hi-lo)
	b = a.coalesce(b)
	if !b.isSplit() {
		a.unindex(b)
		a.device.free.put(s.base, s.size)
		a.dropBlock(b)
		return
	}
	p.unmapped.insert(b.off, 0, 0)
}

// releaseOversize gives back p's cached segments of max_split_size or
// more: the smallest one that covers the request, or else the largest ones
// until as many bytes as the request (at least max_split_size) are back.
// It reports whether it freed enough. Oversize cached blocks are whole
// segments, since oversize blocks are never split.
func (a *torchCaching) releaseOversize(p *tcPool, size int64) bool {
	if a.conf.maxSplit == math.MaxInt64 {
		return false
	}
	want := max(size, a.conf.maxSplit)
	if bi, i, ok := p.free.lowerBound(want); ok {
		b := a.cachedAt(p, bi, i)
		if b.isSplit() {
			return false
		}
		a.releaseSegment(b)
		return true
	}
	var released int64
	for p.free.n > 0 && released < want && p.free.last().size >= a.conf.maxSplit {
		b := a.byID[p.free.last().h]
		if b.isSplit() {
			break
		}
		released += b.size
		a.releaseSegment(b)
	}
	return released >= want
}

// releaseAll gives back every cached whole segment of every pool, large
// then small, stream by stream, and unmaps the free pages of expandable
// segments.
func (a *torchCaching) releaseAll() {
	for kind := tcLarge; kind >= tcSmall; kind-- {
		for _, sp := range a.pools {
			if sp == nil {
				continue
			}
			p := &sp.small
			if kind == tcLarge {
				p = &sp.large
			}
			var whole, exp []*tcBlock
			a.eachCached(p, func(b *tcBlock) {
				if b.seg != nil {
					exp = append(exp, b)
				} else if !b.isSplit() {
					whole = append(whole, b)
				}
			})
			for _, b := range whole {
				a.releaseSegment(b)
			}
			for _, b := range exp {
				a.unmapFree(b)
			}
		}
	}
}

// collectGarbage gives back old cached whole segments of the large pools
// while the reserved bytes exceed the threshold.
func (a *torchCaching) collectGarbage() {
	threshold := int64(a.conf.gcThreshold * float64(a.limit))
	if a.stats.st.Reserved <= threshold {
		return
	}
	target := a.stats.st.Reserved - threshold
	var candidates []*tcBlock
	var totalAge float64
	clock := a.lookups[tcLarge]
	for _, sp := range a.pools {
		if sp == nil {
			continue
		}
		a.eachCached(&sp.large, func(b *tcBlock) {
			if !b.isSplit() && b.seg == nil {
				candidates = append(candidates, b)
				totalAge += float64(clock - a.since[b.id])
			}
		})
	}
	count := len(candidates)
	var reclaimed int64
	for freed := true; reclaimed < target && freed && count > 0; {
		ageThreshold := totalAge / float64(count)
		freed = false
		kept := candidates[:0]
		for _, b := range candidates {
			age := float64(clock - a.since[b.id])
			if age < ageThreshold {
				kept = append(kept, b)
				continue
			}
			freed = true
			reclaimed += b.size
			totalAge -= age
			count--
			a.releaseSegment(b)
		}
		candidates = kept
	}
}

// live returns the allocated block at off.
func (a *torchCaching) live(off int64) (*tcBlock, error) {
	b := a.at(off)
	if b == nil || !b.allocated {
		return nil, badFree("torch-caching", off)
	}
	return b, nil
}

// Free frees the block at off at once, whatever streams used it (a free
// that has completed).
func (a *torchCaching) Free(off int64) error {
	b, err := a.live(off)
	if err != nil {
		return err
	}
	b.allocated = false
	if b.events > 0 {
		b.events = 0
		a.uses[b.id] = a.uses[b.id][:0]
	}
	a.cache(b)
	return nil
}

// cache completes the free of b: it merges with its free neighbours and
// joins its pool.
func (a *torchCaching) cache(b *tcBlock) {
	a.stats.freed(b.size)
	a.used[b.pool.kind] -= b.size
	a.insert(a.coalesce(b))
}

// RecordStream implements DeferredFreer: the block at off is used by
// stream (a no-op for its own stream).
func (a *torchCaching) RecordStream(off int64, stream int) error {
	b, err := a.live(off)
	if err != nil {
		return err
	}
	s := int32(stream)
	if s == b.pool.stream {
		return nil
	}
	uses := a.uses[b.id][:b.events]
	for _, u := range uses {
		if u == s {
			return nil
		}
	}
	a.uses[b.id] = append(uses, s)
	b.events++
	return nil
}

// RequestFree implements DeferredFreer: a block no other stream used is
// cached at once; others wait for each of those streams' next sync.
func (a *torchCaching) RequestFree(off int64, stream int) error {
	b, err := a.live(off)
	if err != nil {
		return err
	}
	b.allocated = false
	if b.events == 0 {
		a.cache(b)
		return nil
	}
	// b.events stays: one per stream it now waits for.
	uses := a.uses[b.id][:b.events]
	for _, s := range uses {
		if int(s) >= len(a.pending) {
			a.pending = append(a.pending, make([][]*tcBlock, int(s)+1-len(a.pending))...)
		}
		a.pending[s] = append(a.pending[s], b)
	}
	a.uses[b.id] = uses[:0]
	return nil
}

// Sync implements DeferredFreer: the events of stream's waiting frees
// complete.
func (a *torchCaching) Sync(stream int) {
	if stream < 0 || stream >= len(a.pending) {
		return
	}
	waiting := a.pending[stream]
	for _, b := range waiting {
		if b.events--; b.events == 0 {
			a.cache(b)
		}
	}
	a.pending[stream] = waiting[:0]
}

func (a *torchCaching) Stats() Stats {
	s := a.stats.st
	for _, sp := range a.pools {
		if sp == nil {
			continue
		}
		for _, p := range [...]*tcPool{&sp.small, &sp.large} {
			s.LargestFreeChunk = max(s.LargestFreeChunk, p.classes.largest())
			if p.free.n > 0 {
				s.LargestFreeChunk = max(s.LargestFreeChunk, p.free.last().size)
			}
		}
	}
	return s
}

// Pools implements PoolReporter: the small and large pools, all streams
// together.
func (a *torchCaching) Pools() []PoolBytes {
	return []PoolBytes{
		{Name: "small", Reserved: a.reserved[tcSmall], Allocated: a.used[tcSmall]},
		{Name: "large", Reserved: a.reserved[tcLarge], Allocated: a.used[tcLarge]},
	}
}

// Alignment implements Aligner.
func (a *torchCaching) Alignment() int64 { return tcMinBlockSize }
