package allocators

import (
	"strings"
	"testing"

	"membench/workloads"
)

func TestLookupFor(t *testing.T) {
	tr := &workloads.Trace{Name: "snap.pickle", AllocatorSettings: "expandable_segments:True"}
	for _, c := range []struct {
		spec, settings string
		tr             *workloads.Trace
	}{
		{"torch-caching", "expandable_segments:True", tr},
		{"torch-caching?memory_limit=1G", "expandable_segments:True", tr},
		{"torch-caching?alloc_conf=expandable_segments:False", "", tr},
		{"torch-caching?max_split_size=64M", "", tr},
		{"torch-caching", "", &workloads.Trace{}},
		{"bfc", "", tr},
	} {
		f, err := LookupFor(c.spec, c.tr)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if f.Spec != c.spec || f.Settings != c.settings {
			t.Errorf("%s: spec %q, settings %q; want %q, %q", c.spec, f.Spec, f.Settings, c.spec, c.settings)
		}
	}
	_, err := LookupFor("torch-caching", &workloads.Trace{Name: "snap.pickle", AllocatorSettings: "expandable_segments:yes"})
	const want = `snap.pickle: recorded allocator_settings "expandable_segments:yes" that torch-caching cannot take (override them with alloc_conf=): `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %s...", err, want)
	}
	if _, err := LookupFor("nope", tr); err == nil {
		t.Fatal("unknown allocator accepted")
	}
}
