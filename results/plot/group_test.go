package plot

import "testing"

func TestFigureGroupAndShortName(t *testing.T) {
	for _, tc := range []struct{ spec, group, short string }{
		{"zoo/resnet-50", "zoo", "resnet-50"},
		{"synthetic/random-dag?n=100&seed=1", "synthetic", "random-dag?n=100&seed=1"},
		{"../../strategies/testdata/tflite/complex.csv", "files", "complex.csv"},
		{"/data/minimalloc/A.1048576.csv", "files", "A.1048576.csv"},
		{"trace.csv", "files", "trace.csv"},
	} {
		if g := figureGroup(tc.spec); g != tc.group {
			t.Errorf("figureGroup(%q) = %q, want %q", tc.spec, g, tc.group)
		}
		if s := shortName(tc.spec); s != tc.short {
			t.Errorf("shortName(%q) = %q, want %q", tc.spec, s, tc.short)
		}
	}
}
