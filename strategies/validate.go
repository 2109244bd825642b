package strategies

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// Bounds are the lower bounds on a problem's footprint.
type Bounds struct {
	// Load is LB_load: the peak of live bytes over tasks. With gaps it
	// counts, at each task, only the bytes in use (a gap's window, or
	// none), and at least each buffer's size; with several memory spaces
	// it is the sum of Loads (workloads.Problem.SpaceLoads).
	Load int64
	// Objects is LB_objects: the sum of TFLite's positional maximums,
	// summed over the memory spaces.
	Objects int64
	// Loads[m] is LB_load of memory space m, for a problem with several
	// spaces (workloads.FormMemories); nil otherwise.
	Loads []int64
}

// LowerBounds computes the lower bounds of p.
func LowerBounds(p *workloads.Problem) Bounds {
	if p.Spaces == nil && p.Memories == nil {
		var objs int64
		for _, m := range PositionalMaximums(p.Buffers) {
			objs += m
		}
		return Bounds{Load: p.LoadBound(), Objects: objs}
	}
	var b Bounds
	b.Loads = p.SpaceLoads()
	for _, l := range b.Loads {
		b.Load += l
	}
	subs, _ := SpaceProblems(p)
	for _, sp := range subs {
		for _, m := range PositionalMaximums(sp.Buffers) {
			b.Objects += m
		}
	}
	if p.Forms()&workloads.FormMemories == 0 {
		b.Loads = nil
	}
	return b
}

// Validate's errors wrap one of these, so callers can tell a bad input
// (ErrInvalidProblem) from a planner's mistake (ErrInvalidPlan).
var (
	ErrInvalidProblem = errors.New("invalid problem")
	ErrInvalidPlan    = errors.New("invalid plan")
)

func problemErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidProblem, fmt.Sprintf(format, args...))
}

func planErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidPlan, fmt.Sprintf(format, args...))
}

// Validate checks plan against p and returns an error describing the first
// violation found, or nil. A plan is valid iff it has one non-negative,
// aligned offset per buffer, no two conflicting buffers overlap in
// [offset, offset+size) (zero-size buffers overlap nothing), object plans
// lay their objects out as ObjectsToOffsets does with objects that cover
// their tensors, and Footprint is max(offset+size).
//
// The problem forms (DESIGN §15) add: the problem must pass
// workloads.CheckForms; each buffer's own alignment replaces the
// problem's; a fixed offset is kept; two buffers with gaps, or one with
// gaps and one without, conflict by the gap rule (workloads.Collide);
// buffers overlap only within one memory space, where offsets are
// relative to the space; and for several spaces Footprints holds each
// space's max(offset+size), within its capacity, and Footprint their
// sum. (Object plans are checked space by space.) A problem of textures
// or BHWC shapes adds validateShapes' checks.
//
// It runs in O(n log n): a sweep over time keeps the address ranges of the
// live buffers in an ordered set, and each new buffer is compared with the
// live range that starts last below its end. Buffers with gaps take an
// exact path instead: each is compared with every buffer of its space,
// O(n) apiece.
func Validate(p *workloads.Problem, plan *Plan) error {
	if p == nil {
		return problemErr("nil problem")
	}
	if plan == nil {
		return planErr("nil plan")
	}
	bufs := p.Buffers
	n := len(bufs)
	if p.Alignment < 0 {
		return problemErr("alignment %d is negative", p.Alignment)
	}
	for i, b := range bufs {
		if b.Size < 0 {
			return problemErr("buffer %d has negative size %d", i, b.Size)
		}
		if b.First > b.Last {
			return problemErr("buffer %d has first task %d > last task %d", i, b.First, b.Last)
		}
	}
	if err := workloads.CheckForms(p); err != nil {
		return problemErr("%v", err)
	}
	if len(plan.Offsets) != n {
		return planErr("%d offsets for %d buffers", len(plan.Offsets), n)
	}
	align := p.Alignment
	// fps[m] is space m's max(offset+size); one space without Memories.
	fps := make([]int64, max(len(p.Memories), 1))
	// held[m]: the same over buffers of positive size, the bytes a
	// runtime's arena must hold (a zero-size buffer takes none, wherever
	// it sits: TFLite Micro, for one, leaves such tensors unplanned).
	held := make([]int64, len(fps))
	for i, off := range plan.Offsets {
		if off < 0 {
			return planErr("buffer %d has negative offset %d", i, off)
		}
		if p.Aligns != nil {
			align = p.AlignOf(i)
		}
		if align > 1 && off%align != 0 {
			return planErr("buffer %d has offset %d, not a multiple of the alignment %d", i, off, align)
		}
		if fixed, ok := p.FixedOf(i); ok && off != fixed {
			return planErr("buffer %d has offset %d, not its fixed offset %d", i, off, fixed)
		}
		size := bufs[i].Size
		if off > math.MaxInt64-size {
			return planErr("buffer %d: offset %d + size %d overflows int64", i, off, size)
		}
		m := p.MemoryOf(i)
		fps[m] = max(fps[m], off+size)
		if size > 0 {
			held[m] = max(held[m], off+size)
		}
	}
	if plan.IsObjects() || plan.ObjectSizes != nil {
		if err := validateSpaceObjects(p, plan); err != nil {
			return err
		}
	}
	if err := validateShapes(p, plan); err != nil {
		return err
	}
	fp, err := validateFootprints(p, plan, fps)
	if err != nil {
		return err
	}
	// A runtime's own arena holds every buffer: it can only add rounding.
	if need := arenaNeed(p, held); plan.Arena < 0 || plan.Arena != 0 && plan.Arena < need {
		if need == fp {
			return planErr("arena %d is below the footprint %d", plan.Arena, fp)
		}
		return planErr("arena %d is below the %d bytes the buffers of positive size reach", plan.Arena, need)
	}
	if p.Gaps == nil && p.Spaces == nil {
		return sweep(bufs, plan.Offsets, nil)
	}
	return sweepForms(p, plan.Offsets)
}

