package strategies_test

import (
	"context"
	"slices"
	"testing"

	"membench/strategies"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// FuzzSizeTypes decodes bytes into a problem of textures or BHWC shapes
// (the first byte picks the type, then each record takes one byte per
// extent, 0..7, and two for its lifetime) and checks that the planners
// with a variant for the type give valid plans equal to the port of
// LiteRT's code, and that every registered strategy plans the problem
// validly where it declares the size type (strategytest.CheckSizeType)
// and refuses it with TFLite's reason otherwise.
func FuzzSizeTypes(f *testing.F) {
	f.Add([]byte{0, 2, 7, 0, 1, 2, 7, 1, 1, 1, 7, 2, 2})
	f.Add([]byte{1, 1, 2, 7, 0, 1, 4, 3, 2, 1, 1})
	f.Add([]byte{2, 1, 1, 2, 7, 0, 1, 1, 1, 2, 7, 1, 1})
	subjects, kinds := fuzzSubjects(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		st := []workloads.SizeType{workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC}[int(data[0])%3]
		dims := st.Dims()
		data = data[1:]
		var shapes []workloads.Shape
		var spans []workloads.Buffer
		var recs []upRecord
		for len(data) >= dims+2 && len(shapes) < 200 {
			var s workloads.Shape
			for d := range dims {
				s[d] = int64(data[d] % 8)
			}
			first := int(data[dims] % 32)
			b := workloads.Buffer{First: first, Last: first + int(data[dims+1]%8)}
			data = data[dims+2:]
			shapes, spans = append(shapes, s), append(spans, b)
		}
		// TFLite's delegate builds records in order of first task.
		order := make([]int, len(spans))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return spans[a].First - spans[b].First })
		ss, sp := make([]workloads.Shape, len(order)), make([]workloads.Buffer, len(order))
		for k, i := range order {
			ss[k], sp[k] = shapes[i], spans[i]
			recs = append(recs, upRecord{shapes[i], spans[i].First, spans[i].Last})
		}
		p, err := workloads.NewShapeProblem("fuzz", st, 4, ss, sp)
		if err != nil {
			t.Fatal(err)
		}
		refs := map[string]func() ([]int, []workloads.Shape){
			"naive": func() ([]int, []workloads.Shape) {
				ids := make([]int, len(recs))
				for i := range ids {
					ids[i] = i
				}
				return ids, ss
			},
			"equality": func() ([]int, []workloads.Shape) { return upEqualityAssignment(recs) },
		}
		if st == workloads.SizeBHWC {
			refs["equality"] = func() ([]int, []workloads.Shape) { return upEqualityWithHash(recs) }
		} else {
			refs["greedy-in-order"] = func() ([]int, []workloads.Shape) { return upGreedyInOrderMultidimensional(recs, dims) }
		}
		for name, ref := range refs {
			s, _ := strategies.Lookup(name)
			plan, err := s.Plan(context.Background(), p)
			if err != nil {
				t.Fatalf("%s on %s: %v", name, st, err)
			}
			if err := strategies.Validate(p, plan); err != nil {
				t.Fatalf("%s on %s: %v", name, st, err)
			}
			ids, objs := ref()
			if len(ids) == 0 {
				ids, objs = []int{}, nil
			}
			if !slices.Equal(plan.ObjectIDs, ids) || !slices.Equal(plan.ObjectShapes, objs) && len(objs)+len(plan.ObjectShapes) > 0 {
				t.Fatalf("%s on %s: got %v %v, want %v %v", name, st, plan.ObjectIDs, plan.ObjectShapes, ids, objs)
			}
		}
		// Every registered strategy: a valid plan where it plans the size
		// type, else TFLite's refusal.
		for i, s := range subjects {
			if err := strategytest.CheckSizeType(s, kinds[i], p); err != nil {
				t.Error(err)
			}
		}
	})
}
