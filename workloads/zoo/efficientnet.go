package zoo

// EfficientNet-B0: Tan and Le, "EfficientNet: Rethinking Model Scaling for
// Convolutional Neural Networks", ICML 2019, Table 1 (stage, operator,
// resolution, channels, layers), with MBConv blocks of MnasNet (Tan et al.
// 2019): expand 1x1 (expansion 6, none for MBConv1), depthwise k x k,
// squeeze-and-excitation with ratio 0.25 of the block's input channels,
// project 1x1, residual ADD when stride is 1 and channels match. Swish is
// not a TFLite builtin: it runs as LOGISTIC then MUL, two tensors. Head:
// CONV_2D 1x1 1280 (swish), MEAN, FULLY_CONNECTED 1000, SOFTMAX (output).
// Dropout and drop-connect are training-only.
//
// Against torchvision's efficientnet_b0 as recorded
// (recorded/efficientnet-b0/graph): LB_load 14,450,688 B here against
// 9,633,792 B there, 238 tensors against 190. Here swish is LOGISTIC then
// MUL, so its input, the sigmoid and the product are live together (three
// 4.8 MB maps at block 2's 112x112x96 expansion make this LB_load), where
// PyTorch's SiLU is one in-place op; PyTorch in turn keeps BatchNorm
// outputs apart (TFLite folds them).

func init() {
	registerImage("zoo/efficientnet-b0", "EfficientNet-B0 (Tan and Le 2019, Table 1), TFLite ops", 224, 32, efficientNetB0)
}

func efficientNetB0(g *Graph, batch, res int) Tensor {
	x := swishIf(g, g.Conv(g.Input(batch, res, res, 3), 32, 3, 3, 2, Same), true)
	for _, st := range []struct{ t, k, c, n, s int }{
		{1, 3, 16, 1, 1}, {6, 3, 24, 2, 2}, {6, 5, 40, 2, 2}, {6, 3, 80, 3, 2},
		{6, 5, 112, 3, 1}, {6, 5, 192, 4, 2}, {6, 3, 320, 1, 1},
	} {
		for i := range st.n {
			stride := st.s
			if i > 0 {
				stride = 1
			}
			_, _, _, inC := g.nhwc(x)
			x = invertedResidual(g, x, st.t, st.c, st.k, stride, max(1, inC/4))
		}
	}
	x = swishIf(g, g.Conv(x, 1280, 1, 1, 1, Same), true)
	return g.Elementwise(g.FC(g.Mean(x), 1000))
}
