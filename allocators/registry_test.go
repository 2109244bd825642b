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
			allocators.Register(allocators.Info{Name: tc.name, Doc: "test only", New: newBump})
		}()
	}
	// Each required field, missing, gives a panic naming the allocator
	// and the field (and registers nothing).
	for _, tc := range []struct {
		info allocators.Info
		want string
	}{
		{allocators.Info{Name: "no-new", Doc: "test only"}, `allocators: Register("no-new"): missing New`},
		{allocators.Info{Name: "no-doc", New: newBump}, `allocators: Register("no-doc"): missing Doc`},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("Register(%+v): panic = %v, want %q", tc.info.Name, r, tc.want)
				}
			}()
			allocators.Register(tc.info)
		}()
		if _, err := allocators.Lookup(tc.info.Name); err == nil {
			t.Errorf("%s registered despite the panic", tc.info.Name)
		}
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
