package zoo

import (
	"fmt"

	"membench/workloads"
)

// U-Net: Ronneberger et al., "U-Net: Convolutional Networks for Biomedical
// Image Segmentation", MICCAI 2015, Figure 1: one input channel; a
// contracting path of four levels (two unpadded 3x3 CONV_2D with ReLU,
// 64, 128, 256, 512 channels, each followed by 2x2 MAX_POOL_2D), a 1024-
// channel bottom, and an expanding path of four levels (2x2
// TRANSPOSE_CONV halving the channels, a centred SLICE of the matching
// contracting feature map, CONCATENATION, two 3x3 CONV_2D), then a 1x1
// CONV_2D to 2 classes (output). At the paper's 572x572 input the output is
// 388x388x2. Unpadded convolutions require resolution = 16k + 60 with
// k >= 8 (every pooled map even, every map at least one pixel).

func init() {
	register(&model{
		name:  "zoo/unet",
		doc:   "U-Net (Ronneberger et al. 2015, Fig. 1), unpadded convolutions, TFLite ops",
		extra: imageParam(572),
		parse: func(a *workloads.Args, c *config) { c.res = a.Int("resolution", 572) },
		check: func(c *config) error {
			if c.res < 188 || c.res > maxResolution || (c.res-60)%16 != 0 {
				return fmt.Errorf("resolution=%d must be 16k+60 in [188, %d] (U-Net's unpadded convolutions)", c.res, maxResolution)
			}
			return nil
		},
		build: func(g *Graph, c *config) []Tensor { return []Tensor{uNet(g, c.batch, c.res)} },
		spec:  resolutionSpec,
	})
}

func uNet(g *Graph, batch, res int) Tensor {
	double := func(x Tensor, c int) Tensor {
		return g.Conv(g.Conv(x, c, 3, 3, 1, Valid), c, 3, 3, 1, Valid)
	}
	x := g.Input(batch, res, res, 1)
	var skips []Tensor
	for _, c := range []int{64, 128, 256, 512} {
		x = double(x, c)
		skips = append(skips, x)
		x = g.Pool(x, 2, 2, Valid)
	}
	x = double(x, 1024)
	for i := len(skips) - 1; i >= 0; i-- {
		_, _, _, c := g.nhwc(skips[i])
		up := g.TransposeConv(x, c, 2)
		_, h, w, _ := g.nhwc(up)
		x = double(g.Concat(g.Crop(skips[i], h, w), up), c)
	}
	return g.Conv(x, 2, 1, 1, 1, Same)
}
