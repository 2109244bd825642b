package harness

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"membench/allocators"
	"membench/results"
	"membench/strategies"
	"membench/workloads"
)

// resolved is a config's specs checked and resolved in one pass: the
// workload specs (with the config's seed filled in), the kind each may
// run under, the subjects, and what loading the registered workloads told
// (files are read by Expand, when the sweep starts).
type resolved struct {
	workloads []string
	only      map[string]string // workload spec -> the kind it runs under
	subs      []subject
	loaded    map[string]loadedWorkload
	// cache keeps the workloads loaded, within its budget, for Expand
	// and the sweep's figures.
	cache *workloadCache
	// from is what was resolved, to tell whether the config changed since
	// (flags replace its workloads or subjects).
	from resolveInput
}

// loadedWorkload is what the parent learnt of a workload it loaded: its
// info and its reader's warnings. The workload itself stays only in the
// resolution's bounded cache.
type loadedWorkload struct {
	info     WorkloadInfo
	warnings []string
}

// resolveInput is the part of a config that resolve reads.
type resolveInput struct {
	seed                              int64
	maxN                              map[string]int
	workloads, strategies, allocators []Entry
}

func (c *Config) resolveInput() resolveInput {
	return resolveInput{c.Seed, maps.Clone(c.MaxN), slices.Clone(c.Workloads), slices.Clone(c.Strategies), slices.Clone(c.Allocators)}
}

// resolve checks and resolves every spec of c in one pass, loading each
// registered workload once: unknown names and parameters, parameter
// values, entries whose params expand too far, "*" with params and specs
// listed twice are errors. Where f is the file c was parsed from, errors
// are *workloads.InputError naming its file and the entry's line; without
// it (a config from a manifest, or one whose entries flags replaced) they
// are usage errors.
func (c *Config) resolve(f *configFile) (*resolved, error) {
	r := &resolved{only: map[string]string{}, loaded: map[string]loadedWorkload{},
		cache: &workloadCache{keep: keptWorkloadBytes}, from: c.resolveInput()}
	seen := map[string]int{}
	lines := f.entryLines("workloads", c.Workloads)
	for i, e := range c.Workloads {
		specs, err := Expand(e)
		if err != nil {
			return nil, f.errorAt(lines[i], "workload %s", err)
		}
		for _, s := range specs {
			// Run with the config's seed filled in; errors name the spec
			// as written.
			ws := withSeed(s, c.Seed)
			if prev, dup := seen[ws]; dup {
				return nil, f.errorAt(lines[i], "workload %s listed twice%s", workloads.Echo(s), firstOn(prev))
			}
			seen[ws] = lines[i]
			r.workloads = append(r.workloads, ws)
			switch e.Only {
			case "strategies":
				r.only[ws] = results.KindStrategy
			case "allocators":
				r.only[ws] = results.KindAllocator
			}
			if st, err := os.Stat(s); err == nil && !st.IsDir() {
				continue // a file: read, and its errors named, when the sweep starts
			}
			w, err := r.cache.load(ws)
			if err != nil {
				return nil, f.errorAt(lines[i], "%s", specError("workload", s, err))
			}
			r.loaded[ws] = learn(ws, w)
		}
	}
	seen = map[string]int{}
	for _, sec := range []struct {
		key, kind, recKind string
		entries            []Entry
		all                []string
		lookup             func(string) error
	}{
		{"strategies", "strategy", results.KindStrategy, c.Strategies, strategies.Names(), func(s string) error { _, err := strategies.Lookup(s); return err }},
		{"allocators", "allocator", results.KindAllocator, c.Allocators, allocators.Names(), func(s string) error { _, err := allocators.Lookup(s); return err }},
	} {
		lines := f.entryLines(sec.key, sec.entries)
		for i, e := range sec.entries {
			specs, err := Expand(e)
			if err != nil {
				return nil, f.errorAt(lines[i], "%s %s", sec.kind, err)
			}
			if e.Spec == "*" {
				if len(e.Params) > 0 {
					// Each takes parameters of its own: one value cannot
					// suit them all.
					return nil, f.errorAt(lines[i], `%s "*": params do not apply to every %s; list the %s to give params to apart`, sec.kind, sec.kind, sec.key)
				}
				specs = sec.all
			}
			for _, s := range specs {
				if prev, dup := seen[s]; dup {
					return nil, f.errorAt(lines[i], "%s %s listed twice%s", sec.kind, workloads.Echo(s), firstOn(prev))
				}
				seen[s] = lines[i]
				if err := sec.lookup(s); err != nil {
					return nil, f.errorAt(lines[i], "%s", specError(sec.kind, s, err))
				}
				maxN := e.MaxN
				name, _, _ := strings.Cut(s, "?")
				if m, ok := c.MaxN[name]; ok && (maxN == 0 || m < maxN) {
					maxN = m
				}
				r.subs = append(r.subs, subject{s, sec.recKind, maxN})
			}
		}
	}
	return r, nil
}

// firstOn says where a spec listed twice was first listed, where known.
func firstOn(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf(" (first on line %d)", line)
}

// learn is what the parent keeps of workload spec s: its size, hash and
// lower bounds, and its reader's warnings prefixed with s.
func learn(s string, w *workloads.Workload) loadedWorkload {
	lb := strategies.LowerBounds(w.Problem)
	l := loadedWorkload{info: WorkloadInfo{N: len(w.Problem.Buffers), Hash: Hash(w.Problem), LBLoad: lb.Load, LBObjects: lb.Objects}}
	for m, load := range lb.Loads {
		mem := w.Problem.Memories[m]
		l.info.Spaces = append(l.info.Spaces, results.SpaceStat{Name: mem.Name, LBLoad: load, Capacity: mem.Capacity})
	}
	for _, m := range w.Warnings() {
		l.warnings = append(l.warnings, s+": "+m)
	}
	return l
}

// resolved returns c resolved: as ParseConfig resolved it where its specs
// are unchanged since, else resolved now, without the file's lines, which
// no longer match.
func (c *Config) resolved() (*resolved, error) {
	if c.specs != nil && reflect.DeepEqual(c.specs.from, c.resolveInput()) {
		return c.specs, nil
	}
	return c.resolve(nil)
}
