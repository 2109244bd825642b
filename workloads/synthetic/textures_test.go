package synthetic

import (
	"slices"
	"strings"
	"testing"

	"membench/workloads"
)

func TestTextures(t *testing.T) {
	for _, st := range []workloads.SizeType{workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC} {
		c := TexturesConfig{N: 500, Seed: 3, Type: st}
		p := Textures(c)
		if err := workloads.CheckShapes(p); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		if q := Textures(c); !slices.Equal(p.Shapes, q.Shapes) || !slices.Equal(p.Buffers, q.Buffers) {
			t.Errorf("%s: not deterministic", st)
		}
		// The lifetimes are RandomDAG's for the same n and seed.
		dag := RandomDAG(DefaultDAG(500, 3))
		for i, b := range p.Buffers {
			if d := dag.Buffers[i]; b.First != d.First || b.Last != d.Last {
				t.Fatalf("%s: buffer %d lives [%d, %d], the DAG's [%d, %d]", st, i, b.First, b.Last, d.First, d.Last)
			}
		}
		want := map[workloads.SizeType]int64{workloads.SizeTexture2D: 8, workloads.SizeTexture3D: 8, workloads.SizeBHWC: 4}[st]
		if p.ElementSize != want || !strings.Contains(p.Name, "type="+st.String()) {
			t.Errorf("%s: element size %d in %s, want %d", st, p.ElementSize, p.Name, want)
		}
		// A texture holds a BHWC tensor as 4-channel texels.
		for i, s := range p.Shapes {
			switch st {
			case workloads.SizeTexture2D:
				if s[1]%s[0] != 0 {
					t.Fatalf("buffer %d: 2d extents %v: y is not height times slices", i, s)
				}
			case workloads.SizeTexture3D:
				if s[0] != s[1] {
					t.Fatalf("buffer %d: 3d extents %v: not a square feature map", i, s)
				}
			case workloads.SizeBHWC:
				if s[0] != 1 || s[1] != s[2] || s[3] < 4 {
					t.Fatalf("buffer %d: bhwc %v", i, s)
				}
			}
		}
	}
	for _, bad := range []TexturesConfig{{N: 1, Type: workloads.SizeBytes}, {N: 1, Type: workloads.SizeTexture2D, Elem: -1}, {N: -1, Type: workloads.SizeBHWC}} {
		if bad.Validate() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
