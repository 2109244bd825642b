package search

import (
	"slices"
	"testing"
)

// The goldens below are CPython 3.11's random module and a libstdc++
// (GCC 12) build of std::mt19937_64 with its distributions, run on the
// same seeds (the commands are in testdata/README.md).

func TestPyRandomMatchesCPython(t *testing.T) {
	r := NewPyRandom(42)
	if a, b := r.Uint32(), r.Uint32(); a != 2746317213 || b != 478163327 {
		t.Errorf("getrandbits(32) twice = %d %d, want 2746317213 478163327", a, b)
	}
	if x := r.Random(); x != 0.025010755222666936 {
		t.Errorf("random() = %v, want 0.025010755222666936", x)
	}
	r = NewPyRandom(42)
	l := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	if want := []int{7, 3, 2, 8, 5, 6, 9, 4, 0, 1}; !slices.Equal(l, want) {
		t.Errorf("shuffle = %v, want %v", l, want)
	}
	if s := r.SampleRange(30, 2); !slices.Equal(s, []int{18, 13}) {
		t.Errorf("sample(range(30), 2) = %v, want [18 13]", s)
	}
	if s := r.SampleRange(5, 2); !slices.Equal(s, []int{0, 4}) {
		t.Errorf("sample(range(5), 2) = %v, want [0 4]", s)
	}
	if v := r.Randint(0, 8); v != 1 {
		t.Errorf("randint(0, 8) = %d, want 1", v)
	}
	if v := r.Below(7); v != 1 {
		t.Errorf("choice(range(7)) = %d, want 1", v)
	}
	if v := NewPyRandom(1<<40 + 5).Uint32(); v != 2166296868 {
		t.Errorf("Random(2**40+5).getrandbits(32) = %d, want 2166296868", v)
	}
}

func TestMT64MatchesLibstdcxx(t *testing.T) {
	r := NewMT64(42)
	if v := r.Uint64(); v != 13930160852258120406 {
		t.Errorf("first output = %d, want 13930160852258120406", v)
	}
	if v := r.IntN(0); v != 0 {
		t.Errorf("uniform_int(0, 0) = %d, want 0", v)
	}
	var got []uint64
	for range 5 {
		got = append(got, r.IntN(6))
	}
	if want := []uint64{5, 0, 6, 0, 4}; !slices.Equal(got, want) {
		t.Errorf("uniform_int(0, 6) x5 = %v, want %v (uniform_int(0, 0) must draw once)", got, want)
	}
	if u := r.Unit(); u != 0.37288769945618483 {
		t.Errorf("uniform_real(0, 1) = %.17g, want 0.37288769945618483", u)
	}
	if v := r.Uint64(); v != 5052085463162682550 {
		t.Errorf("next output = %d, want 5052085463162682550", v)
	}
}
