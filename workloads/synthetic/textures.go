package synthetic

import (
	"fmt"

	"membench/workloads"
)

// TexturesConfig parameterises Textures.
type TexturesConfig struct {
	N    int
	Seed int64
	// Type is the size type: 2d, 3d or bhwc.
	Type workloads.SizeType
	// Elem is the bytes of an element (a texel for textures); 0 picks 8
	// (an RGBA float16 texel) for textures and 4 (float32) for BHWC.
	Elem int64
	// typeName is the type parameter as given, for the message when it
	// names no size type.
	typeName string
}

// Validate reports the first field out of range.
func (c TexturesConfig) Validate() error {
	if err := checkN(c.N); err != nil {
		return err
	}
	if c.Type == workloads.SizeBytes || int(c.Type) >= len(workloads.SizeTypes) {
		name := c.typeName
		if name == "" {
			name = c.Type.String()
		}
		return fmt.Errorf("type=%s: want 2d, 3d or bhwc", name)
	}
	if c.Elem < 0 || c.Elem > 1<<10 {
		return fmt.Errorf("elem=%d must be in [0, 1024] (0: the type's default)", c.Elem)
	}
	return nil
}

func (c TexturesConfig) elem() int64 {
	switch {
	case c.Elem > 0:
		return c.Elem
	case c.Type == workloads.SizeBHWC:
		return 4
	}
	return 8
}

// Textures generates the records TFLite's GPU delegate would plan for a
// random operator graph whose tensors are feature maps: lifetimes as
// RandomDAG's defaults draw them (its stream, so equal seeds give equal
// lifetimes), and for each tensor a batch of 1, a square side of 2^a
// (a in [0, 7]) and 2^b channels (b in [2, 10]). Its extents are, as the
// delegate lays a BHWC tensor out (4 channels a texel: LiteRT
// tflite/delegates/gpu/common/task/tensor_desc.cc, GetStorageDims, at
// f67457790c9c, with batch and depth 1): 2d (TEXTURE_2D) x = width,
// y = height times the channel slices ceil(c/4); 3d (TEXTURE_3D) x =
// width, y = height, z = slices; bhwc the shape itself. Few distinct extents
// repeat, so EQUALITY finds reuse. It panics on a configuration Validate
// rejects.
func Textures(c TexturesConfig) *workloads.Problem {
	if err := c.Validate(); err != nil {
		panic("synthetic.Textures: " + err.Error())
	}
	spans := RandomDAG(DefaultDAG(c.N, c.Seed)).Buffers
	r := newRNG(c.Seed, familyTextures)
	shapes := make([]workloads.Shape, c.N)
	for i := range shapes {
		side, ch := int64(1)<<r.between(0, 7), int64(1)<<r.between(2, 10)
		slices := (ch + 3) / 4
		switch c.Type {
		case workloads.SizeTexture2D:
			shapes[i] = workloads.Shape{side, side * slices}
		case workloads.SizeTexture3D:
			shapes[i] = workloads.Shape{side, side, slices}
		default:
			shapes[i] = workloads.Shape{1, side, side, ch}
		}
	}
	name := fmt.Sprintf("synthetic/textures?n=%d&seed=%d&type=%s&elem=%d", c.N, c.Seed, c.Type, c.elem())
	p, err := workloads.NewShapeProblem(name, c.Type, c.elem(), shapes, spans)
	if err != nil {
		panic("synthetic.Textures: " + err.Error()) // extents of at most 2^10 cannot overflow
	}
	return p
}

func (c TexturesConfig) generate() *workloads.Problem { return Textures(c) }

func init() {
	params := append(baseParams("1000"),
		workloads.ParamDoc{Name: "type", Default: "2d", Doc: "size type: 2d or 3d textures, or bhwc shapes"},
		workloads.ParamDoc{Name: "elem", Default: "0", Doc: "bytes of an element; 0: 8 (an RGBA float16 texel) for textures, 4 for bhwc"})
	register("synthetic/textures", "random graph of feature maps as TFLite's GPU delegate plans them: 2D/3D texture or BHWC records (DESIGN §17)",
		params, func(a *workloads.Args) family {
			c := TexturesConfig{N: a.Int("n", 1000), Seed: a.Int64("seed", 1), Elem: a.Int64("elem", 0), Type: workloads.SizeType(255)}
			c.typeName = a.String("type", "2d")
			for _, st := range workloads.SizeTypes {
				if st.String() == c.typeName {
					c.Type = st
				}
			}
			return c
		})
}
