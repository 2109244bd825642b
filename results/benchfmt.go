package results

import (
	"io"
	"regexp"
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
	// UnitBestRatio is footprint / best known (strategies, where known).
	UnitBestRatio = "footprint/best"
)

// KeyWorkload is the configuration key of results.txt that holds a
// result's workload spec.
const KeyWorkload = "workload"

// BenchName returns the benchmark name of a cell: Plan or Replay, then
// /subject=S, the strategy or allocator spec. A '/' inside the spec (an
// exec: path) becomes U+2215 and a space '_', since benchfmt splits names
// at every '/' and at spaces; and where the spec ends in "-DIGITS", which
// benchstat would read as GOMAXPROCS, "-1" follows it. The workload is not
// part of the name but the per-result configuration key "workload" (see
// WriteBenchfmt), so its value can be the spec as given, slashes and all.
func BenchName(r *Record) string {
	base := "Plan"
	if r.Kind == KindAllocator {
		base = "Replay"
	}
	name := base + "/subject=" + nameReplacer.Replace(r.Subject)
	if gomaxprocsSuffix.MatchString(name) {
		name += "-1"
	}
	return name
}

var (
	nameReplacer     = strings.NewReplacer("/", "∕", " ", "_", "\t", "_", "\n", "_", "\r", "_")
	valueReplacer    = strings.NewReplacer("\n", " ", "\r", " ")
	gomaxprocsSuffix = regexp.MustCompile(`-[0-9]+$`)
)

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
// file-level keys (goos, goarch, cpu, ...): it must not name the sweep,
// since benchstat compares only results whose configuration lines agree.
// Each result adds the key "workload", the workload spec as given, so that
// benchstat shows one table per workload and
// -filter 'workload:zoo/resnet-50' selects one. table gives the best known
// of each problem beyond the records' own (BestKnown).
func WriteBenchfmt(w io.Writer, config map[string]string, recs []Record, table BestTable) error {
	bw := benchfmt.NewWriter(w)
	var cfg []benchfmt.Config
	for _, k := range sortedKeys(config) {
		cfg = append(cfg, benchfmt.Config{Key: k, Value: []byte(config[k]), File: true})
	}
	best := BestKnown(recs, table)
	for i := range recs {
		r := &recs[i]
		if r.Status != StatusOK {
			continue
		}
		rc := append(slices.Clip(cfg), benchfmt.Config{Key: KeyWorkload, Value: []byte(valueReplacer.Replace(r.Workload)), File: true})
		samples := r.TimesNs
		if len(samples) == 0 {
			samples = []float64{0}
		}
		for _, ns := range samples {
			res := &benchfmt.Result{Config: rc, Name: benchfmt.Name(BenchName(r)), Iters: max(r.Iters, 1)}
			res.Values = []benchfmt.Value{
				{Value: ns / 1e9, Unit: UnitTime},
				{Value: float64(r.Footprint), Unit: UnitFootprint},
				{Value: r.Ratio, Unit: UnitRatio},
			}
			if b, ok := best[r.Hash]; ok && r.Kind == KindStrategy {
				res.Values = append(res.Values, benchfmt.Value{Value: float64(r.Footprint) / float64(b.Footprint), Unit: UnitBestRatio})
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
