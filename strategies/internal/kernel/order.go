package kernel

import "membench/workloads"

// Keyed pairs a sort key with a buffer index.
type Keyed struct {
	Key int64
	I   int32
}

// RadixSort sorts s by key, keeping equal keys in their order, using buf
// (as long as s) as scratch; it returns whichever of the two holds the
// result. It skips the bytes in which all keys agree, so task ids below
// 2^24 take three passes.
func RadixSort(s, buf []Keyed) []Keyed {
	if len(s) < 2 {
		return s
	}
	// Flipping the sign bit orders negative keys first.
	ukey := func(k Keyed) uint64 { return uint64(k.Key) ^ 1<<63 }
	var diff uint64
	u0 := ukey(s[0])
	for _, k := range s {
		diff |= ukey(k) ^ u0
	}
	for shift := uint(0); shift < 64; shift += 8 {
		if diff>>shift&0xff == 0 {
			continue
		}
		var pos [256]int
		for _, k := range s {
			pos[byte(ukey(k)>>shift)]++
		}
		sum := 0
		for b, c := range pos {
			pos[b] = sum
			sum += c
		}
		for _, k := range s {
			d := byte(ukey(k) >> shift)
			buf[pos[d]] = k
			pos[d]++
		}
		s, buf = buf, s
	}
	return s
}

// BySizeDescending returns the buffer indices by size descending, ties in
// index order (TFLite's stable sort). It is the one by-size order of the
// planners that keep ties in index order; those that break ties another
// way (tflm-greedy: index descending; xla-heap-*: duration) build theirs
// with StableOrder.
func BySizeDescending(bufs []workloads.Buffer) []int32 {
	keys := RadixSort(SizeKeys(bufs), make([]Keyed, len(bufs)))
	order := make([]int32, len(bufs))
	for k, x := range keys {
		order[k] = x.I
	}
	return order
}

// SizeKeys returns each buffer's index Keyed by its size complemented
// (^size, which is -size-1 and, unlike -size, reverses the order of every
// int64), to sort by size descending.
func SizeKeys(bufs []workloads.Buffer) []Keyed {
	keys := make([]Keyed, len(bufs))
	for i, b := range bufs {
		keys[i] = Keyed{^b.Size, int32(i)}
	}
	return keys
}

// ByFirst returns the buffer indices by first task, ties in index order.
func ByFirst(bufs []workloads.Buffer) []int32 {
	return StableOrder(len(bufs), func(i int32) int64 { return int64(bufs[i].First) })
}

// InOrder returns 0..n-1: problem order.
func InOrder(n int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	return order
}

// StableOrder returns 0..n-1 sorted by keys[0], then keys[1], and so on,
// then by index: one stable radix sort per key, the least significant
// (last) first.
func StableOrder(n int, keys ...func(i int32) int64) []int32 {
	order := InOrder(n)
	k := make([]Keyed, n)
	buf := make([]Keyed, n)
	for j := len(keys) - 1; j >= 0; j-- {
		key := keys[j]
		for x, i := range order {
			k[x] = Keyed{key(i), i}
		}
		sorted := RadixSort(k, buf)
		for x, s := range sorted {
			order[x] = s.I
		}
	}
	return order
}
