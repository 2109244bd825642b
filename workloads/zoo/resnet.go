package zoo

// ResNet-50: He et al., "Deep Residual Learning for Image Recognition",
// CVPR 2016, Table 1 (50-layer column) with bottleneck blocks (Fig. 5) and
// projection shortcuts (option B) at the first block of each stage; the
// stride sits on the first 1x1 convolution, as in the paper and Keras'
// ResNet50. TFLite graph: CONV_2D 7x7/2, MAX_POOL_2D 3x3/2, 16 bottlenecks
// (CONV_2D 1x1, CONV_2D 3x3, CONV_2D 1x1, a projection CONV_2D 1x1 in the
// first block of a stage, ADD with fused ReLU), MEAN, FULLY_CONNECTED 1000,
// SOFTMAX (output). Batch norm is folded into the convolutions.
//
// Against torchvision's resnet50 as recorded (recorded/resnet50/graph,
// torch.fx, batch 1): the same LB_load, 9,633,792 B, with 72 tensors here
// against 126 there: PyTorch keeps each BatchNorm output as a tensor of its
// own (not folded) and its in-place ReLUs share their input's memory; the
// peak comes out the same.

func init() {
	registerImage("zoo/resnet-50", "ResNet-50 (He et al. 2016, Table 1), TFLite ops", 224, 32, resNet50)
}

func resNet50(g *Graph, batch, res int) Tensor {
	x := g.Conv(g.Input(batch, res, res, 3), 64, 7, 7, 2, Same)
	x = g.Pool(x, 3, 2, Same)
	for s, st := range []struct{ width, blocks int }{{64, 3}, {128, 4}, {256, 6}, {512, 3}} {
		for i := range st.blocks {
			stride := 1
			if i == 0 && s > 0 {
				stride = 2
			}
			y := g.Conv(x, st.width, 1, 1, stride, Same)
			y = g.Conv(y, st.width, 3, 3, 1, Same)
			y = g.Conv(y, 4*st.width, 1, 1, 1, Same)
			short := x
			if i == 0 {
				short = g.Conv(x, 4*st.width, 1, 1, stride, Same)
			}
			x = g.Elementwise(y, short)
		}
	}
	return g.Elementwise(g.FC(g.Mean(x), 1000))
}
