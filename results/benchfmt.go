package results

import (
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Units of results.txt.
const (
	// UnitTime is wall time per planning call, or per trace event for
	// allocators.
	UnitTime = "sec/op"
	// UnitFootprint is the plan's footprint or the allocator's peak
	// reserved bytes.
	UnitFootprint = "footprint-B"
	// UnitRatio is footprint / LB_load.
	UnitRatio = "footprint/lb"
)

// BenchName returns the benchmark name of a cell: Plan or Replay, then
// /workload=W/subject=S. Slashes inside specs become U+2215 and spaces
// underscores, so the name's parts stay key=value pairs for benchstat.
func BenchName(r *Record) string {
	base := "Plan"
	if r.Kind == KindAllocator {
		base = "Replay"
	}
	return base + "/workload=" + nameValue(r.Workload) + "/subject=" + nameValue(r.Subject)
}

var nameReplacer = strings.NewReplacer("/", "∕", " ", "_")

func nameValue(s string) string { return nameReplacer.Replace(s) }

// Slug turns a spec into a file-name part: letters, digits, '.', '_' and
// '-' stay, anything else ('/', '?', '=', '&', ':') becomes '-'.
func Slug(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

// WriteBenchfmt writes the ok records in Go benchmark format, one line per
// time sample, so that benchstat can compare two sweeps. config holds the
// file-level keys (goos, goarch, cpu, ...).
func WriteBenchfmt(w io.Writer, config map[string]string, recs []Record) error {
	bw := benchfmt.NewWriter(w)
	var cfg []benchfmt.Config
	for _, k := range sortedKeys(config) {
		cfg = append(cfg, benchfmt.Config{Key: k, Value: []byte(config[k]), File: true})
	}
	for i := range recs {
		r := &recs[i]
		if r.Status != StatusOK {
			continue
		}
		samples := r.TimesNs
		if len(samples) == 0 {
			samples = []float64{0}
		}
		for _, ns := range samples {
			res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(BenchName(r)), Iters: max(r.Iters, 1)}
			res.Values = []benchfmt.Value{
				{Value: ns / 1e9, Unit: UnitTime},
				{Value: float64(r.Footprint), Unit: UnitFootprint},
				{Value: r.Ratio, Unit: UnitRatio},
			}
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
