package zoo

// Inception v3: Szegedy et al., "Rethinking the Inception Architecture for
// Computer Vision", CVPR 2016, Table 1 with the modules of Figures 5, 6
// and 7, at the filter counts of the released TF-slim model
// (inception_v3.py, which TFLite's hosted inception_v3 is converted from):
// stem, Mixed_5b-5d (35x35), Mixed_6a (reduction), Mixed_6b-6e (17x17,
// 7x1/1x7 factorised), Mixed_7a (reduction), Mixed_7b-7c (8x8, expanded
// 1x3/3x1 branches), AVERAGE_POOL_2D, CONV_2D 1x1 logits (1001), RESHAPE,
// SOFTMAX (output). The auxiliary classifier is a training device and is
// not part of the inference graph. Branches run in the order listed, each
// ending in CONCATENATION.
//
// Against torchvision's inception_v3 as recorded (recorded/inception-v3/
// graph, 299x299, no auxiliary head): LB_load 8,297,856 B here against
// 11,063,808 B there, 125 tensors against 219: each of PyTorch's
// BasicConv2d keeps its BatchNorm output apart from the convolution's,
// which TFLite folds, and that raises the peak.

func init() {
	registerImage("zoo/inception-v3", "Inception v3 (Szegedy et al. 2016, Table 1, TF-slim filters), TFLite ops",
		299, 75, inceptionV3)
}

func inceptionV3(g *Graph, batch, res int) Tensor {
	x := g.Conv(g.Input(batch, res, res, 3), 32, 3, 3, 2, Valid)
	x = g.Conv(x, 32, 3, 3, 1, Valid)
	x = g.Conv(x, 64, 3, 3, 1, Same)
	x = g.Pool(x, 3, 2, Valid)
	x = g.Conv(x, 80, 1, 1, 1, Valid)
	x = g.Conv(x, 192, 3, 3, 1, Valid)
	x = g.Pool(x, 3, 2, Valid)
	// conv is a stride-1, same-padded convolution.
	conv := func(x Tensor, c, kh, kw int) Tensor { return g.Conv(x, c, kh, kw, 1, Same) }
	for _, pool := range []int{32, 64, 64} { // Mixed_5b, 5c, 5d
		b0 := conv(x, 64, 1, 1)
		b1 := conv(conv(x, 48, 1, 1), 64, 5, 5)
		b2 := conv(conv(conv(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
		b3 := conv(g.Pool(x, 3, 1, Same), pool, 1, 1)
		x = g.Concat(b0, b1, b2, b3)
	}
	{ // Mixed_6a
		b0 := g.Conv(x, 384, 3, 3, 2, Valid)
		b1 := g.Conv(conv(conv(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, 2, Valid)
		b2 := g.Pool(x, 3, 2, Valid)
		x = g.Concat(b0, b1, b2)
	}
	for _, c7 := range []int{128, 160, 160, 192} { // Mixed_6b-6e
		b0 := conv(x, 192, 1, 1)
		b1 := conv(conv(conv(x, c7, 1, 1), c7, 1, 7), 192, 7, 1)
		b2 := conv(x, c7, 1, 1)
		b2 = conv(conv(conv(conv(b2, c7, 7, 1), c7, 1, 7), c7, 7, 1), 192, 1, 7)
		b3 := conv(g.Pool(x, 3, 1, Same), 192, 1, 1)
		x = g.Concat(b0, b1, b2, b3)
	}
	{ // Mixed_7a
		b0 := g.Conv(conv(x, 192, 1, 1), 320, 3, 3, 2, Valid)
		b1 := conv(conv(conv(x, 192, 1, 1), 192, 1, 7), 192, 7, 1)
		b1 = g.Conv(b1, 192, 3, 3, 2, Valid)
		b2 := g.Pool(x, 3, 2, Valid)
		x = g.Concat(b0, b1, b2)
	}
	for range 2 { // Mixed_7b, 7c
		b0 := conv(x, 320, 1, 1)
		b1 := conv(x, 384, 1, 1)
		b1 = g.Concat(conv(b1, 384, 1, 3), conv(b1, 384, 3, 1))
		b2 := conv(conv(x, 448, 1, 1), 384, 3, 3)
		b2 = g.Concat(conv(b2, 384, 1, 3), conv(b2, 384, 3, 1))
		b3 := conv(g.Pool(x, 3, 1, Same), 192, 1, 1)
		x = g.Concat(b0, b1, b2, b3)
	}
	return classifier(g, g.GlobalPool(x), 1001)
}
