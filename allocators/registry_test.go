package allocators_test

import (
	"errors"
	"strings"
	"testing"

	"membench/allocators"
	"membench/workloads"
)

func TestRegisterPanics(t *testing.T) {
	newBump := func(*workloads.Args) (allocators.Allocator, error) { return nil, nil }
	for _, tc := range []struct {
		name, want string
	}{{"bfc", "Register called twice for bfc"}, {"BFC", "invalid name"}, {"", "invalid name"}, {"a_b", "invalid name"}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Errorf("Register(%q): panic = %v, want %q", tc.name, r, tc.want)
				}
			}()
			allocators.Register(allocators.Info{Name: tc.name, New: newBump})
		}()
	}
}

func TestLookupErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"nope", `unknown allocator "nope" (valid: best-fit, bfc, buddy, bump, first-fit, oneflow-bin, pool, torch-caching)`},
		{"bfc?memory_limt=1G", `bfc: unknown parameter "memory_limt" (valid: alignment, allow_growth, coalesce_regions, fragmentation_fraction, garbage_collection, memory_limit)`},
		{"bfc?memory_limit=lots", `bfc: parameter memory_limit="lots": want a byte size`},
		{"bfc?allow_growth=maybe", `bfc: parameter allow_growth="maybe": want true or false`},
		{"bfc?memory_limit=1G&memory_limit=2G", `parameter "memory_limit" given twice`},
	} {
		_, err := allocators.Lookup(tc.spec)
		var ue *workloads.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Lookup(%q) = %v, want a usage error containing %q", tc.spec, err, tc.want)
		}
	}
	f, err := allocators.Lookup("bfc?memory_limit=1G&allow_growth=false")
	if err != nil || f.Spec != "bfc?memory_limit=1G&allow_growth=false" {
		t.Fatalf("Lookup: %v, %v", f, err)
	}
	if a, b := f.New(), f.New(); a == b {
		t.Error("Factory.New returned the same allocator twice")
	}
}
