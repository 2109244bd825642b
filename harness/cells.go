package harness

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"membench/results"
	"membench/workloads"
)

// Cell is one unit of work: one subject on one workload, one repeat.
type Cell struct {
	// Index is the cell's position in the full, unsharded cell order.
	Index    int    `json:"index"`
	Workload string `json:"workload"`
	Subject  string `json:"subject"`
	Kind     string `json:"kind"`
	Repeat   int    `json:"repeat"`
	// Info is the workload's size, hash and lower bounds, computed once
	// per workload by the parent.
	Info WorkloadInfo `json:"info"`
	// Timeout bounds the cell; BenchTime and Samples shape its timing.
	Timeout   time.Duration `json:"timeout"`
	BenchTime time.Duration `json:"benchtime"`
	Samples   int           `json:"samples"`
}

// Key returns the cell's record key.
func (c *Cell) Key() results.Key {
	return results.Key{Workload: c.Workload, Subject: c.Subject, Repeat: c.Repeat}
}

// record returns the record of c before it runs: the cell's key, its
// workload's info and no timings. Every record of a cell starts here,
// whether the worker ran it or the parent recorded how it failed.
func (c *Cell) record() results.Record {
	return results.Record{
		Workload: c.Workload, N: c.Info.N, Hash: c.Info.Hash, Subject: c.Subject, Kind: c.Kind,
		Repeat: c.Repeat, LBLoad: c.Info.LBLoad, LBObjects: c.Info.LBObjects, TimesNs: []float64{},
	}
}

// WorkloadInfo is what the parent learns of a workload once.
type WorkloadInfo struct {
	N         int    `json:"n"`
	Hash      string `json:"hash"`
	LBLoad    int64  `json:"lb_load"`
	LBObjects int64  `json:"lb_objects"`
	// Spaces are the memory spaces of a problem with several, with their
	// LB_load and capacity (no footprint); nil otherwise.
	Spaces []results.SpaceStat `json:"spaces,omitempty"`
}

