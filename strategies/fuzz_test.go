package strategies_test

import (
	"hash/fnv"
	"testing"

	"membench/strategies"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// fuzzAlign maps the first input byte to the problem's alignment.
var fuzzAlign = []int64{0, 0, 1, 4, 8, 24, 64, 128}

// decodeProblem turns fuzz bytes into a problem of at most 64 buffers.
// Byte 0 picks the alignment (low 3 bits) and the problem forms (the
// other 5, a workloads.Forms), drawn by strategytest.WithForms from a
// hash of the input; then every 4 bytes are one buffer: two for the size
// (the top 2 bits pick zero, bytes, 4 KiB pages or just under 2^40, the
// other 14 are the value), one for the first task and one for the span
// (long when >= 200). Buffers come in any order.
func decodeProblem(data []byte) *workloads.Problem {
	p := &workloads.Problem{Name: "fuzz"}
	if len(data) == 0 {
		return p
	}
	forms := workloads.Forms(data[0]>>3) & workloads.AllForms
	h := fnv.New64a()
	h.Write(data)
	defer func() {
		if forms != 0 {
			*p = *strategytest.WithForms(p, forms, h.Sum64())
		}
	}()
	p.Alignment = fuzzAlign[int(data[0])%len(fuzzAlign)]
	data = data[1:]
	for i := 0; len(data) >= 4 && i < 64; i++ {
		v := int64(data[0]&63)<<8 | int64(data[1])
		var size int64
		switch data[0] >> 6 {
		case 1:
			size = v
		case 2:
			size = v << 12
		case 3:
			size = 1<<40 - v
		}
		span := int(data[3])
		if span < 200 {
			span %= 16
		}
		first := int(data[2])
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: size, First: first, Last: first + span})
		data = data[4:]
	}
	return p
}

// encodeSmall encodes records of size < 16384 and span < 16 for seeds.
func encodeSmall(align byte, recs ...[3]int) []byte {
	out := []byte{align}
	for _, r := range recs {
		out = append(out, 0x40|byte(r[0]>>8), byte(r[0]), byte(r[1]), byte(r[2]-r[1]))
	}
	return out
}

func TestDecodeProblem(t *testing.T) {
	p := decodeProblem([]byte{7, 0x40, 16, 0, 1, 0x00, 9, 3, 3, 0x80, 2, 5, 200, 0xc0, 1, 9, 17, 0xff})
	want := []workloads.Buffer{
		{ID: 0, Size: 16, First: 0, Last: 1},
		{ID: 1, Size: 0, First: 3, Last: 6},
		{ID: 2, Size: 2 << 12, First: 5, Last: 205},
		{ID: 3, Size: 1<<40 - 1, First: 9, Last: 10},
	}
	if p.Alignment != 128 || len(p.Buffers) != len(want) {
		t.Fatalf("decodeProblem = %+v, want alignment 128 and %v", p, want)
	}
	for i := range want {
		if p.Buffers[i] != want[i] {
			t.Errorf("buffer %d = %+v, want %+v", i, p.Buffers[i], want[i])
		}
	}
	if n := len(decodeProblem(make([]byte, 1+4*100)).Buffers); n != 64 {
		t.Errorf("decoded %d buffers, want at most 64", n)
	}
	// The high bits of byte 0 are forms.
	data := encodeSmall(7|byte(workloads.FormFixed|workloads.FormMemories)<<3, [3]int{16, 0, 1}, [3]int{8, 1, 2}, [3]int{64, 2, 3})
	if got := decodeProblem(data).Forms() &^ workloads.FormFixed; got != workloads.FormMemories {
		t.Errorf("forms %s, want memory spaces (and maybe fixed offsets)", got)
	}
	if err := workloads.CheckForms(decodeProblem(data)); err != nil {
		t.Error(err)
	}
}

// FuzzStrategies feeds random small problems, with problem forms or
// without, to every registered strategy and checks each with the
// conformance suite's CheckForms: a valid plan (Validate, lower bounds,
// kind, determinism) where the strategy declares the forms, else the
// registry's refusal.
func FuzzStrategies(f *testing.F) {
	f.Add([]byte{})
	f.Add(encodeSmall(0, [3]int{16, 0, 1}))
	f.Add(encodeSmall(0, [3]int{16, 0, 1}, [3]int{8, 1, 2}, [3]int{64, 2, 3}, [3]int{32, 3, 4}, [3]int{8, 4, 5}))
	f.Add(encodeSmall(0, [3]int{32, 0, 1}, [3]int{32, 1, 4}, [3]int{8, 2, 5}, [3]int{16, 3, 5}, [3]int{8, 4, 5},
		[3]int{64, 5, 7}, [3]int{8, 6, 8}, [3]int{8, 7, 8}, [3]int{16, 8, 9}))
	f.Add(encodeSmall(0, [3]int{8, 0, 1}, [3]int{8, 0, 2}, [3]int{8, 5, 6}, [3]int{8, 1, 3}))
	f.Add(encodeSmall(7, [3]int{16, 0, 1}, [3]int{8, 1, 2}, [3]int{64, 2, 3}, [3]int{32, 3, 4}, [3]int{8, 4, 5}))
	f.Add(encodeSmall(5, [3]int{32, 3, 3}, [3]int{32, 3, 3}, [3]int{32, 3, 3}, [3]int{0, 3, 3}, [3]int{0, 0, 9}))
	f.Add([]byte{0, 0xc0, 0, 0, 2, 0x82, 0, 1, 3, 0xc0, 4, 3, 4, 0x00, 0, 0, 15})
	// Each form alone and all of them, on the TFLite records.
	for _, forms := range []workloads.Forms{workloads.FormAlign, workloads.FormGaps, workloads.FormFixed, workloads.FormHints, workloads.FormMemories, workloads.AllForms} {
		f.Add(encodeSmall(3|byte(forms)<<3, [3]int{32, 0, 1}, [3]int{32, 1, 4}, [3]int{8, 2, 5}, [3]int{16, 3, 5}, [3]int{8, 4, 5},
			[3]int{64, 5, 7}, [3]int{8, 6, 8}, [3]int{8, 7, 8}, [3]int{16, 8, 9}))
	}
	subjects, kinds := fuzzSubjects(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := decodeProblem(data)
		for i, s := range subjects {
			if err := strategytest.CheckForms(s, kinds[i], p); err != nil {
				t.Error(err)
			}
		}
	})
}

// fuzzSubjects returns every registered strategy a fuzz target runs, as
// the conformance suite builds it, and its kind: all but the external
// ones and those whose solver is not installed.
func fuzzSubjects(f *testing.F) ([]strategies.Strategy, []strategies.Kind) {
	var subjects []strategies.Strategy
	var kinds []strategies.Kind
	for _, info := range strategies.All() {
		if info.Kind == strategies.External {
			continue
		}
		s, err := strategies.Lookup(suiteSpec(info.Name))
		if err != nil {
			f.Fatalf("Lookup(%q): %v", suiteSpec(info.Name), err)
		}
		if solverMissing(s) {
			continue
		}
		subjects = append(subjects, s)
		kinds = append(kinds, info.Kind)
	}
	return subjects, kinds
}
