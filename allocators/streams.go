package allocators

// Streams and deferred frees (DESIGN §11).
//
// A trace may name streams: each allocation is made on a stream (its
// producer), record events add streams that use a tensor, and sync events
// say that a stream has finished everything it queued. The free of a
// storage is *requested* at the event that frees its last tensor and
// *completes* once every stream that used it (its producer, its recorders
// and the streams that freed its tensors) has passed a sync point after
// the request (workloads.Trace.FreeCompletions). A trace without sync
// points completes each free ReplayOptions.FreeDelay events after its
// request (0: at once).
//
// Allocators see streams at three levels, each an optional interface
// (allocators.go), so that allocators written for one stream keep working
// unchanged:
//
//   - A plain Allocator gets Alloc for every request, whatever its stream,
//     and Free when the free completes. Deferred frees just hold memory
//     longer; it never sees a stream.
//   - A StreamAllocator gets AllocOn(size, stream) instead of Alloc, so it
//     can serve streams from separate pools, and still Free at completion.
//   - A DeferredFreer also takes the free requests and completes them
//     itself: RecordStream when a stream uses a live block, RequestFree at
//     the request, Sync at every sync point. Replay never calls its Free in
//     a trace with sync points; it does in one without (then Free is a
//     complete free, as for everyone else, and RecordStream, RequestFree
//     and Sync are not called).
//
// Stream safety, the contract a DeferredFreer keeps and the Verifier
// checks: after the free of a block is requested, its bytes may go to a
// request on stream s only once every stream that used the block, other
// than s, has passed a sync point after the request. A stream reusing its
// own memory needs no sync (stream order keeps it safe, as PyTorch's
// caching allocator relies on), so a block nobody else used may be reused
// by its own stream at once. Memory a free has completed for is safe for
// every stream.

// streamLevel is how much of the stream interface an allocator has.
type streamLevel uint8

const (
	plainLevel    streamLevel = iota // Allocator
	allocOnLevel                     // StreamAllocator
	deferredLevel                    // DeferredFreer
)

// levelOf returns a's stream level, looking through a Verifier.
func levelOf(a Allocator) streamLevel {
	if v, ok := a.(*Verifier); ok {
		a = v.a
	}
	switch a.(type) {
	case DeferredFreer:
		return deferredLevel
	case StreamAllocator:
		return allocOnLevel
	}
	return plainLevel
}