// validateFootprints checks Footprint, and Footprints for a problem with
// several memory spaces, against fps, each space's max(offset+size), and
// returns the footprint.
func validateFootprints(p *workloads.Problem, plan *Plan, fps []int64) (int64, error) {
	if p.Forms()&workloads.FormMemories == 0 {
		fp := fps[0]
		for _, f := range fps[1:] {
			fp = max(fp, f)
		}
		if plan.Footprints != nil && (len(plan.Footprints) != 1 || plan.Footprints[0] != fp) {
			return 0, planErr("footprints %v for a problem with one memory space, want none or [%d]", plan.Footprints, fp)
		}
		if plan.Footprint != fp {
			return 0, planErr("footprint %d, want max(offset+size) = %d", plan.Footprint, fp)
		}
		return fp, nil
	}
	if len(plan.Footprints) != len(fps) {
		return 0, planErr("%d footprints for %d memory spaces", len(plan.Footprints), len(fps))
	}
	var sum int64
	for m, f := range fps {
		name := p.Memories[m].Name
		if plan.Footprints[m] != f {
			return 0, planErr("memory space %q: footprint %d, want max(offset+size) = %d", name, plan.Footprints[m], f)
		}
		if c := p.Memories[m].Capacity; c > 0 && f > c {
			return 0, planErr("memory space %q: footprint %d exceeds its capacity %d", name, f, c)
		}
		if sum > math.MaxInt64-f {
			return 0, planErr("the footprints of the memory spaces overflow int64")
		}
		sum += f
	}
	if plan.Footprint != sum {
		return 0, planErr("footprint %d, want the sum of the memory spaces' footprints %d", plan.Footprint, sum)
	}
	return sum, nil
}

// arenaNeed is what a runtime's arena must hold, from each space's
// highest end over buffers of positive size: the highest of them in one
// space, their sum over several (as validateFootprints sums footprints).
func arenaNeed(p *workloads.Problem, held []int64) int64 {
	several := p.Forms()&workloads.FormMemories != 0
	var need int64
	for _, h := range held {
		if several {
			need += h // no overflow: validateFootprints summed the larger fps
		} else {
			need = max(need, h)
		}
	}
	return need
}

// validateSpaceObjects checks the shared-object part of a plan space by
// space: each space lays out its own objects, a run of ids no other space
// uses (as planSpaces numbers them).
func validateSpaceObjects(p *workloads.Problem, plan *Plan) error {
	if p.Spaces == nil {
		return validateObjects(p.Buffers, p.Alignment, plan)
	}
	if len(plan.ObjectIDs) != len(p.Buffers) {
		return planErr("%d object ids for %d buffers", len(plan.ObjectIDs), len(p.Buffers))
	}
	subs, idx := SpaceProblems(p)
	owner := make([]int, len(plan.ObjectSizes))
	for k := range owner {
		owner[k] = -1
	}
	for m, sp := range subs {
		lo, hi := len(plan.ObjectSizes), -1
		for _, i := range idx[m] {
			id := plan.ObjectIDs[i]
			if id < 0 || id >= len(plan.ObjectSizes) {
				return planErr("buffer %d has object id %d, want 0..%d", i, id, len(plan.ObjectSizes)-1)
			}
			if owner[id] >= 0 && owner[id] != m {
				return planErr("buffer %d of memory space %q is in object %d of memory space %q",
					i, p.Memories[m].Name, id, p.Memories[owner[id]].Name)
			}
			owner[id] = m
			lo, hi = min(lo, id), max(hi, id)
		}
		if hi < 0 {
			continue
		}
		sub := &Plan{Offsets: make([]int64, len(idx[m])), ObjectIDs: make([]int, len(idx[m])), ObjectSizes: plan.ObjectSizes[lo : hi+1]}
		for j, i := range idx[m] {
			sub.Offsets[j] = plan.Offsets[i]
			sub.ObjectIDs[j] = plan.ObjectIDs[i] - lo
		}
		if err := validateObjects(sp.Buffers, sp.Alignment, sub); err != nil {
			return fmt.Errorf("memory space %q (buffer and object numbers within it): %w", p.Memories[m].Name, err)
		}
	}
	return nil
}

