package zoo

// MobileNet v1: Howard et al., "MobileNets: Efficient Convolutional Neural
// Networks for Mobile Vision Applications", 2017, Table 1 (the last
// depthwise layer has stride 1, as in the released TF-slim/TFLite model;
// Table 1's "s2" there is a typo). The TFLite graph: CONV_2D, 13 x
// (DEPTHWISE_CONV_2D, CONV_2D), AVERAGE_POOL_2D, CONV_2D 1x1 logits (1001
// classes), RESHAPE, SOFTMAX (output).
//
// MobileNet v2: Sandler et al., "MobileNetV2: Inverted Residuals and Linear
// Bottlenecks", CVPR 2018, Table 2 (t, c, n, s per stage). Each bottleneck
// is CONV_2D 1x1 expand (omitted when t = 1), DEPTHWISE_CONV_2D 3x3,
// CONV_2D 1x1 project, and ADD when stride is 1 and channels match; then
// CONV_2D 1x1 1280, AVERAGE_POOL_2D, CONV_2D 1x1 logits (1001), RESHAPE,
// SOFTMAX (output): 66 op outputs, 65 planned at 224x224 summing 26.31 MiB
// in fp32, the figures TFLite's authors give.
//
// Against torchvision's mobilenet_v2 as recorded (recorded/mobilenet-v2/
// graph): LB_load 6,021,120 B here against 9,633,792 B there, 65 tensors
// against 117: PyTorch keeps each BatchNorm output apart from its
// convolution's (TFLite folds it and fuses ReLU6), which raises the peak.

func init() {
	registerImage("zoo/mobilenet-v1", "MobileNet v1 (Howard et al. 2017, Table 1), TFLite ops", 224, 32, mobileNetV1)
	registerImage("zoo/mobilenet-v2", "MobileNet v2 (Sandler et al. 2018, Table 2), TFLite ops", 224, 32, mobileNetV2)
}

func mobileNetV1(g *Graph, batch, res int) Tensor {
	x := g.Conv(g.Input(batch, res, res, 3), 32, 3, 3, 2, Same)
	for _, l := range []struct{ stride, out int }{
		{1, 64}, {2, 128}, {1, 128}, {2, 256}, {1, 256}, {2, 512},
		{1, 512}, {1, 512}, {1, 512}, {1, 512}, {1, 512}, {2, 1024}, {1, 1024},
	} {
		x = g.DWConv(x, 3, l.stride, Same)
		x = g.Conv(x, l.out, 1, 1, 1, Same)
	}
	return classifier(g, g.GlobalPool(x), 1001)
}

// classifier is TF-slim's head on pooled features: CONV_2D 1x1 logits,
// RESHAPE to [batch, classes], SOFTMAX.
func classifier(g *Graph, pooled Tensor, classes int) Tensor {
	n, _, _, _ := g.nhwc(pooled)
	logits := g.Conv(pooled, classes, 1, 1, 1, Same)
	return g.Elementwise(g.Reshape(logits, n, classes))
}

func mobileNetV2(g *Graph, batch, res int) Tensor {
	x := g.Conv(g.Input(batch, res, res, 3), 32, 3, 3, 2, Same)
	for _, st := range []struct{ t, c, n, s int }{
		{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
		{6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
	} {
		for i := range st.n {
			stride := st.s
			if i > 0 {
				stride = 1
			}
			x = invertedResidual(g, x, st.t, st.c, 3, stride, 0)
		}
	}
	x = g.Conv(x, 1280, 1, 1, 1, Same)
	return classifier(g, g.GlobalPool(x), 1001)
}

// invertedResidual is MobileNet v2's bottleneck (and EfficientNet's MBConv
// when se > 0): expand by t, depthwise k x k, project to c, add the input
// when shapes match. With se > 0 the expansion and depthwise activations
// are swish (LOGISTIC, MUL) and a squeeze-excitation with se channels
// follows the depthwise convolution.
func invertedResidual(g *Graph, in Tensor, t, c, k, stride, se int) Tensor {
	_, _, _, inC := g.nhwc(in)
	x := in
	if t != 1 {
		x = g.Conv(x, inC*t, 1, 1, 1, Same)
		x = swishIf(g, x, se > 0)
	}
	x = g.DWConv(x, k, stride, Same)
	x = swishIf(g, x, se > 0)
	if se > 0 {
		_, _, _, mid := g.nhwc(x)
		s := g.GlobalPool(x)
		s = swishIf(g, g.Conv(s, se, 1, 1, 1, Same), true)
		s = g.Elementwise(g.Conv(s, mid, 1, 1, 1, Same)) // LOGISTIC
		x = g.Elementwise(x, s)                          // MUL
	}
	x = g.Conv(x, c, 1, 1, 1, Same)
	if stride == 1 && inC == c {
		x = g.Elementwise(x, in)
	}
	return x
}

// swishIf applies swish (LOGISTIC then MUL) when on.
func swishIf(g *Graph, x Tensor, on bool) Tensor {
	if !on {
		return x
	}
	return g.Elementwise(x, g.Elementwise(x))
}