// Hash returns a content hash of a problem: alignment, capacity and every
// buffer's size and lifetime in order, then, for a problem with forms
// (DESIGN §15) only, so that other hashes stay as they were, each form
// it has.
func Hash(p *workloads.Problem) string {
	h := sha256.New()
	var buf [8 * 3]byte
	put := func(vs ...int64) {
		for len(vs) > 0 {
			k := min(len(vs), 3)
			for j, v := range vs[:k] {
				binary.LittleEndian.PutUint64(buf[8*j:], uint64(v))
			}
			h.Write(buf[:8*k])
			vs = vs[k:]
		}
	}
	put(p.Alignment, p.Capacity, int64(len(p.Buffers)))
	for _, b := range p.Buffers {
		put(b.Size, int64(b.First), int64(b.Last))
	}
	if f := p.Forms(); f != 0 {
		hashForms(p, f, put, h.Write)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// hashForms feeds the forms f of p to a hash: a tag and each buffer's
// values per form, and the memory spaces' names and capacities.
func hashForms(p *workloads.Problem, f workloads.Forms, put func(...int64), write func([]byte) (int, error)) {
	put(int64(f))
	for i := range p.Buffers {
		if f&workloads.FormAlign != 0 {
			put(p.AlignOf(i))
		}
		if f&workloads.FormFixed != 0 {
			put(p.Fixed[i])
		}
		if f&workloads.FormHints != 0 {
			put(p.Hints[i])
		}
		if f&workloads.FormMemories != 0 {
			put(int64(p.MemoryOf(i)))
		}
		if f&workloads.FormGaps != 0 {
			gaps := p.GapsOf(i)
			put(int64(len(gaps)))
			for _, g := range gaps {
				lo, hi := int64(-1), int64(-1)
				if g.Window != nil {
					lo, hi = g.Window.Lo, g.Window.Hi
				}
				put(int64(g.First), int64(g.Last), lo, hi)
			}
		}
	}
	if f&workloads.FormMemories != 0 {
		for _, m := range p.Memories {
			put(m.Capacity, int64(len(m.Name)))
			write([]byte(m.Name))
		}
	}
}

// subject is a resolved strategy or allocator entry.
type subject struct {
	spec, kind string
	maxN       int
}

// MaxCells bounds the cells of one sweep. Cells are listed in memory
// (a few hundred bytes each) before any runs, and a sweep of a million
// cells at a millisecond each already takes hours of a worker; a config
// beyond it (repeats = 10^12, say) is refused before anything is
// allocated.
const MaxCells = 1_000_000

// Matrix is an expanded config (the cell matrix): the workload specs with their info and the
// full cell list in run order.
type Matrix struct {
	Config    *Config
	Workloads []string
	Infos     map[string]WorkloadInfo
	Cells     []Cell
	// Warnings are the readers' warnings about the workloads (a snapshot's
	// entries with unknown actions, say), each prefixed with its workload.
	Warnings []string
	// cache holds the workloads loaded to list the cells, within its
	// budget, so that the sweep's figures need not load them again.
	cache *workloadCache
}

// load returns a workload of the matrix, loading it only if the matrix
// did not keep it.
func (m *Matrix) load(spec string) (*workloads.Workload, error) {
	if m.cache == nil {
		return workloads.Load(spec)
	}
	return m.cache.load(spec)
}

// Expand lists the cells of the config, from its specs as ParseConfig
// resolved them (resolved anew where flags replaced them: unknown names
// and parameters are usage errors) and each workload's size, hash and
// lower bounds, learnt when it was loaded, once: for each repeat, for each
// workload, every subject in turn, so that drift spreads across subjects.
// More than MaxCells cells is a usage error.
func (c *Config) Expand() (*Matrix, error) {
	r, err := c.resolved()
	if err != nil {
		return nil, err
	}
	wspecs, only, subs := r.workloads, r.only, r.subs
	pl := &Matrix{Config: c, Workloads: wspecs, Infos: map[string]WorkloadInfo{}, cache: r.cache}
	for _, ws := range wspecs {
		l, ok := r.loaded[ws]
		if !ok { // a file, read now
			w, err := pl.load(ws)
			if err != nil {
				return nil, err
			}
			l = learn(ws, w)
		}
		pl.Warnings = append(pl.Warnings, l.warnings...)
		pl.Infos[ws] = l.info
	}
	runs := func(ws string, s subject) bool {
		if k := only[ws]; k != "" && k != s.kind {
			return false
		}
		return s.maxN == 0 || pl.Infos[ws].N <= s.maxN
	}
	perRepeat := 0
	for _, ws := range wspecs {
		for _, s := range subs {
			if runs(ws, s) {
				perRepeat++
			}
		}
	}
	if perRepeat > 0 && c.Repeats > MaxCells/perRepeat {
		msg := fmt.Sprintf("the sweep has %d repeats of %d cells, %.4g cells in all: more than the %d a sweep may have; "+
			"lower repeats, or split the sweep into several configs", c.Repeats, perRepeat, float64(c.Repeats)*float64(perRepeat), MaxCells)
		if c.src != nil {
			// The file, not the line of repeats: flags may have set
			// repeats, workloads or subjects.
			return nil, c.src.errorAt(0, "%s", msg)
		}
		return nil, workloads.Usagef("%s", msg)
	}
	if perRepeat > 0 {
		pl.Cells = make([]Cell, 0, perRepeat*c.Repeats)
	}
	idx := 0
	for r := 0; r < c.Repeats && perRepeat > 0; r++ {
		for _, ws := range wspecs {
			info := pl.Infos[ws]
			for _, s := range subs {
				if !runs(ws, s) {
					continue
				}
				pl.Cells = append(pl.Cells, Cell{Index: idx, Workload: ws, Subject: s.spec, Kind: s.kind,
					Repeat: r, Info: info, Timeout: c.Timeout.Duration, BenchTime: c.BenchTime.Duration, Samples: c.Samples})
				idx++
			}
		}
	}
	return pl, nil
}

// withSeed adds seed=N to a registered workload that takes a seed and was
// given none, so that the recorded spec reproduces the workload.
func withSeed(spec string, seed int64) string {
	sp, err := workloads.ParseSpec(spec)
	if err != nil {
		return spec
	}
	info, ok := workloads.Lookup(sp.Name)
	if !ok {
		return spec
	}
	takes := false
	for _, p := range info.Params {
		takes = takes || p.Name == "seed"
	}
	for _, p := range sp.Params {
		if p.Key == "seed" {
			return spec
		}
	}
	if !takes {
		return spec
	}
	sep := "&"
	if !strings.Contains(spec, "?") {
		sep = "?"
	}
	return fmt.Sprintf("%s%sseed=%d", spec, sep, seed)
}

// Shard keeps the cells of shard i of n: those whose index is i mod n.
func Shard(cells []Cell, i, n int) []Cell {
	if n <= 1 {
		return cells
	}
	var out []Cell
	for _, c := range cells {
		if c.Index%n == i {
			out = append(out, c)
		}
	}
	return out
}
