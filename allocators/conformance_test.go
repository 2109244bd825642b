package allocators_test

import (
	"fmt"
	"testing"

	"membench/allocators"
	"membench/allocators/allocatortest"
)

// mustNew builds a fresh allocator from spec.
func mustNew(t testing.TB, spec string) allocators.Allocator {
	t.Helper()
	f, err := allocators.Lookup(spec)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", spec, err)
	}
	return f.New()
}

// TestConformance runs the conformance suite over every registered
// allocator, with its default parameters and under memory_limit.
func TestConformance(t *testing.T) {
	for _, info := range allocators.All() {
		t.Run(info.Name, func(t *testing.T) {
			allocatortest.Run(t, allocatortest.Config{
				New: func() allocators.Allocator { return mustNew(t, info.Name) },
				NewLimited: func(limit int64) allocators.Allocator {
					return mustNew(t, fmt.Sprintf("%s?memory_limit=%d", info.Name, limit))
				},
			})
		})
	}
}

// TestConformanceVariants runs the suite over non-default parameters.
func TestConformanceVariants(t *testing.T) {
	for _, spec := range []string{
		"bfc?garbage_collection=true",
		"bfc?allow_growth=false",
		"bfc?coalesce_regions=true&garbage_collection=true",
		"bfc?fragmentation_fraction=0.01",
		"bfc?alignment=1024",
		"torch-caching?max_split_size=24M",
		"torch-caching?roundup_power2_divisions=4",
		"torch-caching?garbage_collection_threshold=0.5&max_split_size=32M&roundup_power2_divisions=2",
		"torch-caching?alloc_conf=expandable_segments:True",
		"torch-caching?alloc_conf=expandable_segments:True,garbage_collection_threshold:0.5,max_split_size_mb:32",
		"torch-caching?alloc_conf=roundup_power2_divisions:[1:2,4:4,>:8],max_split_size_mb:24",
	} {
		t.Run(spec, func(t *testing.T) {
			allocatortest.Run(t, allocatortest.Config{
				New: func() allocators.Allocator { return mustNew(t, spec) },
				NewLimited: func(limit int64) allocators.Allocator {
					return mustNew(t, fmt.Sprintf("%s&memory_limit=%d", spec, limit))
				},
				MaxSize: 48 << 20, // reach max_split_size and the 10 MiB large-segment rule
			})
		})
	}
}
