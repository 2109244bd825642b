package allocators

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// vtBroken is an allocator that misbehaves as told: it hands out the
// blocks listed in order, accepts or refuses frees as told and reports
// InUse with a skew.
type vtBroken struct {
	blocks        []Block
	acceptAll     bool // Free never fails
	refuseAll     bool // Free always fails
	inUseSkew     int64
	handed, inUse int64
}

func (b *vtBroken) Alloc(size int64) (Block, error) {
	if int(b.handed) == len(b.blocks) {
		return Block{}, ErrOOM
	}
	blk := b.blocks[b.handed]
	b.handed++
	b.inUse += blk.Size
	return blk, nil
}

func (b *vtBroken) Free(off int64) error {
	if b.refuseAll {
		return ErrBadFree
	}
	for _, blk := range b.blocks[:b.handed] {
		if blk.Offset == off {
			b.inUse -= blk.Size
			return nil
		}
	}
	if b.acceptAll {
		return nil
	}
	return ErrBadFree
}

func (b *vtBroken) Stats() Stats { return Stats{InUse: b.inUse + b.inUseSkew} }

func TestVerifierCatchesOverlap(t *testing.T) {
	for _, tt := range []struct {
		name   string
		blocks []Block
		want   string
	}{
		{"same start", []Block{{0, 256}, {0, 256}}, "allocation #2 at [0x0, 0x100) overlaps live allocation #1 at [0x0, 0x100)"},
		{"tail", []Block{{0, 512}, {256, 512}}, "allocation #2 at [0x100, 0x300) overlaps live allocation #1 at [0x0, 0x200)"},
		{"head", []Block{{1024, 512}, {768, 512}}, "allocation #2 at [0x300, 0x500) overlaps live allocation #1 at [0x400, 0x600)"},
		{"inside", []Block{{0, 256}, {4096, 1024}, {4352, 8}}, "allocation #3 at [0x1100, 0x1108) overlaps live allocation #2 at [0x1000, 0x1400)"},
		{"around", []Block{{4096, 8}, {0, 8192}}, "allocation #2 at [0x0, 0x2000) overlaps live allocation #1 at [0x1000, 0x1008)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Verify(&vtBroken{blocks: tt.blocks})
			var err error
			for i := 0; i < len(tt.blocks) && err == nil; i++ {
				_, err = v.Alloc(8)
			}
			if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an integrity error containing %q", err, tt.want)
			}
			// The violation is sticky.
			if _, err2 := v.Alloc(1); err2 != err {
				t.Errorf("Alloc after the violation: %v, want the same error", err2)
			}
			if err2 := v.Free(0); err2 != err {
				t.Errorf("Free after the violation: %v, want the same error", err2)
			}
			if err2 := v.Check(); err2 != err {
				t.Errorf("Check after the violation: %v, want the same error", err2)
			}
		})
	}
}

func TestVerifierCatchesContractBreaks(t *testing.T) {
	for _, tt := range []struct {
		name string
		b    *vtBroken
		run  func(v *Verifier) error
		want string
	}{
		{"undersized", &vtBroken{blocks: []Block{{0, 100}}},
			func(v *Verifier) error { _, err := v.Alloc(101); return err },
			"allocation #1 of 101 bytes got a chunk of only 100 bytes at 0x0"},
		{"negative", &vtBroken{blocks: []Block{{-256, 256}}},
			func(v *Verifier) error { _, err := v.Alloc(1); return err },
			"negative offset -256"},
		{"accepts unknown free", &vtBroken{acceptAll: true},
			func(v *Verifier) error { return v.Free(512) },
			"accepted a free of 0x200, which is not a live allocation"},
		{"refuses live free", &vtBroken{blocks: []Block{{0, 256}}, refuseAll: true},
			func(v *Verifier) error { v.Alloc(1); return v.Free(0) },
			"refused the free of live allocation #1 at 0x0"},
		{"stats", &vtBroken{blocks: []Block{{0, 256}}, inUseSkew: 1},
			func(v *Verifier) error { v.Alloc(1); return v.Check() },
			"stats report 257 bytes in use, the 1 live chunks hold 256"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run(Verify(tt.b))
			if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an integrity error containing %q", err, tt.want)
			}
		})
	}
}

// TestVerifierCatchesOverwrites scribbles over the stamps of live
// allocations, as an overlapping writer would.
func TestVerifierCatchesOverwrites(t *testing.T) {
	for _, tt := range []struct {
		name   string
		chunk  int64
		at     int64 // offset of the scribble within the chunk
		onFree bool
		want   string
	}{
		{"first bytes, on free", 4096, 0, true, "allocation #2 at [0x1000, 0x2000): the bytes at 0x1000 hold 0x1"},
		{"last bytes, on check", 4096, 4088, false, "the bytes at 0x1ff8 hold 0x1"},
		{"unaligned chunk", 13, 5, false, "allocation #2 at [0x1000, 0x100d): the bytes at 0x1000 hold 0x10000000002"},
		{"one-byte chunk", 1, 0, true, "allocation #2 at [0x1000, 0x1001): the bytes at 0x1000 hold 0x1,"},
		{"tiny chunk", 3, 2, true, "allocation #2 at [0x1000, 0x1003): the bytes at 0x1002 hold 0x1,"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Verify(&vtBroken{blocks: []Block{{0, 64}, {4096, tt.chunk}}})
			v.Alloc(1)
			v.Alloc(tt.chunk)
			if err := v.Check(); err != nil {
				t.Fatalf("Check before the scribble: %v", err)
			}
			v.store(4096+tt.at, 1, 1) // allocation #1's id, one byte
			var err error
			if tt.onFree {
				err = v.Free(4096)
			} else {
				err = v.Check()
			}
			if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an integrity error containing %q", err, tt.want)
			}
		})
	}
}

// TestVerifierPassesCorrectAllocators runs random traffic through every
// allocator of this package behind a verifier.
func TestVerifierPassesCorrectAllocators(t *testing.T) {
	for _, name := range []string{"bump", "pool", "first-fit", "best-fit", "buddy", "torch-caching"} {
		v := Verify(scBuild(t, name+"?memory_limit=256M"))
		rng := rand.New(rand.NewPCG(3, 4))
		var live []int64
		for range 5000 {
			if len(live) > 0 && rng.IntN(5) < 2 {
				i := rng.IntN(len(live))
				if err := v.Free(live[i]); err != nil {
					t.Fatalf("%s: Free: %v", name, err)
				}
				live[i] = live[len(live)-1]
				live = live[:len(live)-1]
				continue
			}
			b, err := v.Alloc(1 + rng.Int64N(1<<uint(rng.IntN(22))))
			if errors.Is(err, ErrOOM) {
				continue
			}
			if err != nil {
				t.Fatalf("%s: Alloc: %v", name, err)
			}
			live = append(live, b.Offset)
		}
		if err := v.Check(); err != nil {
			t.Fatalf("%s: Check: %v", name, err)
		}
		// Bad frees pass through as ErrBadFree.
		if err := v.Free(-1); !errors.Is(err, ErrBadFree) || errors.Is(err, ErrIntegrity) {
			t.Errorf("%s: Free(-1) = %v, want ErrBadFree", name, err)
		}
		if got, want := v.Alignment(), AlignmentOf(v.Unwrap()); got != want {
			t.Errorf("%s: Alignment() = %d, want %d", name, got, want)
		}
	}
}
