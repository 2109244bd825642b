package workloads

import (
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// Table is a registry of named plug-ins (workloads, strategies,
// allocators), filled from init() functions in the database/sql driver
// style: adding a duplicate or invalid name panics.
type Table[T any] struct {
	what  string // the package, for panic messages
	valid *regexp.Regexp
	mu    sync.RWMutex
	m     map[string]T
}

// NewTable returns an empty table whose names must match valid.
func NewTable[T any](what string, valid *regexp.Regexp) *Table[T] {
	return &Table[T]{what: what, valid: valid, m: map[string]T{}}
}

// Add registers v under name. It panics on an invalid or duplicate name.
func (t *Table[T]) Add(name string, v T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.valid.MatchString(name) {
		panic(fmt.Sprintf("%s: invalid name %q (want %s)", t.what, name, t.valid))
	}
	if _, dup := t.m[name]; dup {
		panic(fmt.Sprintf("%s: Register called twice for %s", t.what, name))
	}
	t.m[name] = v
}

// Get returns the entry registered under name.
func (t *Table[T]) Get(name string) (T, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	v, ok := t.m[name]
	return v, ok
}

// Names returns the registered names, sorted.
func (t *Table[T]) Names() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	names := make([]string, 0, len(t.m))
	for n := range t.m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// All returns the entries in name order.
func (t *Table[T]) All() []T {
	names := t.Names()
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]T, len(names))
	for i, n := range names {
		out[i] = t.m[n]
	}
	return out
}