// sweepForms is sweep for a problem with gaps or memory spaces: buffers
// without gaps are swept space by space, and each buffer with gaps is
// compared by the gap rule with every other buffer of its space.
func sweepForms(p *workloads.Problem, offsets []int64) error {
	subs, idx := SpaceProblems(p)
	for m, sp := range subs {
		var bufs []workloads.Buffer
		var offs []int64
		var ids, gapped []int
		for j, i := range idx[m] {
			if len(p.GapsOf(i)) > 0 {
				gapped = append(gapped, i)
				continue
			}
			bufs = append(bufs, sp.Buffers[j])
			offs = append(offs, offsets[i])
			ids = append(ids, i)
		}
		if err := sweep(bufs, offs, ids); err != nil {
			return err
		}
		for _, i := range gapped {
			a := p.Buffers[i]
			for _, j := range idx[m] {
				b := p.Buffers[j]
				// Gapped pairs are compared once; plain address or time
				// disjointness rules a conflict out, as windows lie
				// within the buffers.
				if j == i || len(p.GapsOf(j)) > 0 && j < i || !workloads.Conflicts(a, b) ||
					offsets[i] >= offsets[j]+b.Size || offsets[j] >= offsets[i]+a.Size {
					continue
				}
				if workloads.Collide(p, i, j, offsets[i], offsets[j]) {
					si, _ := workloads.EffectiveSize(p, i, j)
					sj, _ := workloads.EffectiveSize(p, j, i)
					lo, hi := min(i, j), max(i, j)
					return planErr("buffers %d and %d overlap where both use memory: buffer %d at offset %d needs %d bytes below buffer %d at offset %d, which needs %d below it",
						lo, hi, i, offsets[i], si, j, offsets[j], sj)
				}
			}
		}
	}
	return nil
}

// validateObjects checks the shared-object part of a plan: ids in range,
// objects that cover their tensors, and offsets equal to ObjectsToOffsets'.
func validateObjects(bufs []workloads.Buffer, align int64, plan *Plan) error {
	if len(plan.ObjectIDs) != len(bufs) {
		return planErr("%d object ids for %d buffers", len(plan.ObjectIDs), len(bufs))
	}
	// Laying the objects out must not overflow before ObjectsToOffsets does it.
	var end int64
	for k, s := range plan.ObjectSizes {
		if s < 0 {
			return planErr("object %d has negative size %d", k, s)
		}
		if align > 1 && end > math.MaxInt64-(align-1) || AlignUp(end, align) > math.MaxInt64-s {
			return planErr("objects 0..%d laid back to back overflow int64", k)
		}
		end = AlignUp(end, align) + s
	}
	for i, id := range plan.ObjectIDs {
		if id < 0 || id >= len(plan.ObjectSizes) {
			return planErr("buffer %d has object id %d, want 0..%d", i, id, len(plan.ObjectSizes)-1)
		}
		if s := plan.ObjectSizes[id]; s < bufs[i].Size {
			return planErr("buffer %d of size %d is in object %d of size %d", i, bufs[i].Size, id, s)
		}
	}
	want := Plan{ObjectIDs: plan.ObjectIDs, ObjectSizes: plan.ObjectSizes}
	ObjectsToOffsets(&want, bufs, align)
	for i, off := range plan.Offsets {
		if off != want.Offsets[i] {
			return planErr("buffer %d has offset %d, but its object %d starts at %d", i, off, plan.ObjectIDs[i], want.Offsets[i])
		}
	}
	return nil
}

