package strategies_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// shapeGoldens is testdata/litert_gpu_shapes.json: LiteRT's own expected
// assignments for its BHWC, uint2 and uint3 records.
type shapeGoldens struct {
	Source string
	Cases  []struct {
		Test     string
		SizeType string `json:"size_type"`
		Records  [][]int64
		Plans    []struct {
			Strategy     string
			ObjectIDs    []int     `json:"object_ids"`
			ObjectShapes [][]int64 `json:"object_shapes"`
		}
	}
}

func sizeTypeNamed(t *testing.T, name string) workloads.SizeType {
	t.Helper()
	for _, st := range workloads.SizeTypes {
		if st.String() == name {
			return st
		}
	}
	t.Fatalf("unknown size type %q", name)
	return 0
}

// shapeProblem builds a problem of size type st from rows of extents
// followed by first and last task.
func shapeProblem(t *testing.T, st workloads.SizeType, elem int64, rows [][]int64) *workloads.Problem {
	t.Helper()
	dims := st.Dims()
	shapes := make([]workloads.Shape, len(rows))
	spans := make([]workloads.Buffer, len(rows))
	for i, r := range rows {
		copy(shapes[i][:], r[:dims])
		spans[i] = workloads.Buffer{First: int(r[dims]), Last: int(r[dims+1])}
	}
	p, err := workloads.NewShapeProblem("golden", st, elem, shapes, spans)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLiteRTShapeGoldens(t *testing.T) {
	data, err := os.ReadFile("testdata/litert_gpu_shapes.json")
	if err != nil {
		t.Fatal(err)
	}
	var g shapeGoldens
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		st := sizeTypeNamed(t, c.SizeType)
		for _, want := range c.Plans {
			t.Run(c.Test+"/"+want.Strategy, func(t *testing.T) {
				p := shapeProblem(t, st, 8, c.Records)
				s, err := strategies.Lookup(want.Strategy)
				if err != nil {
					t.Fatal(err)
				}
				plan, err := s.Plan(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if err := strategies.Validate(p, plan); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(plan.ObjectIDs, want.ObjectIDs) {
					t.Errorf("object ids %v, want %v", plan.ObjectIDs, want.ObjectIDs)
				}
				var got [][]int64
				for _, o := range plan.ObjectShapes {
					got = append(got, o[:st.Dims()])
				}
				if !slices.EqualFunc(got, want.ObjectShapes, slices.Equal) {
					t.Errorf("object shapes %v, want %v", got, want.ObjectShapes)
				}
				for k, o := range plan.ObjectShapes {
					if n, _ := p.ShapeBytes(o); plan.ObjectSizes[k] != n {
						t.Errorf("object %d: %d bytes, want %d", k, plan.ObjectSizes[k], n)
					}
				}
			})
		}
	}
}

// TestSizeTypeDispatch checks every registered strategy against
// memory_management.cc's dispatch: the size types each plans, and TFLite's
// own refusal for the rest.
func TestSizeTypeDispatch(t *testing.T) {
	want := map[string][]workloads.SizeType{
		"naive":           {workloads.SizeBytes, workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC},
		"equality":        {workloads.SizeBytes, workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC},
		"greedy-in-order": {workloads.SizeBytes, workloads.SizeTexture2D, workloads.SizeTexture3D},
	}
	rows := map[workloads.SizeType][][]int64{
		workloads.SizeTexture2D: {{2, 8, 0, 1}, {1, 4, 2, 3}},
		workloads.SizeTexture3D: {{2, 8, 1, 0, 1}, {1, 4, 1, 2, 3}},
		workloads.SizeBHWC:      {{1, 2, 8, 1, 0, 1}, {1, 1, 4, 1, 2, 3}},
	}
	for _, info := range strategies.All() {
		got := strategies.SizeTypesOf(info)
		if w, ok := want[info.Name]; ok && !slices.Equal(got, w) || !ok && len(got) != 1 {
			t.Errorf("%s plans %v, want %v", info.Name, got, want[info.Name])
		}
		for st, r := range rows {
			s, err := strategies.Lookup(info.Name)
			if err != nil {
				t.Fatal(err)
			}
			p := shapeProblem(t, st, 4, r)
			_, err = s.Plan(context.Background(), p)
			if slices.Contains(got, st) {
				if err != nil {
					t.Errorf("%s on %s: %v", info.Name, st, err)
				}
				continue
			}
			if !errors.Is(err, strategies.ErrUnsupportedSizeType) || !strings.HasSuffix(err.Error(), ": "+st.String()+" sizes: MemoryStrategy is not supported with current tensor size type.") {
				t.Errorf("%s on %s: error %v, want TFLite's refusal", info.Name, st, err)
			}
		}
	}
}
