package results

import (
	"slices"
	"testing"
)

func TestShortLabel(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"synthetic/random-dag?n=100&seed=1", "random-dag n=100 s=1"},
		{"synthetic/chain", "chain"},
		{"zoo/resnet-50", "resnet-50"},
		{"zoo/gpt2-small?mode=decode&steps=16", "gpt2-small mode=decode steps=16"},
		{"minimalloc/a", "minimalloc/a"},
		{"tflite/deeplabv3", "tflite/deeplabv3"},
		{"../../strategies/testdata/tflite/complex.csv", "complex.csv"},
		{"/data/minimalloc/A.1048576.csv", "A.1048576.csv"},
		{"exec:/path/to/planner.py", "planner.py"},
		{"exec:python3 /opt/p/planner.py --fast -k 3", "python3 planner.py --fast -k 3"},
		{"bfc?memory_limit=1G&allow_growth=true", "bfc memory_limit=1G allow_growth=true"},
		{"best-of?of=greedy-by-size,greedy-by-breadth", "best-of of=greedy-by-size,greedy-by-breadth"},
		{"greedy-by-size", "greedy-by-size"},
	} {
		if got := ShortLabel(tc.spec); got != tc.want {
			t.Errorf("ShortLabel(%q) = %q, want %q", tc.spec, got, tc.want)
		}
	}
}

func TestShortLabelsKeepDistinctSpecsApart(t *testing.T) {
	got := ShortLabels([]string{"a/x.csv", "b/x.csv", "zoo/unet", "exec:./p.py", "exec:/usr/p.py", "zoo/unet"})
	want := []string{"a/x.csv", "b/x.csv", "unet", "exec:./p.py", "exec:/usr/p.py", "unet"}
	if !slices.Equal(got, want) {
		t.Errorf("ShortLabels = %q, want %q", got, want)
	}
}

func TestMiB(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 1 << 20: "1", 3 << 19: "1.5", 1000: "0.000954", 64: "0.000061",
		123456789: "118", 5 << 30: "5120"} {
		if got := MiB(in); got != want {
			t.Errorf("MiB(%d) = %q, want %q", in, got, want)
		}
	}
}