// sweep reports the first pair of conflicting buffers whose address ranges
// overlap. Inputs are known to be well-formed and overflow-free. ids, when
// not nil, gives each buffer's index in the problem, for the message.
func sweep(bufs []workloads.Buffer, offsets []int64, ids []int) error {
	m := 0
	for _, b := range bufs {
		if b.Size > 0 {
			m++
		}
	}
	if m < 2 {
		return nil
	}
	if len(bufs) > math.MaxInt32 {
		return planErr("%d buffers is more than the validator supports", len(bufs))
	}
	starts := make([]kernel.Keyed, 0, m)
	ends := make([]kernel.Keyed, 0, m)
	byOff := make([]kernel.Keyed, 0, m)
	for i, b := range bufs {
		if b.Size == 0 {
			continue
		}
		starts = append(starts, kernel.Keyed{Key: int64(b.First), I: int32(i)})
		ends = append(ends, kernel.Keyed{Key: int64(b.Last), I: int32(i)})
		byOff = append(byOff, kernel.Keyed{Key: offsets[i], I: int32(i)})
	}
	// Built in index order, so the stable sort breaks ties by index.
	scratch := make([]kernel.Keyed, m)
	sort := func(s []kernel.Keyed) []kernel.Keyed {
		out := kernel.RadixSort(s, scratch)
		if &out[0] == &scratch[0] {
			scratch = s
		}
		return out
	}
	starts, ends, byOff = sort(starts), sort(ends), sort(byOff)
	// rank[i] is buffer i's position in address order: the key of the
	// ordered set. Only buffers with Size > 0 get one.
	rank := make([]int32, len(bufs))
	for r, k := range byOff {
		rank[k.I] = int32(r)
	}
	live := newRankSet(m)
	e := 0
	for _, s := range starts {
		// Starts at task t come before ends at t: lifetimes are inclusive.
		for ends[e].Key < s.Key {
			live.remove(int(rank[ends[e].I]))
			e++
		}
		i := int(s.I)
		r := int(rank[i])
		// Live ranges are disjoint, so only the neighbours of i in address
		// order can overlap it: the one starting last at or below it and
		// the one starting first above it.
		if j := live.pred(r); j >= 0 {
			if err := overlap(bufs, offsets, ids, i, int(byOff[j].I)); err != nil {
				return err
			}
		}
		if j := live.succ(r); j >= 0 {
			if err := overlap(bufs, offsets, ids, i, int(byOff[j].I)); err != nil {
				return err
			}
		}
		live.insert(int(rank[i]))
	}
	return nil
}

// overlap reports buffers i and j, live at i's first task, if their
// address ranges overlap; ids, when not nil, maps them to the problem's
// indexes.
func overlap(bufs []workloads.Buffer, offsets []int64, ids []int, i, j int) error {
	if i > j {
		i, j = j, i
	}
	ilo, ihi := offsets[i], offsets[i]+bufs[i].Size
	jlo, jhi := offsets[j], offsets[j]+bufs[j].Size
	if ilo >= jhi || jlo >= ihi {
		return nil
	}
	task := max(bufs[i].First, bufs[j].First)
	if ids != nil {
		i, j = ids[i], ids[j]
	}
	return planErr("buffers %d and %d overlap: [%d,%d) and [%d,%d) both live at task %d",
		i, j, ilo, ihi, jlo, jhi, task)
}

// rankSet is an ordered set of small integers: a 64-ary tree of bitsets
// where a bit on level k+1 says whether word j of level k is non-empty.
// Insert, remove and predecessor cost O(log64 n) word operations.
type rankSet struct {
	levels [][]uint64
}

func newRankSet(n int) *rankSet {
	s := &rankSet{}
	for {
		words := (n + 63) / 64
		s.levels = append(s.levels, make([]uint64, words))
		if words <= 1 {
			return s
		}
		n = words
	}
}

func (s *rankSet) insert(x int) {
	for _, lvl := range s.levels {
		w := x >> 6
		was := lvl[w]
		lvl[w] = was | 1<<uint(x&63)
		if was != 0 {
			return
		}
		x = w
	}
}

func (s *rankSet) remove(x int) {
	for _, lvl := range s.levels {
		w := x >> 6
		lvl[w] &^= 1 << uint(x&63)
		if lvl[w] != 0 {
			return
		}
		x = w
	}
}

// pred returns the largest member <= x, or -1 if there is none.
func (s *rankSet) pred(x int) int {
	k := 0
	for {
		if x < 0 || k == len(s.levels) {
			return -1
		}
		w := x >> 6
		if m := s.levels[k][w] & (^uint64(0) >> uint(63-x&63)); m != 0 {
			x = w<<6 + 63 - bits.LeadingZeros64(m)
			break
		}
		x = w - 1
		k++
	}
	for k > 0 {
		k--
		x = x<<6 + 63 - bits.LeadingZeros64(s.levels[k][x])
	}
	return x
}

// succ returns the smallest member >= x, or -1 if there is none.
func (s *rankSet) succ(x int) int {
	k := 0
	for {
		if k == len(s.levels) || x>>6 >= len(s.levels[k]) {
			return -1
		}
		w := x >> 6
		if m := s.levels[k][w] & (^uint64(0) << uint(x&63)); m != 0 {
			x = w<<6 + bits.TrailingZeros64(m)
			break
		}
		x = w + 1
		k++
	}
	for k > 0 {
		k--
		x = x<<6 + bits.TrailingZeros64(s.levels[k][x])
	}
	return x
}
