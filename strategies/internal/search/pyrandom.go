package search

// PyRandom is CPython's random.Random: the 32-bit Mersenne Twister
// MT19937 seeded from an integer by init_by_array, with the draws of the
// module's pure-Python methods (random, getrandbits, _randbelow, shuffle,
// sample, choice, randint) as CPython 3.11 computes them. OmniMalloc's
// genetic planner (through DEAP's operators) and its random search draw
// from it; the same seed gives the same stream here.
type PyRandom struct {
	mt  [624]uint32
	mti int
}

// NewPyRandom returns random.Random(seed) for a non-negative seed.
func NewPyRandom(seed uint64) *PyRandom {
	r := &PyRandom{}
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r.initByArray(key)
	return r
}

func (r *PyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = 624
}

func (r *PyRandom) initByArray(key []uint32) {
	const n = 624
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(n, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ (r.mt[i-1]^(r.mt[i-1]>>30))*1664525) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ (r.mt[i-1]^(r.mt[i-1]>>30))*1566083941) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 returns MT19937's next output (genrand_uint32).
func (r *PyRandom) Uint32() uint32 {
	const (
		n, m  = 624, 397
		upper = 0x80000000
		lower = 0x7fffffff
	)
	if r.mti >= n {
		for k := 0; k < n; k++ {
			y := r.mt[k]&upper | r.mt[(k+1)%n]&lower
			v := r.mt[(k+m)%n] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[k] = v
		}
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Random returns random.random(): 53 bits from two outputs.
func (r *PyRandom) Random() float64 {
	a, b := r.Uint32()>>5, r.Uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// Below returns random._randbelow(n) for 0 < n < 2^32: getrandbits of
// n's bit length, redrawn until below n.
func (r *PyRandom) Below(n int) int {
	k := 0
	for v := n; v > 0; v >>= 1 {
		k++
	}
	for {
		if v := int(r.Uint32() >> (32 - k)); v < n {
			return v
		}
	}
}

// Shuffle is random.shuffle(x) over n items, swapping with swap.
func (r *PyRandom) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.Below(i+1))
	}
}

// Randint returns random.randint(a, b).
func (r *PyRandom) Randint(a, b int) int { return a + r.Below(b-a+1) }

// SampleRange returns random.sample(range(n), k) for 0 <= k <= n: the
// pool method where CPython picks it (n at most its set-size estimate),
// else rejection from a set.
func (r *PyRandom) SampleRange(n, k int) []int {
	out := make([]int, k)
	if n <= sampleSetSize(k) {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := range k {
			j := r.Below(n - i)
			out[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return out
	}
	seen := make(map[int]bool, k)
	for i := range k {
		j := r.Below(n)
		for seen[j] {
			j = r.Below(n)
		}
		seen[j] = true
		out[i] = j
	}
	return out
}

// sampleSetSize is random.sample's setsize: 21, plus 4^ceil(log4(3k))
// for k > 5.
func sampleSetSize(k int) int {
	s := 21
	if k > 5 {
		p := 1
		for p < 3*k {
			p *= 4
		}
		s += p
	}
	return s
}
