package zoo

import (
	"testing"

	"membench/workloads"
	_ "membench/workloads/recorded"
)

// TestAgainstRecordedGraphs compares each zoo model that has a recorded
// torchvision (or torch.nn) counterpart with that recording's static graph:
// LB_load and tensor counts, as fixed numbers. The differences are stated
// in each zoo file's doc comment (BN folding and activation fusion in
// TFLite, swish as two TFLite ops, BERT's embeddings); a change on either
// side shows here.
func TestAgainstRecordedGraphs(t *testing.T) {
	cases := []struct {
		zoo, recorded string
		zooN, recN    int
		zooLB, recLB  int64
	}{
		{"zoo/resnet-50", "recorded/resnet50/graph", 72, 126, 9633792, 9633792},
		{"zoo/mobilenet-v2", "recorded/mobilenet-v2/graph", 65, 117, 6021120, 9633792},
		{"zoo/inception-v3", "recorded/inception-v3/graph", 125, 219, 8297856, 11063808},
		{"zoo/efficientnet-b0", "recorded/efficientnet-b0/graph", 238, 190, 14450688, 9633792},
		{"zoo/bert-base", "recorded/transformer-encoder/graph", 280, 253, 3538944, 3538944},
	}
	for _, c := range cases {
		z, err := workloads.Load(c.zoo)
		if err != nil {
			t.Fatal(err)
		}
		r, err := workloads.Load(c.recorded)
		if err != nil {
			t.Fatal(err)
		}
		if z.Problem.Len() != c.zooN || r.Problem.Len() != c.recN ||
			z.Problem.LoadBound() != c.zooLB || r.Problem.LoadBound() != c.recLB {
			t.Errorf("%s: %d tensors, LB_load %d; %s: %d tensors, LB_load %d; want %d, %d; %d, %d",
				c.zoo, z.Problem.Len(), z.Problem.LoadBound(), c.recorded, r.Problem.Len(), r.Problem.LoadBound(),
				c.zooN, c.zooLB, c.recN, c.recLB)
		}
	}
}
