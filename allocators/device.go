package allocators

import "math"

// device is the simulated device BFC's reference replays ran on: one
// unbounded address range handed out first fit by address, where freed
// ranges merge and are reused.
type device struct {
	spans []span     // free ranges by address; the last one is unbounded
	subs  []subAlloc // every allocation ever made, in call order
}

type span struct{ start, end int64 }

// subAlloc is one SubAllocator::Alloc: a subregion of the fixtures.
type subAlloc struct {
	addr, size int64
	live       bool
}

func (d *device) reset() {
	d.spans = append(d.spans[:0], span{0, math.MaxInt64})
	d.subs = d.subs[:0]
}

func (d *device) alloc(n int64) int64 {
	for i := range d.spans {
		s := &d.spans[i]
		if s.end-s.start < n {
			continue
		}
		addr := s.start
		s.start += n
		if s.start == s.end {
			d.spans = append(d.spans[:i], d.spans[i+1:]...)
		}
		d.subs = append(d.subs, subAlloc{addr: addr, size: n, live: true})
		return addr
	}
	panic("bfc: simulated device address space exhausted")
}

func (d *device) free(addr, n int64) {
	end := addr + n
	for i := range d.subs {
		if s := &d.subs[i]; s.live && s.addr >= addr && s.addr < end {
			s.live = false
		}
	}
	i := 0
	for i < len(d.spans) && d.spans[i].start < addr {
		i++
	}
	d.spans = append(d.spans, span{})
	copy(d.spans[i+1:], d.spans[i:])
	d.spans[i] = span{addr, end}
	if i+1 < len(d.spans) && d.spans[i+1].start == end {
		d.spans[i].end = d.spans[i+1].end
		d.spans = append(d.spans[:i+1], d.spans[i+2:]...)
	}
	if i > 0 && d.spans[i-1].end == addr {
		d.spans[i-1].end = d.spans[i].end
		d.spans = append(d.spans[:i], d.spans[i+1:]...)
	}
}
