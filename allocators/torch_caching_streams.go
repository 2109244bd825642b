package allocators

// torch-caching's streams: record_stream and the frees that wait for the
// events of the streams that used a block (insert_events, process_events),
// completed at each stream's sync points.

// RecordStream implements DeferredFreer: the block at off is used by
// stream (a no-op for its own stream).
func (a *torchCaching) RecordStream(off int64, stream int) error {
	return a.atOffset(off, stream, (*torchCaching).recordStreamHandle)
}

// recordStreamHandle implements blockHandles: RecordStream by id.
func (a *torchCaching) recordStreamHandle(h int32, stream int) error {
	if err := a.handle(h); err != nil {
		return err
	}
	x := &a.aux[h]
	s := int32(stream)
	switch {
	case s == x.pool.stream:
		return nil
	case x.events == 0:
		x.use0 = s
	case x.use0 == s:
		return nil
	default:
		uses := a.uses[h][:x.events-1]
		for _, u := range uses {
			if u == s {
				return nil
			}
		}
		a.uses[h] = append(uses, s)
	}
	x.events++
	return nil
}

// RequestFree implements DeferredFreer: a block no other stream used is
// cached at once; others wait for each of those streams' next sync.
func (a *torchCaching) RequestFree(off int64, stream int) error {
	return a.atOffset(off, stream, (*torchCaching).requestFreeHandle)
}

// requestFreeHandle implements blockHandles: RequestFree by id.
func (a *torchCaching) requestFreeHandle(h int32, _ int) error {
	if err := a.handle(h); err != nil {
		return err
	}
	a.blocks[h].inUse = false
	x := &a.aux[h]
	if x.events == 0 {
		a.cache(h)
		return nil
	}
	// x.events stays: one per stream it now waits for.
	a.wait(x.use0, h)
	if x.events > 1 {
		uses := a.uses[h][:x.events-1]
		for _, s := range uses {
			a.wait(s, h)
		}
		a.uses[h] = uses[:0]
	}
	return nil
}

// wait makes block h wait for stream s's next sync.
func (a *torchCaching) wait(s, h int32) {
	if int(s) >= len(a.pending) {
		a.pending = append(a.pending, make([][]int32, int(s)+1-len(a.pending))...)
	}
	a.pending[s] = append(a.pending[s], h)
}

// Sync implements DeferredFreer: the events of stream's waiting frees
// complete.
func (a *torchCaching) Sync(stream int) {
	if stream < 0 || stream >= len(a.pending) {
		return
	}
	waiting := a.pending[stream]
	for _, h := range waiting {
		x := &a.aux[h]
		if x.events--; x.events == 0 {
			a.cache(h)
		}
	}
	a.pending[stream] = waiting[:0]
}

// atOffset calls f, a handle method, on the allocated block at off.
func (a *torchCaching) atOffset(off int64, stream int, f func(a *torchCaching, h int32, stream int) error) error {
	h, err := a.live(off)
	if err != nil {
		return err
	}
	return f(a, h, stream)
}
