package allocators

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"membench/workloads"
)

// tcSettingsOptions are the torch-caching parameters that set what a
// snapshot's recorded allocator settings would.
var tcSettingsOptions = []string{"alloc_conf", "max_split_size", "roundup_power2_divisions", "garbage_collection_threshold"}

// LookupFor is Lookup for a replay of tr: the one rule every path that
// replays a trace (replay, sweep and compare cells, timelines) follows.
// Where tr records the allocator settings it ran under (a PyTorch
// snapshot's PYTORCH_CUDA_ALLOC_CONF) and spec is torch-caching without
// any of the options those settings set, the settings are added as
// alloc_conf, so the trace replays as recorded; Factory.Settings says so.
// An option in spec overrides them all; other allocators take no
// PyTorch settings. Settings torch-caching cannot take are an InputError
// naming the trace.
func LookupFor(spec string, tr *workloads.Trace) (*Factory, error) {
	sp, err := workloads.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	s := tr.AllocatorSettings
	if s == "" || sp.Name != "torch-caching" || slices.ContainsFunc(sp.Params, func(p workloads.Param) bool {
		return slices.Contains(tcSettingsOptions, p.Key)
	}) {
		return Lookup(spec)
	}
	sep := "?"
	if strings.Contains(spec, "?") {
		sep = "&"
	}
	f, err := Lookup(spec + sep + "alloc_conf=" + url.QueryEscape(s))
	if err != nil {
		return nil, &workloads.InputError{File: tr.Name, Msg: fmt.Sprintf("recorded allocator_settings %s that %s cannot take (override them with alloc_conf=): %v",
			workloads.Echo(s), spec, err)}
	}
	f.Spec, f.Settings = spec, s
	return f, nil
}
