package search

import (
	"math"
	"math/bits"
)

// MT64 is std::mt19937_64, the 64-bit Mersenne Twister of C++'s <random>,
// with the draws libstdc++ (GCC 12) makes of it for
// std::uniform_int_distribution and std::uniform_real_distribution.
// OmniMalloc's C++ local searches seed one with their seed and draw from it
// in their loop; reproducing its stream bit for bit reproduces their runs.
type MT64 struct {
	mt  [312]uint64
	mti int
}

// NewMT64 returns std::mt19937_64 seeded with seed.
func NewMT64(seed uint64) *MT64 {
	r := &MT64{}
	r.mt[0] = seed
	for i := 1; i < 312; i++ {
		r.mt[i] = 6364136223846793005*(r.mt[i-1]^(r.mt[i-1]>>62)) + uint64(i)
	}
	r.mti = 312
	return r
}

// Uint64 returns the generator's next output.
func (r *MT64) Uint64() uint64 {
	const (
		n, m  = 312, 156
		upper = 0xFFFFFFFF80000000
		lower = 0x7FFFFFFF
		a     = 0xB5026F5AA96619E9
	)
	if r.mti >= n {
		for i := 0; i < n; i++ {
			x := r.mt[i]&upper | r.mt[(i+1)%n]&lower
			xa := x >> 1
			if x&1 != 0 {
				xa ^= a
			}
			r.mt[i] = r.mt[(i+m)%n] ^ xa
		}
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 29 & 0x5555555555555555
	y ^= y << 17 & 0x71D67FFFEDA60000
	y ^= y << 37 & 0xFFF7EEE000000000
	y ^= y >> 43
	return y
}

// IntN returns std::uniform_int_distribution<size_t>(0, hi)(r) as
// libstdc++ computes it: Lemire's multiply-and-reject over a 128-bit
// product. It draws once even for hi == 0, as libstdc++ does.
func (r *MT64) IntN(hi uint64) uint64 {
	if hi == math.MaxUint64 {
		return r.Uint64()
	}
	rng := hi + 1
	prodHi, low := bits.Mul64(r.Uint64(), rng)
	if low < rng {
		threshold := -rng % rng
		for low < threshold {
			prodHi, low = bits.Mul64(r.Uint64(), rng)
		}
	}
	return prodHi
}

// Unit returns std::uniform_real_distribution<double>(0, 1)(r) as libstdc++
// computes it (std::generate_canonical with one 64-bit draw): the draw
// divided by 2^64, held below 1.
func (r *MT64) Unit() float64 {
	u := float64(r.Uint64()) / (1 << 64)
	if u >= 1 {
		u = math.Nextafter(1, 0)
	}
	return u
}
